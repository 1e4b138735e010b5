/**
 * The one browser driver: Chromium by chrome-launcher, driven by chrome-remote-interface, throttled
 * as DevTools' presets do it (not Playwright: its init scripts cost the login 30 ms of FCP).
 */
import CDP from 'chrome-remote-interface';
import * as chromeLauncher from 'chrome-launcher';
import { SESSION_KEY, newSession } from '../../machines/session';
import { CHROMIUM_ARGS, findChromium } from '../test-support/find-chromium.mjs';
import { signedIn } from '../test-support/test-server';
import type { Site } from './measure';

/** A link as DevTools emulates it: latency added to each request (ms), throughput (bytes/s). */
export const link = (latency: number, downBits: number, upBits: number, share = 1) => ({
  offline: false,
  latency,
  downloadThroughput: (downBits / 8) * share,
  uploadThroughput: (upBits / 8) * share,
});
export type Link = ReturnType<typeof link>;
/** DevTools' presets: "Fast 3G", 1.6 Mbit/s and 750 kbit/s at 90 %, 150 ms RTT × 3.75… */
export const FAST_3G = link(150 * 3.75, 1.6 * 1000 * 1000, 750 * 1000, 0.9);
/** …and "Slow 3G", 500 kbit/s at 80 %, 400 ms RTT × 5. */
export const SLOW_3G = link(400 * 5, 500 * 1000, 500 * 1000, 0.8);

const CPU_SLOWDOWN = 4;

/** The two sizes of the project's browser tests (playwright.config.ts). */
const viewport = (width: number, height: number, deviceScaleFactor: number, mobile: boolean) => {
  return { name: `${width}×${height}`, width, height, deviceScaleFactor, mobile };
};
export const PHONE = viewport(390, 844, 3, true);
export const DESKTOP = viewport(1280, 800, 1, false);
export type Viewport = typeof PHONE;

export const describeConditions = () => ({
  browser: `chrome-remote-interface on chrome-launcher (scripts/bench/browser.ts), a fresh context per run, es-AR`,
  cpu: `${CPU_SLOWDOWN}× slowdown (Emulation.setCPUThrottlingRate)`,
  network:
    `DevTools Fast 3G (Network.emulateNetworkConditions): ${FAST_3G.latency} ms latency, ` +
    `${(FAST_3G.downloadThroughput * 8) / 1e6} Mbit/s down, ${(FAST_3G.uploadThroughput * 8) / 1e3} kbit/s up, cache disabled`,
  viewport: `${PHONE.name} @${PHONE.deviceScaleFactor}x, mobile, touch; layout shift also at ${DESKTOP.name}`,
});

export function chromiumPath(): string {
  const path = findChromium();
  if (!path) throw new Error('no Chromium found (set CHROMIUM_PATH or install chromium)');
  return path;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A function and its argument as page source. tsx compiles with esbuild's keepNames, which wraps
 * inner functions in `__name(fn, "name")`; the page needs a `__name` of its own.
 */
const pageSource = <A>(fn: (arg: A) => unknown, arg?: A) =>
  `(() => { globalThis.__name ??= (f) => f; return (${fn.toString()})(${JSON.stringify(arg) ?? ''}); })()`;

export type Browser = Awaited<ReturnType<typeof launchBrowser>>;
export type Tab = Awaited<ReturnType<Browser['tab']>>;

/**
 * `cache`: the HTTP cache on (off unless told), for a visitor who has been here before;
 * `contextId`: an earlier tab's browser context (its cache, cookies, storage), else a new one.
 */
type TabOptions = { link?: Link; slowCpu?: boolean; cache?: boolean; contextId?: string };

/** Chromium, closed when `signal` aborts (a measurement's timeout). */
export async function launchBrowser(signal: AbortSignal) {
  // Only our flags: chrome-launcher's defaults (timer throttling and the like) change timings.
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath(),
    chromeFlags: [...CHROMIUM_ARGS, '--headless'],
    ignoreDefaultFlags: true,
    logLevel: 'silent',
  });
  const { port } = chrome;
  const browser = await CDP({ target: (await CDP.Version({ port })).webSocketDebuggerUrl });
  const close = async () => {
    await browser.close().catch(() => undefined);
    chrome.kill();
  };
  signal.addEventListener('abort', () => void close(), { once: true });

  /** A tab emulating `viewport` on the throttled link (Fast 3G and a 4× slower CPU by default). */
  async function tab(viewport: Viewport, options: TabOptions = {}) {
    const { link = FAST_3G, slowCpu = true, cache = false } = options;
    const contextId =
      options.contextId ?? (await browser.Target.createBrowserContext({})).browserContextId;
    const { targetId } = await browser.Target.createTarget({
      url: 'about:blank',
      browserContextId: contextId,
    });
    const page = await CDP({ target: `ws://127.0.0.1:${port}/devtools/page/${targetId}` });
    await page.Page.enable();
    await page.Network.enable({});
    await page.Network.setCacheDisabled({ cacheDisabled: !cache });
    await page.Network.emulateNetworkConditions(link);
    if (slowCpu) await page.Emulation.setCPUThrottlingRate({ rate: CPU_SLOWDOWN });
    const { width, height, deviceScaleFactor, mobile } = viewport;
    await page.Emulation.setDeviceMetricsOverride({ width, height, deviceScaleFactor, mobile });
    await page.Emulation.setTouchEmulationEnabled({ enabled: mobile });
    await page.Emulation.setLocaleOverride({ locale: 'es-AR' });

    // Requests in flight, but for media: a paused video keeps its request open.
    const inFlight = new Set<string>();
    let lastChange = Date.now();
    page.Network.requestWillBeSent(({ type, requestId }) => {
      if (type !== 'Media') inFlight.add(requestId);
      lastChange = Date.now();
    });
    const ended = ({ requestId }: { requestId: string }) => {
      if (inFlight.delete(requestId)) lastChange = Date.now();
    };
    page.Network.loadingFinished(ended);
    page.Network.loadingFailed(ended);

    const evaluate = async <T, A>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> => {
      const { result, exceptionDetails } = await page.Runtime.evaluate({
        expression: pageSource(fn, arg),
        awaitPromise: true,
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(`evaluate: ${JSON.stringify(exceptionDetails)}`);
      return result.value as T;
    };
    return {
      /** The tab's own protocol client, for its events and what the bench does not wrap. */
      cdp: page,
      contextId,
      /** Runs `fn(arg)` in every document of this tab before its own scripts. */
      beforeScripts: <A>(fn: (arg: A) => void, arg?: A) =>
        page.Page.addScriptToEvaluateOnNewDocument({ source: pageSource(fn, arg) }),
      /** Navigates; resolves at the load event, or at commit if `untilLoad` is false. */
      async navigate(url: string, untilLoad = true) {
        const loaded = page.Page.loadEventFired();
        const { errorText } = await page.Page.navigate({ url });
        if (errorText) throw new Error(`${url}: ${errorText}`);
        if (untilLoad) await loaded;
      },
      /** `fn(arg)` in the page, awaited if it returns a promise; the result must be JSON. */
      evaluate,
      /** Polls `fn` every 100 ms until it returns true (true) or `timeoutMs` passes (false). */
      async waitFor(fn: () => boolean, timeoutMs: number) {
        for (const giveUpAt = Date.now() + timeoutMs; Date.now() < giveUpAt; await sleep(100))
          if (await evaluate(fn)) return true;
        return false;
      },
      /** Resolves once no request (but media) has been in flight for `ms`, or after `atMostMs`. */
      async quiet(ms: number, atMostMs: number) {
        const giveUpAt = Date.now() + atMostMs;
        while ((inFlight.size || Date.now() - lastChange < ms) && Date.now() < giveUpAt)
          await sleep(50);
      },
      async close() {
        await page.close();
        await browser.Target.closeTarget({ targetId });
        if (!options.contextId)
          await browser.Target.disposeBrowserContext({ browserContextId: contextId });
      },
    };
  }

  return { tab, close };
}

/**
 * Every request `tab` makes from now on: its type, method and URL, when it was sent, where in its
 * file the answer starts and the file's size (Content-Range), its chunks as they came ([time,
 * decoded bytes, encoded bytes], the encoded count is 0 for media data) and its bytes on the wire
 * once finished; and the bytes sent up (headers and bodies). Times are the protocol's; `clock()`
 * puts them on the page's (ms since navigation start, which is the document request's time
 * less the navigation entry's fetchStart).
 */
export function trackRequests(tab: Tab) {
  const requests = new Map<string, Tracked>();
  const { Network } = tab.cdp;
  let [up, documentAt] = [0, null as number | null];
  Network.requestWillBeSent(({ requestId, request, type, timestamp: sentAt }) => {
    const { method, url } = request;
    requests.set(requestId, {
      type,
      method,
      url,
      sentAt,
      start: 0,
      size: null,
      chunks: [],
      wire: null,
    });
    if (type === 'Document') documentAt ??= sentAt;
    up += request.postData?.length ?? 0;
  });
  Network.requestWillBeSentExtraInfo(({ headers }) => {
    up +=
      40 +
      Object.entries(headers).reduce((sum, [k, v]) => sum + k.length + String(v).length + 4, 0);
  });
  Network.responseReceived(({ requestId, response: { status, headers } }) => {
    const request = requests.get(requestId);
    const header = (name: string) =>
      String(Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? '');
    const range = /bytes (\d+)-\d+\/(\d+)/.exec(header('content-range'));
    if (!request) return;
    if (range) [request.start, request.size] = [Number(range[1]), Number(range[2])];
    else if (status === 200 && Number(header('content-length')) > 0)
      request.size = Number(header('content-length'));
  });
  Network.dataReceived(({ requestId, timestamp, dataLength, encodedDataLength }) =>
    requests.get(requestId)?.chunks.push([timestamp, dataLength, encodedDataLength]),
  );
  Network.loadingFinished(({ requestId, encodedDataLength }) => {
    const request = requests.get(requestId);
    if (request) request.wire = encodedDataLength;
  });
  const clock = async () => {
    const fetchStart = await tab.evaluate(
      () =>
        (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).fetchStart,
    );
    return (timestamp: number) => (timestamp - (documentAt ?? timestamp)) * 1000 + fetchStart;
  };
  return { all: () => [...requests.values()], up: () => up, clock };
}
interface Tracked {
  type?: string;
  method: string;
  url: string;
  sentAt: number;
  start: number;
  size: number | null;
  chunks: [number, number, number][];
  wire: number | null;
}

/**
 * A returning visitor: the server's session cookie and the session the app stored at login,
 * given to a tab before it opens `url`.
 */
export async function returningVisitor(site: Site) {
  const { cookie, empresa, nombres } = await signedIn(site);
  const session = newSession({ username: site.username, empresa, nombres }, Date.now());
  const stored = [SESSION_KEY, JSON.stringify(session)] as const;
  return async (tab: Tab, url: string) => {
    const cookies = cookie.split('; ').map((pair) => {
      const [name = '', ...value] = pair.split('=');
      return { url, name, value: value.join('=') };
    });
    await tab.cdp.Network.setCookies({ cookies });
    await tab.beforeScripts(([key, value]) => localStorage.setItem(key, value), stored);
  };
}
export type Visitor = Awaited<ReturnType<typeof returningVisitor>>;
