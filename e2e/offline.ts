/** Helpers for the offline specs: the service worker in control, and what Cache Storage holds. */
import { expect, type Page } from '@playwright/test';

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
