/** The one browser driver: chrome-launcher and chrome-remote-interface (docs/benchmarks.md). */
import CDP from 'chrome-remote-interface';
import * as chromeLauncher from 'chrome-launcher';
import { SESSION_KEY, VIDEO_KEY_KEY, newSession } from '../../machines/session';
import { CHROMIUM_ARGS, findChromium } from '../test-support/find-chromium.mjs';
import { signedIn } from '../test-support/test-server';
import { atEnd, poll, sleep, type Site } from './measure';

/** A link as DevTools emulates it: latency added to each request (ms), throughput (bytes/s). */
export const link = (latency: number, downBits: number, upBits: number, share = 1) => ({
  offline: false,
  latency,
  downloadThroughput: (downBits / 8) * share,
  uploadThroughput: (upBits / 8) * share,
});
export type Link = ReturnType<typeof link>;
/** DevTools' presets "Fast 3G" and "Slow 3G": its figures, RTT scaled and throughput shared. */
export const FAST_3G = link(150 * 3.75, 1.6e6, 750e3, 0.9);
export const SLOW_3G = link(400 * 5, 500e3, 500e3, 0.8);
/** No network at all (navigator.onLine false too). */
export const OFFLINE: Link = { ...link(0, -8, -8), offline: true };
const CPU_SLOWDOWN = 4;

/** The two sizes of the project's browser tests (playwright.config.ts), and their names. */
export const PHONE = { width: 390, height: 844, deviceScaleFactor: 3, mobile: true };
export const DESKTOP = { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false };
export const sizeOf = ({ width, height }: Viewport) => `${width}×${height}`;
export type Viewport = typeof PHONE;

export const describeConditions = () => ({
  browser: `chrome-remote-interface on chrome-launcher (scripts/bench/browser.ts), a fresh context per run, es-AR`,
  cpu: `${CPU_SLOWDOWN}× slowdown (Emulation.setCPUThrottlingRate)`,
  network:
    `DevTools Fast 3G (Network.emulateNetworkConditions): ${FAST_3G.latency} ms latency, ` +
    `${(FAST_3G.downloadThroughput * 8) / 1e6} Mbit/s down, ${(FAST_3G.uploadThroughput * 8) / 1e3} kbit/s up, cache disabled`,
  viewport: `${sizeOf(PHONE)} @${PHONE.deviceScaleFactor}x, mobile, touch; layout shift also at ${sizeOf(DESKTOP)}`,
});

export function chromiumPath(): string {
  const path = findChromium();
  if (!path) throw new Error('no Chromium found (set CHROMIUM_PATH or install chromium)');
  return path;
}

/** Chromium with the project's flags, killed as the measurement behind `signal` ends. */
export async function launchChrome(signal: AbortSignal, headless: string, onlyOurs = false) {
  const chrome = await chromeLauncher.launch({
    ...{ chromePath: chromiumPath(), chromeFlags: [...CHROMIUM_ARGS, headless] },
    ...{ ignoreDefaultFlags: onlyOurs, logLevel: 'silent' as const },
  });
  atEnd(signal, async () => chrome.kill());
  return chrome;
}

/** `fn(arg)` as page source; tsx's keepNames wraps inner functions in a `__name` the page lacks. */
const pageSource = <A>(fn: (arg: A) => unknown, arg?: A) =>
  `(() => { globalThis.__name ??= (f) => f; return (${fn.toString()})(${JSON.stringify(arg) ?? ''}); })()`;

/** contextId: an earlier tab's (cache, cookies, storage, worker); workers: on this tab's link. */
type TabOptions = Partial<{ link: Link; slowCpu: boolean; cache: boolean } & Context>;
type Context = { contextId: string; workers: boolean };
export type Browser = Awaited<ReturnType<typeof launchBrowser>>;
export type Tab = Awaited<ReturnType<Browser['tab']>>;

/** Chromium, closed when the measurement behind `signal` ends (atEnd in measure.ts). */
export async function launchBrowser(signal: AbortSignal) {
  // Only our flags: chrome-launcher's defaults (timer throttling and the like) change timings.
  const { port } = await launchChrome(signal, '--headless', true);
  const browser = await CDP({ target: (await CDP.Version({ port })).webSocketDebuggerUrl });
  atEnd(signal, () => browser.close());

  // A service worker's fetches run in its own target, which a page's conditions do not throttle
  // (puppeteer#4305): once asked, every worker, now and to come, gets `workerLink` before it runs.
  const workers = new Map<string, Promise<unknown>>();
  let workerLink: Link | null = null;
  const throttle = (id: string) =>
    browser.send('Network.emulateNetworkConditions', workerLink!, id).catch(() => undefined);
  type Session = { sessionId: string };
  browser.on('Target.attachedToTarget', ({ sessionId: id }: Session) => {
    const ready = browser.send('Network.enable', {}, id).then(() => throttle(id));
    const run = () => browser.send('Runtime.runIfWaitingForDebugger', undefined, id);
    workers.set(id, ready.finally(run).catch(() => undefined) as Promise<unknown>);
  });
  browser.on('Target.detachedFromTarget', (e: Session) => workers.delete(e.sessionId));
  /** Every service worker on `to`, from now on; null: none throttled (all detached), as before. */
  async function throttleWorkers(to: Link | null) {
    const [first, on] = [!workerLink, !!to];
    workerLink = to;
    const attach = { autoAttach: on, waitForDebuggerOnStart: on, flatten: true };
    const filter = [{ type: 'service_worker', exclude: false }]; // none when turning it off
    if (first || !on) await browser.Target.setAutoAttach(on ? { ...attach, filter } : attach);
    // A worker of an earlier, closed context can stay listed and never answer: bounded.
    const bounded = (work: Promise<unknown>) => Promise.race([work, sleep(5_000)]);
    if (to)
      await Promise.all([...workers].map(([id, ready]) => bounded(ready.then(() => throttle(id)))));
  }

  /** A tab on Fast 3G with a 4× slower CPU and no HTTP cache, in a new context, unless told. */
  async function tab(viewport: Viewport, options: TabOptions = {}) {
    const { link = FAST_3G, slowCpu = true, cache = false, workers: follow = false } = options;
    const browserContextId =
      options.contextId ?? (await browser.Target.createBrowserContext({})).browserContextId;
    const blank = { url: 'about:blank', browserContextId };
    const { targetId } = await browser.Target.createTarget(blank);
    const page = await CDP({ target: `ws://127.0.0.1:${port}/devtools/page/${targetId}` });
    const setLink = async (to: Link) => {
      await page.Network.emulateNetworkConditions(to);
      if (follow) await throttleWorkers(to);
    };
    await Promise.all([page.Page.enable(), page.Network.enable({})]);
    await page.Network.setCacheDisabled({ cacheDisabled: !cache });
    await setLink(link);
    if (slowCpu) await page.Emulation.setCPUThrottlingRate({ rate: CPU_SLOWDOWN });
    await page.Emulation.setDeviceMetricsOverride(viewport);
    await page.Emulation.setTouchEmulationEnabled({ enabled: viewport.mobile });
    await page.Emulation.setLocaleOverride({ locale: 'es-AR' });

    /** `fn(arg)` in the page, awaited if it returns a promise; the result must be JSON. */
    const evaluate = async <T, A>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> => {
      const { result, exceptionDetails } = await page.Runtime.evaluate({
        ...{ expression: pageSource(fn, arg), awaitPromise: true, returnByValue: true },
      });
      if (exceptionDetails) throw new Error(`evaluate: ${JSON.stringify(exceptionDetails)}`);
      return result.value as T;
    };
    const requests = trackRequests(page, evaluate);
    return {
      ...{ cdp: page, contextId: browserContextId, setLink, evaluate, requests },
      beforeScripts: <A>(fn: (arg: A) => void, arg?: A) =>
        page.Page.addScriptToEvaluateOnNewDocument({ source: pageSource(fn, arg) }),
      /** Navigates; resolves at the load event, or at commit if `untilLoad` is false. */
      async navigate(url: string, untilLoad = true) {
        const loaded = page.Page.loadEventFired();
        const { errorText } = await page.Page.navigate({ url });
        if (errorText) throw new Error(`${url}: ${errorText}`);
        if (untilLoad) await loaded;
      },
      /** True once `fn` is, false if `timeoutMs` passes first. */
      waitFor: (fn: () => boolean, timeoutMs: number) => poll(() => evaluate(fn), timeoutMs),
      /** Resolves once no request (but media) has been in flight for `ms`, or after `atMostMs`. */
      quiet: (ms: number, atMostMs: number) => poll(() => requests.quietFor() >= ms, atMostMs, 50),
      async close() {
        if (follow) await throttleWorkers(null);
        await page.close();
        await browser.Target.closeTarget({ targetId });
        if (!options.contextId) await browser.Target.disposeBrowserContext({ browserContextId });
      },
    };
  }
  return { tab };
}

/** start: from Content-Range (a Range answer); wire: the bytes on it, once finished. */
type Data = { start: number | null; wire: number | null; chunks: Chunk[] };
type Chunk = [time: number, decoded: number, encoded: number]; // encoded: 0 for media data
type Tracked = Data & { type?: string; method: string; url: string; sentAt: number; done?: true };

/** A tab's requests from its start, the bytes sent up; clock(): protocol times as page times. */
function trackRequests({ Network }: CDP.Client, evaluate: (fn: () => number) => Promise<number>) {
  const requests = new Map<string, Tracked>();
  let [up, documentAt, lastChange] = [0, null as number | null, Date.now()];
  Network.requestWillBeSent(({ requestId, request, type, timestamp: sentAt }) => {
    const { method, url, postData } = request;
    const data: Data = { start: null, wire: null, chunks: [] };
    requests.set(requestId, { type, method, url, sentAt, ...data });
    if (type === 'Document') documentAt ??= sentAt;
    [up, lastChange] = [up + (postData?.length ?? 0), Date.now()];
  });
  Network.requestWillBeSentExtraInfo(({ headers }) => {
    for (const [key, value] of Object.entries(headers)) up += key.length + String(value).length + 4;
    up += 40;
  });
  Network.responseReceived(({ requestId, response: { headers } }) => {
    const request = requests.get(requestId);
    const range = Object.entries(headers).find(([key]) => key.toLowerCase() === 'content-range');
    const start = /bytes (\d+)-/.exec(String(range?.[1]))?.[1];
    if (request && start) request.start = Number(start);
  });
  Network.dataReceived(({ requestId, timestamp, dataLength, encodedDataLength }) =>
    requests.get(requestId)?.chunks.push([timestamp, dataLength, encodedDataLength]),
  );
  // A paused video keeps its request open: media is never in flight, for quietFor().
  const ended = ({ requestId }: { requestId: string }, wire: number | null = null) => {
    const request = requests.get(requestId);
    if (request) Object.assign(request, { wire, done: true });
    if (request && request.type !== 'Media') lastChange = Date.now();
  };
  Network.loadingFinished((event) => ended(event, event.encodedDataLength));
  Network.loadingFailed((event) => ended(event));
  const all = () => [...requests.values()];
  // The document request's time is the navigation entry's fetchStart on the page's clock.
  const clock = async () => {
    const fetchStart = await evaluate(
      () => performance.getEntriesByType('navigation')[0]!.fetchStart,
    );
    return (timestamp: number) => (timestamp - (documentAt ?? timestamp)) * 1000 + fetchStart;
  };
  /** Ms since a request (but media) started or ended, 0 while one is in flight. */
  const quietFor = () =>
    all().some((r) => !r.done && r.type !== 'Media') ? 0 : Date.now() - lastChange;
  return { all, up: () => up, clock, quietFor };
}

export const videoScreen = ({ origin, base }: Site) => `${origin}${base}/VideoPlayer`;

/** A returning visitor (session cookie, stored session): `visitor(tab)` opens the video screen. */
export async function returningVisitor(site: Site) {
  const [{ cookie, empresa, nombres, videoKey }, url] = [await signedIn(site), videoScreen(site)];
  const session = newSession({ username: site.username, empresa, nombres }, Date.now());
  // With the publish's key, as the signin stores it: offline, a copy has only its rendition's.
  const stored: [string, string][] = [[SESSION_KEY, JSON.stringify(session)]];
  if (videoKey) stored.push([VIDEO_KEY_KEY, JSON.stringify(videoKey)]);
  const pairs = cookie.split('; ').map((pair) => pair.split(/=(.*)/s)); // name, value
  return async (tab: Tab, untilLoad = false) => {
    const cookies = pairs.map(([name = '', value = '']) => ({ url, name, value }));
    await tab.cdp.Network.setCookies({ cookies });
    await tab.beforeScripts((all) => all.forEach(([k, v]) => localStorage.setItem(k, v)), stored);
    await tab.navigate(url, untilLoad);
  };
}
export type Visitor = Awaited<ReturnType<typeof returningVisitor>>;
