/** Helpers for the offline specs: the service worker in control, and what Cache Storage holds. */
import { expect, type BrowserContext, type Page } from '@playwright/test';
import { BASE, E2E_PASSWORD } from './site';

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

/** The URLs of the stored download (empty when there is none). */
export const storedDownload = async (page: Page) =>
  Object.entries(await cachedUrls(page))
    .filter(([name]) => name.startsWith('offline-video:'))
    .flatMap(([, urls]) => urls);

/** Makes the stored download's record name another publish's rendition, as after a new publish. */
export const recordOfAnotherPublish = (page: Page) =>
  page.evaluate(async () => {
    for (const name of await caches.keys()) {
      if (!name.startsWith('offline-video:')) continue;
      const cache = await caches.open(name);
      for (const request of await cache.keys()) {
        if (!request.url.endsWith('/offline-download.json')) continue;
        const record = (await (await cache.match(request))!.json()) as { publish: string };
        record.publish = '/zzzzzzzz-360p';
        await cache.put(request, new Response(JSON.stringify(record)));
      }
    }
  });

/** Logs in on `origin`, downloads the default choice and waits until it is ready. */
export async function loginAndDownload(page: Page, origin: string) {
  await page.goto(`${origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await workerInControl(page);
  await page.getByRole('button', { name: /^Descargar para ver sin conexión/ }).click();
  await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
}
