/// <reference lib="webworker" />
/**
 * The service worker (built by vite-plugin-pwa with `injectManifest`): Workbox precaches the
 * build's files (the list is the plugin's), and this file adds only what is ours. Online,
 * pages and media go to the network as they would without it; the copies here (the last page,
 * and the video the visitor downloaded: use-offline-download.ts) answer only when it does not. Nothing with a session in it (the signin, the signout, any answer that
 * sets a cookie) ever passes through here: only page navigations, media GETs and the player's
 * code are handled. The page registers it after the video's first frame (register-worker.ts), so
 * the precache finds its files in the HTTP cache.
 */
import { cleanupOutdatedCaches, getCacheKeyForURL, precacheAndRoute } from 'workbox-precaching';
import { createPartialResponse } from 'workbox-range-requests';
import { SCREEN_PATHS } from '../../config/paths';
import { downloadCache, pagesCache } from './offline-names';

declare const self: ServiceWorkerGlobalScope;

// Not the web manifest, which the plugin always adds: the browser fetches it itself, and no
// offline page needs it.
precacheAndRoute(
  self.__WB_MANIFEST.filter(
    (entry) => !(typeof entry === 'string' ? entry : entry.url).endsWith('.webmanifest'),
  ),
);
cleanupOutdatedCaches();

/** The scope is `{base}/`; the base is what the page's config calls basePath. */
const scope = new URL(self.registration.scope);
const base = scope.pathname.replace(/\/$/, '');
/** Both screens are the same index.html (the app routes on the client): one copy serves both. */
const pageUrl = new URL(`${base}${SCREEN_PATHS.login}`, scope).href;

/** A page worth keeping: the server's own 200 HTML, not a redirect or an error. */
const isPage = (response: Response) =>
  response.ok &&
  response.type === 'basic' &&
  !response.redirected &&
  (response.headers.get('content-type') ?? '').startsWith('text/html');

async function keepPage(response: Response) {
  if (isPage(response)) await (await caches.open(pagesCache(base))).put(pageUrl, response);
}

/** The network's page, kept for later; with no network, the last one kept. */
async function navigate(event: FetchEvent): Promise<Response> {
  try {
    const response = await fetch(event.request);
    event.waitUntil(keepPage(response.clone()));
    return response;
  } catch (error) {
    const kept = await caches.match(pageUrl, { cacheName: pagesCache(base) });
    if (kept) return kept;
    throw error;
  }
}

/** The video, its playlists, segments, captions, chapters and poster (server/routes/media.ts). */
const MEDIA_PATH = /\/api\/video(\/|$)/;
/**
 * The build's files that are not precached: the player's code (hls.js), which an adaptive
 * download stores beside the video (download-offer.ts) and which is answered like the media.
 */
const isStoredCode = (url: URL) =>
  url.pathname.startsWith(`${base}/assets/`) && !getCacheKeyForURL(url.href);

/**
 * Whether a download is stored (null until Cache Storage has said). Without one, media requests
 * do not even pass through this worker: they go to the network exactly as without it. Looked at
 * again after each media request, so a download made or deleted by the page counts from the next.
 */
let downloaded: boolean | null = null;
const lookForDownload = () =>
  caches.has(downloadCache(base)).then((has) => {
    downloaded = has;
  });
void lookForDownload();

/**
 * A media request: the network's answer, as without a worker (a 401 included: the app ends the
 * session, which deletes the download). With no network, the download's copy at that URL: the
 * master that names only the stored rendition, its files, or the MP4, cut to the Range the
 * video element asks for (a Cache Storage entry is always whole).
 */
async function media(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (error) {
    const stored = await caches.match(request.url, {
      cacheName: downloadCache(base),
      ignoreVary: true,
    });
    if (!stored) throw error;
    return request.headers.has('range') ? createPartialResponse(request, stored) : stored;
  }
}

/**
 * The first visit's page came before this worker: keep the shell now, so that the next visit with
 * no signal still shows the site. From the HTTP cache (the page's own copy, seconds old), not the
 * link again; once a page is kept, each online navigation keeps the newer one (navigate()).
 */
async function keepFirstPage() {
  if (await caches.match(pageUrl, { cacheName: pagesCache(base) })) return;
  await keepPage(await fetch(pageUrl, { credentials: 'same-origin', cache: 'force-cache' }));
}

self.addEventListener('install', (event) => {
  // A failure must not stop the install.
  event.waitUntil(
    keepFirstPage()
      .catch(() => undefined)
      .then(() => self.skipWaiting()),
  );
});

// This page and the others open now are served from here at once, not from the next visit on.
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return;
  if (request.mode === 'navigate' && url.pathname.startsWith(scope.pathname))
    event.respondWith(navigate(event));
  else if (MEDIA_PATH.test(url.pathname) || isStoredCode(url)) {
    if (downloaded !== false) event.respondWith(media(request));
    event.waitUntil(lookForDownload());
  }
});
