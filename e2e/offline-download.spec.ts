/**
 * Download for later and offline playback, in Chromium against the real built servers: the
 * single-MP4 site and a MEDIA_DIR site (a 24 s clip, 360p/240p/144p). The visitor downloads from
 * the video screen, reloads with the network off, and watches the stored copy.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { cachedUrls, workerInControl } from './offline';
import { BASE, E2E_PASSWORD, url } from './site';

const adaptiveOrigin = () => process.env.E2E_ADAPTIVE_ORIGIN!;

const SITES = [
  { name: 'the single-MP4 site', origin: () => url(''), adaptive: false },
  { name: 'a MEDIA_DIR site', origin: adaptiveOrigin, adaptive: true },
];

const video = (page: Page) => page.locator('video.player__video');
const downloadButton = (page: Page) =>
  page.getByRole('button', { name: /^Descargar para ver sin conexión \(≈ \d+ MB\)$/ });

async function login(page: Page, origin: string) {
  await page.goto(`${origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page).toHaveURL(`${origin}${BASE}/VideoPlayer`);
}

async function playTo(page: Page, seconds: number) {
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

for (const site of SITES)
  test.describe(site.name, () => {
    test('downloads the video with its progress, then plays it with the network off: play, seek to the end, captions, chapters, transcript', async ({
      page,
      context,
      consoleWatch,
    }) => {
      await login(page, site.origin());
      await workerInControl(page);
      await expect(downloadButton(page)).toBeVisible({ timeout: 20_000 });
      if (site.adaptive) {
        // A phone-sized rendition is offered first; the others may be chosen.
        const select = page.getByLabel('Calidad de la descarga');
        await expect(select).toHaveValue('360');
        await select.selectOption('240');
      }
      await downloadButton(page).click();
      await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
      await expect(page.getByRole('button', { name: 'Borrar descarga' })).toBeVisible();
      const kept = Object.entries(await cachedUrls(page)).find(([name]) =>
        name.startsWith('offline-video:'),
      )?.[1];
      expect(kept?.some((u) => u.endsWith('/captions.vtt'))).toBe(true);
      expect(kept?.some((u) => u.endsWith('/poster.jpg'))).toBe(true);
      if (site.adaptive) {
        expect(kept?.filter((u) => /-240p\/seg\d+\.m4s$/.test(u))).toHaveLength(4);
        expect(kept?.some((u) => /-(360|144)p\//.test(u))).toBe(false);
      }

      await context.setOffline(true);
      consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
      await page.reload();
      await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
      await expect(
        page.getByText('Sin conexión: se reproduce la copia guardada en este teléfono.'),
      ).toBeVisible({ timeout: 20_000 });
      await playTo(page, 1);
      if (site.adaptive) {
        // hls.js plays what is stored, and the menu offers only that.
        await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 240p');
        await expect(page.getByLabel('Calidad').locator('option')).toHaveText([
          'Automática',
          /^240p/,
        ]);
      }
      // Seek near the end: it plays there and ends.
      await video(page).evaluate((element: HTMLVideoElement) => {
        element.currentTime = element.duration - 2;
      });
      await expect
        .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.ended), {
          timeout: 20_000,
        })
        .toBe(true);
      // Captions, chapters and transcript, from the stored files.
      await expect(page.getByRole('region', { name: 'Transcripción' })).toHaveAttribute(
        'data-state',
        /^(ready|missing)$/,
      );
      await expect(page.getByRole('region', { name: 'Capítulos' })).toHaveAttribute(
        'data-state',
        /^(ready|missing)$/,
      );
      if (!site.adaptive) {
        await expect(
          page.getByRole('region', { name: 'Transcripción' }).getByRole('listitem').first(),
        ).toBeAttached();
        expect(
          await video(page).evaluate(
            (element: HTMLVideoElement) => element.textTracks[0]?.cues?.length ?? 0,
          ),
        ).toBeGreaterThan(0);
      }
    });
  });
