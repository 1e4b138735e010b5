/**
 * The browser conditions of the issue: a phone on a slow link. Chromium through Playwright,
 * throttled through the DevTools protocol exactly as DevTools' own presets do it.
 */
import {
  chromium,
  type Browser,
  type BrowserContext,
  type CDPSession,
  type Page,
} from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../find-chromium.mjs';

/** DevTools' "Fast 3G" preset: 1.6 Mbit/s and 750 kbit/s at 90 %, 150 ms RTT × 3.75. */
export const FAST_3G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
} as const;

export const CPU_SLOWDOWN = 4;

/** The phone of the project's browser tests (playwright.config.ts). */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  locale: 'es-AR',
} as const;

export const describeConditions = () => ({
  cpu: `${CPU_SLOWDOWN}× slowdown (Emulation.setCPUThrottlingRate)`,
  network:
    `DevTools Fast 3G (Network.emulateNetworkConditions): ${FAST_3G.latency} ms latency, ` +
    `${(FAST_3G.downloadThroughput * 8) / 1e6} Mbit/s down, ${(FAST_3G.uploadThroughput * 8) / 1e3} kbit/s up, cache disabled`,
  viewport: `${PHONE.viewport.width}×${PHONE.viewport.height} @${PHONE.deviceScaleFactor}x, mobile, touch`,
});

export function chromiumPath(): string {
  const path = findChromium();
  if (!path) throw new Error('no Chromium found (set CHROMIUM_PATH or install chromium)');
  return path;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

/** Closes the browser when the measurement is aborted (timeout), so nothing is left running. */
export function closeOnAbort(browser: Browser, signal: AbortSignal): void {
  signal.addEventListener('abort', () => void browser.close().catch(() => undefined), {
    once: true,
  });
}

/**
 * tsx compiles with esbuild's keepNames, which wraps inner functions in `__name(fn, "name")`;
 * the functions handed to the page (init scripts, evaluate) carry those calls with them, so the
 * page needs a `__name` of its own.
 */
export const KEEP_NAMES_SHIM = 'globalThis.__name ??= (fn) => fn;';

/** A fresh phone context per run: no cache, cookies or storage carried from a previous run. */
export async function phoneContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext(PHONE);
  await context.addInitScript(KEEP_NAMES_SHIM);
  return context;
}

/** A page of `context`, throttled from its first request on. */
export async function throttledPage(
  context: BrowserContext,
): Promise<{ page: Page; cdp: CDPSession }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', { ...FAST_3G });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  return { page, cdp };
}
