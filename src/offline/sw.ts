/// <reference lib="webworker" />
/**
 * The service worker (built by vite-plugin-pwa with `injectManifest`): Workbox precaches the
 * build's files (the list is the plugin's), and this file adds only what is ours. A returning
 * visitor's page comes from the copy kept here at once, without the link's round trip, while
 * the copy is of this worker's build and younger than the page's PAGE_COPY_HEADER says;
 * otherwise, and for the media, the network answers as without a worker, and the copies here
 * (the page, and the video the visitor downloaded: use-offline-download.ts) answer only when it
 * does not. Nothing with a session in it (the signin, the signout, any answer that sets a
 * cookie) ever passes through here: only page navigations and media GETs are handled. The page
 * registers it after the video's first frame (register-worker.ts), so the first worker's
 * precache finds its files in the HTTP cache (a new build's worker fetches its own).
 */
import { cleanupOutdatedCaches, getCacheKeyForURL, precacheAndRoute } from 'workbox-precaching';
import { createPartialResponse } from 'workbox-range-requests';
import { PAGE_COPY_HEADER } from '../../config/media-layout';
import { SCREEN_PATHS } from '../../config/paths';
import { bootConfigIn } from '../boot/boot-config';
import type { DownloadRecord } from './download-store';
import {
  DOWNLOAD_RECORD,
  PLAYER_PARAM,
  REFRESH_PAGE,
  downloadCache,
  pagesCache,
} from './offline-names';

declare const self: ServiceWorkerGlobalScope;

/** hls.js's chunk (src/video-start/adaptive-player.ts). */
const PLAYER_CHUNK = /\/assets\/adaptive-player-[\w-]+\.js$/;
const withPlayer = new URL(self.location.href).searchParams.has(PLAYER_PARAM);

// Not the web manifest, which the plugin always adds: the browser fetches it itself, and no
// offline page needs it. hls.js only where the page plays with it (register-worker.ts).
precacheAndRoute(
  self.__WB_MANIFEST.filter((entry) => {
    const url = typeof entry === 'string' ? entry : entry.url;
    return !url.endsWith('.webmanifest') && (withPlayer || !PLAYER_CHUNK.test(`/${url}`));
  }),
);
cleanupOutdatedCaches();

/** The scope is `{base}/`; the base is what the page's config calls basePath. */
const scope = new URL(self.registration.scope);
const base = scope.pathname.replace(/\/$/, '');
/** Both screens are the same index.html (the app routes on the client): one copy serves both. */
const pageUrl = new URL(`${base}${SCREEN_PATHS.login}`, scope).href;
const screenPaths = new Set(Object.values(SCREEN_PATHS).map((path) => `${base}${path}`));

const keptPage = () => caches.match(pageUrl, { cacheName: pagesCache(base) });

/** A page worth keeping: the server's own 200 HTML, not a redirect or an error. */
const isPage = (response: Response) =>
  response.ok &&
  response.type === 'basic' &&
  !response.redirected &&
  (response.headers.get('content-type') ?? '').startsWith('text/html');

/**
 * Whether this worker's precache holds the build that made the page (the entry it names, whose
 * hashed name changes with every chunk's). A page of another build (the server's after a
 * deploy, or one an older worker kept) may ask for files this worker does not have.
 */
async function builtHere(page: Response): Promise<boolean> {
  const entry = bootConfigIn(await page.clone().text())?.entry;
  return !!entry && !!getCacheKeyForURL(new URL(entry, scope).href);
}

/**
 * Whether the copy may be shown without asking the server: for PAGE_COPY_HEADER seconds from the
 * server's answer (its Date; a revalidation brings a new one), the publish it names stays for a
 * whole session begun from it. Measured with the phone's clock against the server's.
 */
function young(page: Response): boolean {
  const age = Date.now() - Date.parse(page.headers.get('date') ?? '');
  return age < Number(page.headers.get(PAGE_COPY_HEADER)) * 1000;
}

/** Keeps a page of this build (the copy the next visit is shown); says whether it did. */
async function keepPage(response: Response): Promise<boolean> {
  if (!isPage(response) || !(await builtHere(response))) return false;
  await (await caches.open(pagesCache(base))).put(pageUrl, response);
  return true;
}

/** The windows whose page the server has sent since they opened: nothing to refresh there. */
const current = new Set<string>();

/**
 * A screen's page at once from the copy, when it may be (above); otherwise the network's, kept
 * for later; with no network, the last one kept (of any build: its files may still be in the
 * HTTP cache, and the browser's error page is worse).
 */
async function navigate(event: FetchEvent, url: URL): Promise<Response> {
  // Looked at before the page (and so its media requests) comes, beside the page's own work:
  // this worker may have started before a download it never saw (made while the page was not
  // yet in its control), and a stale "none" would send the reload's video to the network with
  // no signal (MEDIA_ERR_SRC_NOT_SUPPORTED).
  const looked = lookForDownload().catch(() => undefined);
  const answer = await pageFor(event, url);
  await looked;
  return answer;
}

async function pageFor(event: FetchEvent, url: URL): Promise<Response> {
  const kept = await keptPage();
  if (kept && screenPaths.has(url.pathname) && young(kept) && (await builtHere(kept))) return kept;
  try {
    const response = await fetch(event.request);
    current.add(event.resultingClientId);
    // Only a screen's page: `{base}/index.html` is the build's file as it is, without what the
    // server writes into the page (the media info, the copy's period).
    if (screenPaths.has(url.pathname)) event.waitUntil(keepPage(response.clone()));
    return response;
  } catch (error) {
    if (kept) return kept;
    throw error;
  }
}

/**
 * The page, asked of the server again once the window that was shown the copy has its first
 * frame: a new publish is shown from the next visit on. A page this worker cannot keep (a new
 * build, or an error) leaves the copy for offline only: the next visit asks the network.
 */
async function refreshPage() {
  const response = await fetch(pageUrl, { cache: 'no-cache' });
  if (await keepPage(response)) return;
  const kept = await keptPage();
  if (!kept) return;
  const headers = new Headers(kept.headers);
  // The body read here is decoded already.
  for (const name of [PAGE_COPY_HEADER, 'content-encoding', 'content-length']) headers.delete(name);
  const body = await kept.blob();
  await (await caches.open(pagesCache(base))).put(pageUrl, new Response(body, { headers }));
}

/** The video, its playlists, segments, captions, chapters and poster (server/routes/media.ts). */
const MEDIA_PATH = /\/api\/video(\/|$)/;
/** A publish's master playlist: a stored copy answers it for whichever publish the page names. */
const MASTER_PATH = /\/master\.m3u8$/;
const recordUrl = new URL(`${base}/${DOWNLOAD_RECORD}`, scope).href;
/**
 * Whether a download is stored (null until Cache Storage has said). Without one, media requests
 * do not even pass through this worker: they go to the network exactly as without it. Looked at
 * again after each media request, so a download made or deleted by the page counts from the next.
 */
let downloaded: boolean | null = null;

/**
 * The stored download's record, or null; a copy past its own period (offline-copy.ts) is deleted
 * here too, so that no page has to be open for it to stop playing.
 */
async function storedRecord(): Promise<Pick<
  DownloadRecord,
  'kind' | 'done' | 'until' | 'finish'
> | null> {
  const answer = await caches.match(recordUrl, { cacheName: downloadCache(base) });
  const record = answer ? ((await answer.json()) as DownloadRecord) : null;
  if (record && typeof record.until === 'number' && Date.now() >= record.until) {
    await caches.delete(downloadCache(base));
    return null;
  }
  return record;
}

const lookForDownload = async () => {
  downloaded =
    (await caches.has(downloadCache(base))) && (await storedRecord().catch(() => true)) !== null;
};
void lookForDownload();

/**
 * A media request: the network's answer, as without a worker (a 401 included: the app ends the
 * session, and with it a download that has no period of its own). With no network, the
 * download's copy at that URL: the master that names only the stored rendition (also for a
 * newer publish's master, which the page may name once it has seen one), its files, or the MP4,
 * cut to the Range the video element asks for (a Cache Storage entry is always whole).
 */
async function media(request: Request): Promise<Response> {
  // With no network said, the copy first: a fetch could still be answered in part by the HTTP
  // cache (a Range the video element had loaded) and then fail half-way, past any catch here.
  if (!self.navigator.onLine) {
    const stored = await fromCopy(request).catch(() => null);
    if (stored) return stored;
  }
  try {
    return await fetch(request);
  } catch (error) {
    const stored = await fromCopy(request).catch(() => null);
    if (!stored) throw error;
    return stored;
  }
}

/** The download's answer to `request`, or null. */
async function fromCopy(request: Request): Promise<Response | null> {
  const record = await storedRecord();
  if (!record) return null;
  const options = { cacheName: downloadCache(base), ignoreVary: true };
  let stored = await caches.match(request.url, options);
  if (!stored && record.done && record.kind === 'hls' && MASTER_PATH.test(request.url))
    stored = await caches.match(record.finish.url, options);
  if (!stored) return null;
  return request.headers.has('range') ? createPartialResponse(request, stored) : stored;
}

/**
 * The page this worker's build made, kept when it takes over: the first visit's page came before
 * it, and after an update the copy is the previous build's. From the HTTP cache (the page this
 * window loaded, or the one a refresh brought), not the link again.
 */
async function keepOwnPage() {
  const kept = await keptPage();
  if (kept && (await builtHere(kept))) return;
  await keepPage(await fetch(pageUrl, { cache: 'force-cache' }));
}

// The first worker takes over at once (this page and the others open now). A new build's waits
// until no window the previous worker controls is open: a page of the previous build may still
// ask for files only the previous precache holds (the server no longer has them after a deploy).
self.addEventListener('install', () => {
  if (!self.registration.active) void self.skipWaiting();
});

self.addEventListener('activate', (event) =>
  // A failure to keep the page must not stop the worker.
  event.waitUntil(Promise.all([self.clients.claim(), keepOwnPage().catch(() => undefined)])),
);

self.addEventListener('message', (event) => {
  const client = event.source;
  if (event.data !== REFRESH_PAGE || !(client instanceof Client) || current.has(client.id)) return;
  current.add(client.id);
  event.waitUntil(refreshPage().catch(() => undefined));
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return;
  if (request.mode === 'navigate' && url.pathname.startsWith(scope.pathname))
    event.respondWith(navigate(event, url));
  else if (MEDIA_PATH.test(url.pathname)) {
    if (downloaded !== false) event.respondWith(media(request));
    event.waitUntil(lookForDownload());
  }
});
