/** Helpers for the offline specs: the service worker in control, and what Cache Storage holds. */
import { expect, type BrowserContext, type Page } from '@playwright/test';

const video = (page: Page) => page.locator('video.player__video');

/** Plays the video (muted) and waits until it is past `seconds`. */
export async function playTo(page: Page, seconds: number) {
  await video(page).evaluate((element: HTMLVideoElement) => {
    element.muted = true;
    return element.play();
  });
  await expect
    .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.currentTime), {
      timeout: 20_000,
    })
    .toBeGreaterThan(seconds);
}

/**
 * A reload with no network and the HTTP cache emptied (as a phone may have done by then): only
 * what the worker and the download stored can answer.
 */
export async function reloadFromDevice(page: Page, context: BrowserContext) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  // Detached: a session of its own left open undoes Playwright's offline emulation.
  await cdp.detach();
  await context.setOffline(true);
  await page.reload();
}

/** Waits until the page is controlled by the site's service worker (registered when idle). */
export async function workerInControl(page: Page) {
  await expect
    .poll(() => page.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 20_000 })
    .toBe(true);
}

/** Every URL kept in Cache Storage, by cache name. */
export function cachedUrls(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const all: Record<string, string[]> = {};
    for (const name of await caches.keys())
      all[name] = (await (await caches.open(name)).keys()).map((request) => request.url);
    return all;
  });
}

/** The greeting's logout, as a visitor does it: hover (or a first tap), then "Cerrar sesion". */
export async function logout(page: Page) {
  await page.getByRole('button', { name: /^Hola / }).hover();
  await page.getByRole('button', { name: 'Cerrar sesion' }).click();
}
