/**
 * The bench's one browser driver: Debian's Chromium on a bare DevTools connection
 * (--remote-debugging-pipe), throttled exactly as DevTools' own presets do it.
 *
 * Why not Playwright, which the browser tests use: it creates its utility world and runs its
 * init scripts in every document it commits, on the renderer's main thread, at the very moment
 * a page that paints 0.2 s after its HTML is busy with its first frame; under 4× CPU that alone
 * cost the login and the bare page about 30 ms of First Contentful Paint in our runs. What we
 * give up: auto-waiting, locators and typed evaluate. The bench needs none of them (it navigates,
 * polls one condition and reads the page's own buffers), and this file is the price: about a
 * hundred lines of protocol plumbing, where a Chromium update could, rarely, rename a method.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CHROMIUM_ARGS, findChromium } from '../find-chromium.mjs';

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
  browser: `bare DevTools pipe (scripts/bench/browser.ts), a fresh context per run, es-AR`,
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

interface Message {
  id?: number;
  method?: string;
  params?: Params;
  result?: Params;
  error?: { message: string };
  sessionId?: string;
}

/**
 * A function and its argument as page source. tsx compiles with esbuild's keepNames, which wraps
 * inner functions in `__name(fn, "name")`; those calls travel with the function, so the page
 * needs a `__name` of its own.
 */
const pageSource = <A>(fn: (arg: A) => unknown, arg?: A) =>
  `(() => { globalThis.__name ??= (f) => f; return (${fn.toString()})(${JSON.stringify(arg) ?? ''}); })()`;

export type Browser = ReturnType<typeof launchBrowser>;
export type Tab = Awaited<ReturnType<Browser['tab']>>;

/** Chromium, closed when `signal` aborts (a measurement's timeout). */
export function launchBrowser(signal: AbortSignal) {
  const profile = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const chromium = spawn(
    chromiumPath(),
    [...CHROMIUM_ARGS, '--headless', '--remote-debugging-pipe', `--user-data-dir=${profile}`],
    // fd 3: what Chromium reads; fd 4: what it writes. Messages end with a NUL byte.
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toChromium = chromium.stdio[3] as Writable;
  const fromChromium = chromium.stdio[4] as Readable;
  let nextId = 0;
  const replies = new Map<number, { resolve(r: Params): void; reject(e: Error): void }>();
  const listeners = new Map<string, ((params: Params) => void)[]>();
  let closed: Error | null = null;

  const failAll = (error: Error) => {
    closed ??= error;
    for (const reply of replies.values()) reply.reject(error);
    replies.clear();
  };
  chromium.on('exit', () => failAll(new Error('Chromium exited')));
  chromium.on('error', failAll);

  let pending = '';
  fromChromium.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let end: number;
    while ((end = pending.indexOf('\0')) >= 0) {
      const message = JSON.parse(pending.slice(0, end)) as Message;
      pending = pending.slice(end + 1);
      const reply = message.id === undefined ? undefined : replies.get(message.id);
      if (reply) {
        replies.delete(message.id!);
        if (message.error) reply.reject(new Error(message.error.message));
        else reply.resolve(message.result ?? {});
      }
      for (const listener of listeners.get(`${message.sessionId}:${message.method}`) ?? [])
        listener(message.params ?? {});
    }
  });

  const send = <T = Params>(method: string, params: Params = {}, sessionId?: string) => {
    if (closed) return Promise.reject(closed);
    const id = (nextId += 1);
    return new Promise<T>((resolve, reject) => {
      replies.set(id, { resolve: resolve as (r: Params) => void, reject });
      toChromium.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  };
  const on = (sessionId: string, method: string, listener: (params: Params) => void) => {
    const key = `${sessionId}:${method}`;
    listeners.set(key, [...(listeners.get(key) ?? []), listener]);
  };

  /** Ends Chromium and removes its profile; safe to call twice. */
  const close = async () => {
    failAll(new Error('closed'));
    // The profile can only go once Chromium has stopped writing to it.
    if (chromium.exitCode === null && chromium.signalCode === null) {
      const exited = new Promise((resolve) => chromium.once('exit', resolve));
      chromium.kill();
      await exited;
    }
    // Its helper processes may still be closing files there: retry, and never fail a figure for it.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (error) {
      console.warn(`  could not remove ${profile}: ${(error as Error).message}`);
    }
  };
  signal.addEventListener('abort', () => void close(), { once: true });

  /**
   * A fresh incognito-like context and tab, emulating `viewport` on the throttled link (Fast 3G
   * and a 4× slower CPU unless told otherwise).
   */
  async function tab(viewport: Viewport, { link = FAST_3G as Link, slowCpu = true } = {}) {
    const { browserContextId } = await send<{ browserContextId: string }>(
      'Target.createBrowserContext',
    );
    const { targetId } = await send<{ targetId: string }>('Target.createTarget', {
      url: 'about:blank',
      browserContextId,
    });
    const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    const inTab = <T = Params>(method: string, params?: Params) =>
      send<T>(method, params, sessionId);
    await inTab('Page.enable');
    await inTab('Network.enable');
    await inTab('Network.setCacheDisabled', { cacheDisabled: true });
    await inTab('Network.emulateNetworkConditions', { ...link });
    if (slowCpu) await inTab('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    const { width, height, deviceScaleFactor, mobile } = viewport;
    await inTab('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor, mobile });
    await inTab('Emulation.setTouchEmulationEnabled', { enabled: mobile });
    await inTab('Emulation.setLocaleOverride', { locale: 'es-AR' });

    // Requests in flight, but for media: a paused video keeps its request open.
    const inFlight = new Set<string>();
    let lastChange = Date.now();
    on(sessionId, 'Network.requestWillBeSent', (params) => {
      if (params.type !== 'Media') inFlight.add(params.requestId as string);
      lastChange = Date.now();
    });
    for (const end of ['Network.loadingFinished', 'Network.loadingFailed'])
      on(sessionId, end, (params) => {
        if (inFlight.delete(params.requestId as string)) lastChange = Date.now();
      });

    const evaluate = async <T, A>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> => {
      const { result, exceptionDetails } = await inTab<{
        result: { value: T };
        exceptionDetails?: unknown;
      }>('Runtime.evaluate', {
        expression: pageSource(fn, arg),
        awaitPromise: true,
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(`evaluate: ${JSON.stringify(exceptionDetails)}`);
      return result.value;
    };
    return {
      /** Calls `listener` with every event `method` of this tab (e.g. Network.dataReceived). */
      on: (method: string, listener: (params: Params) => void) => on(sessionId, method, listener),
      /** Changes the link from now on (a link that drops while the video plays). */
      throttle: (next: Link) => inTab('Network.emulateNetworkConditions', { ...next }),
      /** Runs `fn(arg)` in every document of this tab before its own scripts. */
      async beforeScripts<A>(fn: (arg: A) => void, arg?: A) {
        await inTab('Page.addScriptToEvaluateOnNewDocument', { source: pageSource(fn, arg) });
      },
      /** `name=value; …` pairs, as a Cookie header holds them, for `url`'s site. */
      async setCookies(url: string, cookies: string) {
        for (const pair of cookies.split('; ')) {
          const [name, ...value] = pair.split('=');
          await inTab('Network.setCookie', { url, name, value: value.join('=') });
        }
      },
      /** Navigates; resolves at the load event, or at commit if `untilLoad` is false. */
      async navigate(url: string, untilLoad = true) {
        const loaded = new Promise<void>((resolve) =>
          on(sessionId, 'Page.loadEventFired', () => resolve()),
        );
        const { errorText } = await inTab<{ errorText?: string }>('Page.navigate', { url });
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
        listeners.forEach((_list, key) => key.startsWith(`${sessionId}:`) && listeners.delete(key));
        await send('Target.disposeBrowserContext', { browserContextId });
      },
    };
  }

  return { tab, close };
}
