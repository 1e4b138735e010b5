/**
 * The bench's one browser driver: Debian's Chromium started by chrome-launcher and driven over
 * the DevTools protocol with chrome-remote-interface, throttled exactly as DevTools' own
 * presets do it.
 *
 * Why not Playwright, which the browser tests use: it creates its utility world and runs its
 * init scripts in every document it commits, on the renderer's main thread, at the very moment
 * a page that paints 0.2 s after its HTML is busy with its first frame; under 4× CPU that alone
 * cost the login and the bare page about 30 ms of First Contentful Paint in our runs. A bare
 * protocol client runs nothing in the page that the bench does not ask for.
 */
import CDP from 'chrome-remote-interface';
import * as chromeLauncher from 'chrome-launcher';
import { CHROMIUM_ARGS, findChromium } from '../test-support/find-chromium.mjs';

/** DevTools' "Fast 3G" preset: 1.6 Mbit/s and 750 kbit/s at 90 %, 150 ms RTT × 3.75. */
export const FAST_3G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
} as const;

/** DevTools' "Slow 3G" preset: 500 kbit/s at 80 %, 400 ms RTT × 5. */
export const SLOW_3G = {
  offline: false,
  latency: 400 * 5,
  downloadThroughput: ((500 * 1000) / 8) * 0.8,
  uploadThroughput: ((500 * 1000) / 8) * 0.8,
} as const;

/** A link as DevTools emulates it: round-trip latency in ms, throughput in bytes per second. */
export interface Link {
  offline: boolean;
  latency: number;
  downloadThroughput: number;
  uploadThroughput: number;
}

const CPU_SLOWDOWN = 4;

export interface Viewport {
  name: string;
  width: number;
  height: number;
  deviceScaleFactor: number;
  mobile: boolean;
}

/** The two sizes of the project's browser tests (playwright.config.ts). */
export const PHONE: Viewport = {
  name: '390×844',
  width: 390,
  height: 844,
  deviceScaleFactor: 3,
  mobile: true,
};
export const DESKTOP: Viewport = {
  name: '1280×800',
  width: 1280,
  height: 800,
  deviceScaleFactor: 1,
  mobile: false,
};

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

type Params = Record<string, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A function and its argument as page source. tsx compiles with esbuild's keepNames, which wraps
 * inner functions in `__name(fn, "name")`; those calls travel with the function, so the page
 * needs a `__name` of its own.
 */
const pageSource = <A>(fn: (arg: A) => unknown, arg?: A) =>
  `(() => { globalThis.__name ??= (f) => f; return (${fn.toString()})(${JSON.stringify(arg) ?? ''}); })()`;

export type Browser = Awaited<ReturnType<typeof launchBrowser>>;
export type Tab = Awaited<ReturnType<Browser['tab']>>;

/** Chromium, closed when `signal` aborts (a measurement's timeout). */
export async function launchBrowser(signal: AbortSignal) {
  // Only our flags, as when the bench started Chromium itself: chrome-launcher's defaults
  // (timer throttling and the like) would change what is measured.
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath(),
    chromeFlags: [...CHROMIUM_ARGS, '--headless'],
    ignoreDefaultFlags: true,
    logLevel: 'silent',
  });
  const { port } = chrome;
  const { webSocketDebuggerUrl } = (await CDP.Version({ port })) as {
    webSocketDebuggerUrl: string;
  };
  const browser = await CDP({ target: webSocketDebuggerUrl });

  /** Ends Chromium and removes its profile (chrome-launcher's); safe to call twice. */
  const close = async () => {
    await browser.close().catch(() => undefined);
    chrome.kill();
  };
  signal.addEventListener('abort', () => void close(), { once: true });

  /**
   * A fresh incognito-like context and tab, emulating `viewport` on the throttled link (Fast 3G
   * and a 4× slower CPU unless told otherwise).
   */
  async function tab(viewport: Viewport, { link = FAST_3G as Link, slowCpu = true } = {}) {
    const { browserContextId } = await browser.Target.createBrowserContext({});
    const { targetId } = await browser.Target.createTarget({
      url: 'about:blank',
      browserContextId,
    });
    const page = await CDP({ target: `ws://127.0.0.1:${port}/devtools/page/${targetId}` });
    await page.Page.enable();
    await page.Network.enable({});
    await page.Network.setCacheDisabled({ cacheDisabled: true });
    await page.Network.emulateNetworkConditions({ ...link });
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
      /** Calls `listener` with every event `method` of this tab (e.g. Network.dataReceived). */
      on: (method: string, listener: (params: Params) => void) =>
        void page.on(method, (params: object) => listener(params as Params)),
      /** Changes the link from now on (a link that drops while the video plays). */
      throttle: (next: Link) => page.Network.emulateNetworkConditions({ ...next }),
      /** Runs `fn(arg)` in every document of this tab before its own scripts. */
      async beforeScripts<A>(fn: (arg: A) => void, arg?: A) {
        await page.Page.addScriptToEvaluateOnNewDocument({ source: pageSource(fn, arg) });
      },
      /** `name=value; …` pairs, as a Cookie header holds them, for `url`'s site. */
      async setCookies(url: string, cookies: string) {
        for (const pair of cookies.split('; ')) {
          const [name = '', ...value] = pair.split('=');
          await page.Network.setCookie({ url, name, value: value.join('=') });
        }
      },
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
        const giveUpAt = Date.now() + timeoutMs;
        while (Date.now() < giveUpAt) {
          if (await evaluate(fn)) return true;
          await sleep(100);
        }
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
        await browser.Target.disposeBrowserContext({ browserContextId });
      },
    };
  }

  return { tab, close };
}
