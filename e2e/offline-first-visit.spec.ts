/**
 * What the service worker costs a first visit, counted where the bytes cross the link: a proxy in
 * front of the real built server, with the server's own caching, so the browser's HTTP cache
 * works as a visitor's does. Nothing is fetched twice (the page's requests and the worker's
 * together), and the login alone pays nothing for the worker.
 */
import type { Page } from '@playwright/test';
import { startHoldProxy, type HoldProxy } from './engines/hold-proxy';
import { expect, test } from './fixtures';
import { playTo, reloadFromDevice, workerInControl } from './offline';
import { BASE, E2E_PASSWORD, url } from './site';

const SITES = [
  { name: 'the single-MP4 site', origin: () => url('') },
  { name: 'a MEDIA_DIR site', origin: () => process.env.E2E_ADAPTIVE_ORIGIN! },
];

const video = (page: Page) => page.locator('video.player__video');
const twice = (proxy: HoldProxy) =>
  proxy.answered
    .map(({ request }) => request)
    .filter((request, index, all) => all.indexOf(request) !== index);
const kib = (proxy: HoldProxy) =>
  (proxy.answered.reduce((sum, { bytes }) => sum + bytes, 0) / 1024).toFixed(1);

for (const site of SITES)
  test.describe(site.name, () => {
    let proxy: HoldProxy;
    test.beforeEach(async () => {
      proxy = await startHoldProxy(site.origin(), { keepCaching: true });
    });
    test.afterEach(() => proxy.close());

    test('a first visit fetches nothing twice, the worker included; its download then plays with the network off', async ({
      page,
      context,
      consoleWatch,
    }, testInfo) => {
      await page.goto(`${proxy.origin}${BASE}/login`);
      await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      await expect
        .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.readyState), {
          timeout: 20_000,
        })
        .toBeGreaterThanOrEqual(2); // HAVE_CURRENT_DATA: the first frame
      // In control means installed (its precache stored) and activated.
      await workerInControl(page);
      expect(twice(proxy)).toEqual([]);
      // The figure for docs/offline.md: what crossed the link, the worker included.
      testInfo.annotations.push({
        type: 'first visit',
        description: `${proxy.answered.length} requests, ${kib(proxy)} KiB: ${proxy.answered.map((a) => `${a.request} ${a.bytes}`).join('; ')}`,
      });

      await page.getByRole('button', { name: /^Descargar para ver sin conexión/ }).click();
      await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
      // The download asks again for what the page has (the playlists, captions, chapters and
      // poster are revalidated: `no-cache`), but no bytes come twice: a 304 has no body.
      expect(
        proxy.answered.filter(
          ({ request, bytes }, index) =>
            bytes > 0 && proxy.answered.findIndex((first) => first.request === request) < index,
        ),
      ).toEqual([]);

      consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
      await reloadFromDevice(page, context);
      await expect(
        page.getByText('Sin conexión: se reproduce la copia guardada en este teléfono.'),
      ).toBeVisible({ timeout: 20_000 });
      await playTo(page, 1);
    });

    test('a visitor who stays on the login pays nothing for the worker', async ({ page }) => {
      await page.goto(`${proxy.origin}${BASE}/login`);
      await expect(page.getByRole('button', { name: 'Ingresar' })).toBeEnabled();
      // Two idle periods after the load (the latest the app would register the worker at).
      await page.evaluate(async () => {
        if (document.readyState !== 'complete')
          await new Promise((resolve) => addEventListener('load', resolve, { once: true }));
        for (let i = 0; i < 2; i++)
          await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 6000 }));
      });
      expect(
        await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length),
      ).toBe(0);
      expect(proxy.seen.filter((path) => /video-player-screen|banner|sw\.js/.test(path))).toEqual(
        [],
      );
    });
  });
