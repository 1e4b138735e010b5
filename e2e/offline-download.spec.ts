/**
 * Download for later and offline playback, in Chromium against the real built servers: the
 * single-MP4 site and a MEDIA_DIR site (a 24 s clip, 360p/240p/144p). The visitor downloads from
 * the video screen, reloads with the network off, and watches the stored copy.
 */
import type { Page } from '@playwright/test';
import { startHoldProxy, type HoldProxy } from './engines/hold-proxy';
import { expect, test } from './fixtures';
import { cachedUrls, playTo, reloadFromDevice, workerInControl } from './offline';
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
        const select = page.getByLabel('Resolución para descargar');
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
        // Every segment the published playlist names.
        const playlist = kept!.find((u) => /-240p\/index\.m3u8$/.test(u))!;
        const named = (await (await page.request.get(playlist)).text()).match(/\.m4s$/gm);
        expect(named?.length).toBeGreaterThan(1);
        expect(kept?.filter((u) => /-240p\/seg\d+\.m4s$/.test(u))).toHaveLength(named!.length);
        expect(kept?.some((u) => /-(360|144)p\//.test(u))).toBe(false);
      }

      await context.setOffline(true);
      consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
      const asked: string[] = [];
      page.on('request', (request) => asked.push(request.url()));
      await page.reload();
      await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
      await expect(
        page.getByText('Sin conexión: se reproduce la copia guardada en este teléfono.'),
      ).toBeVisible({ timeout: 20_000 });
      await playTo(page, 1);
      if (site.adaptive) {
        // hls.js plays what is stored, and the menu offers only that.
        await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 240p');
        // The start asked for the stored rendition alone: another would first fail on the link.
        expect(asked.filter((u) => /-(360|144)p\//.test(u))).toEqual([]);
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

/** The MEDIA_DIR site through a proxy that can hold a segment: a download caught half-way. */
const downloadTest = test.extend<{ hold: HoldProxy }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures from this pattern
  hold: async ({}, use) => {
    const proxy = await startHoldProxy(adaptiveOrigin());
    await use(proxy);
    proxy.release();
    await proxy.close();
  },
});

const THIRD_SEGMENT = /-360p\/seg00002\.m4s$/;
const asked = (proxy: HoldProxy, pattern: RegExp) =>
  proxy.seen.filter((path) => pattern.test(path)).length;
const progress = (page: Page) => page.getByLabel('Descargando para ver sin conexión');

/**
 * Logs in through the proxy and starts the default download (360p), held at its third segment.
 * The player starts at 144p (a slow link remembered), so the 360p files are the download's alone.
 */
async function startHeld(page: Page, proxy: HoldProxy) {
  await page.addInitScript(() => localStorage.setItem('videoBandwidthEstimate', '60000'));
  await login(page, proxy.origin);
  await workerInControl(page);
  proxy.hold(THIRD_SEGMENT);
  await downloadButton(page).click();
  await proxy.held();
  // Part of it is stored: the bar, the megabytes and the percent say how much.
  await expect(progress(page)).toBeVisible();
  await expect
    .poll(async () => Number(await progress(page).getAttribute('value')))
    .toBeGreaterThan(0);
  await expect(page.getByText(/^[\d,]+ de [\d,]+ MB \(\d+ %\)$/)).toBeVisible();
}

downloadTest(
  'a download goes on by itself after the link drops, without fetching again what it stored',
  async ({ page, context, hold: proxy, consoleWatch }) => {
    await startHeld(page, proxy);
    consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
    await context.setOffline(true);
    proxy.release();
    await expect(
      page.getByText('Sin conexión: la descarga sigue cuando vuelva la señal.'),
    ).toBeVisible();
    await context.setOffline(false);
    await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
    // Stored before the drop, and not asked for again.
    expect(asked(proxy, /-360p\/seg00001\.m4s$/)).toBe(1);
  },
);

downloadTest(
  'a download goes on after a reload, where it stopped',
  async ({ page, hold: proxy }) => {
    await startHeld(page, proxy);
    await page.reload();
    // The screen opens again and the download goes on by itself from what is stored (the file
    // in flight is still held: Chromium's HTTP cache lets a second request for it wait for it).
    await expect(progress(page)).toBeVisible();
    expect(Number(await progress(page).getAttribute('value'))).toBeGreaterThan(0);
    proxy.release();
    await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
    // Stored before the reload, and not asked for again.
    expect(asked(proxy, /-360p\/seg00001\.m4s$/)).toBe(1);
  },
);

downloadTest('cancelling a download deletes what it stored', async ({ page, hold: proxy }) => {
  await startHeld(page, proxy);
  await page.getByRole('button', { name: 'Cancelar descarga' }).click();
  await expect(downloadButton(page)).toBeVisible();
  proxy.release();
  expect(Object.keys(await cachedUrls(page)).filter((n) => n.startsWith('offline-video:'))).toEqual(
    [],
  );
});

downloadTest(
  'a full storage stops the download with a clear message, keeps what is stored, and the site works on',
  async ({ page, hold: proxy }) => {
    await startHeld(page, proxy);
    const cdp = await page.context().newCDPSession(page);
    const { usage } = await page.evaluate(() => navigator.storage.estimate());
    // From now on nothing more fits.
    await cdp.send('Storage.overrideQuotaForOrigin', {
      origin: proxy.origin,
      quotaSize: usage ?? 0,
    });
    proxy.release();
    await expect(page.getByText(/^No hay espacio suficiente en este teléfono/)).toBeVisible();
    const kept = Object.entries(await cachedUrls(page)).find(([n]) =>
      n.startsWith('offline-video:'),
    )?.[1];
    expect(kept?.some((u) => /-360p\/seg00001\.m4s$/.test(u))).toBe(true);
    // Room again: the download goes on from there, not from the start.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: proxy.origin });
    await page.getByRole('button', { name: 'Reintentar' }).click();
    await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
    expect(asked(proxy, /-360p\/seg00001\.m4s$/)).toBe(1);
    // The site works on: the video plays, the visitor is still in.
    await playTo(page, 0.5);
    await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  },
);

test('when playback waits because the link is gone, the screen says so, nothing is asked of the network, and the video goes on by itself when it is back', async ({
  page,
  context,
  consoleWatch,
}) => {
  consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
  await login(page, adaptiveOrigin());
  // Before a play only the first segment is loaded: with no link, the next one cannot come.
  await expect(page.locator('.quality__playing')).toHaveText(/^Reproduciendo en \d+p$/);
  // The worker registers after the first frame: its script fetched offline would fail loudly.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  const asked: string[] = [];
  let counting = true;
  page.on('request', (request) => {
    if (counting && request.url().includes('/api/video')) asked.push(request.url());
  });
  await context.setOffline(true);
  await video(page).evaluate((element: HTMLVideoElement) => {
    element.muted = true;
    element.currentTime = 13;
    void element.play();
  });
  const notice = page.getByText('Sin conexión: el video sigue cuando vuelva la señal');
  await expect(notice).toBeVisible({ timeout: 15_000 });
  // hls.js was told to stop loading (it would try the network on: hls.js#7410), so the seek
  // asked for nothing.
  counting = false;
  expect(asked).toEqual([]);
  await context.setOffline(false);
  await expect
    .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.currentTime), {
      timeout: 20_000,
    })
    .toBeGreaterThan(14);
  await expect(notice).toHaveCount(0);
});

downloadTest(
  'screenshots of the download at 390×844 and 1280×800: offer, progress, ready, offline',
  async ({ page, context, hold: proxy, consoleWatch }) => {
    consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
    const sizes = [
      { name: 'phone', width: 390, height: 844 },
      { name: 'desktop', width: 1280, height: 800 },
    ];
    const shoot = async (state: string) => {
      for (const { name, width, height } of sizes) {
        await page.setViewportSize({ width, height });
        await page.locator('.offline').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `reports/screenshots/offline-${state}-${name}.png` });
      }
    };
    await login(page, proxy.origin);
    await workerInControl(page);
    await expect(downloadButton(page)).toBeVisible();
    await shoot('offer');
    proxy.hold(THIRD_SEGMENT);
    await downloadButton(page).click();
    await proxy.held();
    await expect(progress(page)).toBeVisible();
    await shoot('progress');
    proxy.release();
    await expect(page.getByText('Lista para ver sin conexión')).toBeVisible();
    await shoot('ready');
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByText(/^Sin conexión: se reproduce la copia guardada/)).toBeVisible();
    await shoot('offline');
  },
);

test('a link that drops while watching another rendition: the video plays on from the download, nothing is asked in a loop, and the choice comes back online', async ({
  page,
  context,
  consoleWatch,
}) => {
  consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
  await login(page, adaptiveOrigin());
  await workerInControl(page);
  await page.getByLabel('Resolución para descargar').selectOption('240');
  await downloadButton(page).click();
  await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
  // Watching 360p, paused: only its first segment is loaded.
  await page.getByLabel('Calidad').selectOption('360');
  await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 360p');

  const offline: string[] = [];
  let counting = false;
  context.on('request', (request) => {
    if (counting) offline.push(`${request.serviceWorker() ? 'worker' : 'page'} ${request.url()}`);
  });
  counting = true;
  await context.setOffline(true);
  await video(page).evaluate((element: HTMLVideoElement) => {
    element.muted = true;
    element.currentTime = 13;
    void element.play();
  });
  await expect
    .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.ended), {
      timeout: 20_000,
    })
    .toBe(true);
  await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 240p');
  counting = false;
  // Each file once (the page's request, and the worker's try of the network before its copy),
  // and only the stored rendition's.
  expect(offline.filter((line, index) => offline.indexOf(line) !== index)).toEqual([]);
  expect(offline.filter((line) => /-(360|144)p\//.test(line))).toEqual([]);

  await context.setOffline(false);
  await video(page).evaluate((element: HTMLVideoElement) => {
    element.currentTime = 7;
    void element.play();
  });
  await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 360p', {
    timeout: 15_000,
  });
});

for (const site of SITES)
  test(`on ${site.name} the worker keeps hls.js only if the page plays with it; a download plays from the device alone`, async ({
    page,
    context,
    consoleWatch,
  }) => {
    await login(page, site.origin());
    await workerInControl(page);
    const precached = Object.entries(await cachedUrls(page))
      .filter(([name]) => name.startsWith('workbox-precache'))
      .flatMap(([, urls]) => urls);
    expect(precached.some((u) => /\/assets\/index-[\w-]+\.js$/.test(u))).toBe(true);
    expect(precached.some((u) => /\/assets\/adaptive-player-[\w-]+\.js$/.test(u))).toBe(
      site.adaptive,
    );
    await downloadButton(page).click();
    await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });

    // Only what the device stored: the HTTP cache would answer hls.js too.
    consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
    await reloadFromDevice(page, context);
    await playTo(page, 1);
  });

test('a download the worker never saw being made still answers a reload with the network off: the single MP4 plays, no MEDIA_ERR_SRC_NOT_SUPPORTED', async ({
  page,
  context,
  consoleWatch,
}) => {
  await login(page, url(''));
  await workerInControl(page);
  // The worker has looked and found no download. One is now stored without a media request
  // passing through it, as when the download ran while the page was not yet in its control.
  const mp4 = await page.request.get(url('/api/video'));
  expect(mp4.ok()).toBe(true);
  // As base64: an array of numbers is megabytes of JSON, which a busy machine took most of the
  // test's time to carry.
  const bytes = (await mp4.body()).toString('base64');
  await page.evaluate(
    async ({ base64, base }) => {
      const body = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const cache = await caches.open(`offline-video:${base}`);
      const video = new URL('/api/video', location.href).href;
      await cache.put(video, new Response(body, { headers: { 'content-type': 'video/mp4' } }));
      const record = {
        kind: 'mp4',
        publish: 'test',
        height: null,
        totalBytes: body.length,
        storedBytes: body.length,
        files: [],
        finish: { url: video, contentType: 'video/mp4' },
        done: true,
      };
      await cache.put(
        new URL(`${base}/offline-download.json`, location.href).href,
        new Response(JSON.stringify(record), { headers: { 'content-type': 'application/json' } }),
      );
    },
    { base64: bytes, base: BASE },
  );
  await context.setOffline(true);
  consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
  await page.reload();
  await playTo(page, 1);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.error?.code ?? 0)).toBe(
    0,
  );
});
