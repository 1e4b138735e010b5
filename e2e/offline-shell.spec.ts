/**
 * The installable site and its offline shell, in Chromium against the real built server: the
 * manifest and the service worker leave no installability error; a returning visitor's page
 * comes from the worker's copy without the server, while that copy is of the worker's build and
 * younger than the server keeps what it names; a reload with the network off shows the site
 * (the login, or a returning visitor's video screen), never the browser's error page; and
 * nothing with a session in it is ever kept.
 */
import { chromium, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from '../scripts/test-support/find-chromium.mjs';
import { expect, login, test } from './fixtures';
import { startHoldProxy, type HoldProxy } from './engines/hold-proxy';
import { cachedUrls, logout, workerInControl } from './offline';
import { BASE, E2E_PASSWORD, url } from './site';

// A profile on disk: Chromium never offers to install from an incognito-like context.
test('Chromium reports no installability error for the site', async ({ extraHTTPHeaders }) => {
  const profile = mkdtempSync(join(tmpdir(), 'profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: findChromium() ?? undefined,
    args: CHROMIUM_ARGS,
    extraHTTPHeaders,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    // The worker registers after the video's first frame: a visitor who has watched.
    await login(page);
    await workerInControl(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
    const manifest = await cdp.send('Page.getAppManifest');
    expect(manifest.errors).toEqual([]);
    expect(JSON.parse(manifest.data ?? '{}')).toMatchObject({
      lang: 'es',
      start_url: `${BASE}/login`,
      scope: `${BASE}/`,
      display: 'standalone',
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test('a reload with the network off shows the login to a visitor whose session has ended', async ({
  page,
  context,
  consoleWatch,
}) => {
  await login(page);
  await workerInControl(page);
  await logout(page);
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await context.setOffline(true);
  // Offline, the page's own requests that need the network fail, as they should.
  consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to fetch/);
  await page.reload();
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await expect(page.getByRole('img', { name: 'Logo de la empresa' })).toBeVisible();
  // A visitor who types the password offline is told the server cannot be reached.
  await page.getByLabel('Contraseña').fill('cualquiera');
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByText('No se pudo conectar con el servidor')).toBeVisible();
});

test('a reload with the network off shows a returning visitor the video screen', async ({
  page,
  context,
  consoleWatch,
}) => {
  await login(page);
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await workerInControl(page);
  await context.setOffline(true);
  consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to fetch|Failed to load resource/);
  await page.reload();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
});

test('keeps nothing with a session in it: no signin, signout or cookie-setting answer is cached', async ({
  page,
}) => {
  const fromWorker: string[] = [];
  page.on('response', (response) => {
    if (response.fromServiceWorker()) fromWorker.push(response.url());
  });
  await login(page);
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await workerInControl(page);
  await logout(page);
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  const kept = Object.values(await cachedUrls(page)).flat();
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.filter((u) => /\/api\/users\//.test(u))).toEqual([]);
  expect(fromWorker.filter((u) => /\/api\/users\//.test(u))).toEqual([]);
});

/** The MEDIA_DIR site (hls.js) through a proxy that sees, and can hold, each request. */
const returnTest = test.extend<{ link: HoldProxy }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures from this pattern
  link: async ({}, use) => {
    const proxy = await startHoldProxy(process.env.E2E_ADAPTIVE_ORIGIN!, { keepCaching: true });
    await use(proxy);
    proxy.release();
    await proxy.close();
  },
});

const PAGE_PATH = /\/(login|VideoPlayer)(\?|$)/;
const pageAsks = (proxy: HoldProxy) => proxy.seen.filter((path) => PAGE_PATH.test(path)).length;
const firstFrame = (page: Page) =>
  expect
    .poll(() =>
      page.locator('video.player__video').evaluate((video: HTMLVideoElement) => video.readyState),
    )
    .toBeGreaterThanOrEqual(2);

/** The worker's copy of the page: its Date, and the build entry it names. */
const keptPage = (page: Page) =>
  page.evaluate(async (base) => {
    const kept = await caches.match(`${location.origin}${base}/login`, {
      cacheName: `pages:${base}`,
    });
    if (!kept) return null;
    const entry = /"entry":"([^"]+)"/.exec(await kept.text())?.[1];
    return { date: kept.headers.get('date'), entry };
  }, BASE);

/** Replaces the worker's copy of the page with `change` applied to its text and headers. */
const alterKeptPage = (page: Page, change: { entry?: string; date?: string }) =>
  page.evaluate(
    async ({ base, change }) => {
      const cache = await caches.open(`pages:${base}`);
      const key = `${location.origin}${base}/login`;
      const kept = (await cache.match(key))!;
      const headers = new Headers(kept.headers);
      if (change.date) headers.set('date', change.date);
      headers.delete('content-encoding');
      let text = await kept.text();
      if (change.entry) text = text.replace(/"entry":"[^"]+"/, `"entry":"${change.entry}"`);
      await cache.put(key, new Response(text, { headers }));
    },
    { base: BASE, change },
  );

/** Signs in through the proxy, and waits for the worker and its copy of the page. */
async function watchOnce(page: Page, proxy: HoldProxy) {
  await page.goto(`${proxy.origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await workerInControl(page);
  await expect.poll(() => keptPage(page)).not.toBeNull();
}

returnTest(
  "a returning visitor's page comes from the worker's copy, with no round trip; the server is asked for it once, after the first frame",
  async ({ page, link: proxy }) => {
    await watchOnce(page, proxy);
    const before = await keptPage(page);
    proxy.seen.length = 0;
    // Held: a page that waited for the server would never show.
    proxy.hold(PAGE_PATH);
    await page.goto(`${proxy.origin}${BASE}/VideoPlayer`);
    await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
    await firstFrame(page);
    // Then the page is asked again (the worker's refresh), and its answer is the new copy.
    await proxy.held();
    expect(pageAsks(proxy)).toBe(1);
    proxy.release();
    await expect.poll(async () => (await keptPage(page))?.date).not.toBe(before?.date);
    expect((await keptPage(page))?.entry).toBe(before?.entry);
  },
);

for (const [name, change] of [
  ['of another build (the server deployed since)', { entry: `${BASE}/assets/index-0ld8u1ld.js` }],
  [
    'older than the server keeps what it names',
    { date: new Date(Date.now() - 3 * 3600 * 1000).toUTCString() },
  ],
] as const)
  returnTest(
    `a copy of the page ${name} is not shown: the server's page is, and becomes the copy`,
    async ({ page, link: proxy }) => {
      await watchOnce(page, proxy);
      const served = await keptPage(page);
      await alterKeptPage(page, change);
      proxy.seen.length = 0;
      // The navigation waits for the server: the page has not loaded while its request is held
      // (the worker's refresh, the only other ask, comes after the load: register-worker.ts).
      proxy.hold(PAGE_PATH);
      let loaded = false;
      const shown = page.goto(`${proxy.origin}${BASE}/VideoPlayer`).then(() => (loaded = true));
      await proxy.held();
      expect(loaded).toBe(false);
      proxy.release();
      await shown;
      await firstFrame(page);
      expect(pageAsks(proxy)).toBe(1);
      await expect.poll(() => keptPage(page)).toMatchObject({ entry: served?.entry });
      expect(Date.parse((await keptPage(page))?.date ?? '')).toBeGreaterThan(Date.now() - 60_000);
    },
  );

test("a visit to {base}/index.html leaves the worker's copy of the page as the server made it", async ({
  page,
}) => {
  await login(page);
  await workerInControl(page);
  const kept = () =>
    page.evaluate(async (base) => {
      const copy = await caches.match(`${location.origin}${base}/login`, {
        cacheName: `pages:${base}`,
      });
      return copy ? await copy.text() : null;
    }, BASE);
  // The server writes the copy's period on every page; the build's own file has none.
  await expect.poll(kept).toContain('data-offline-copy-days=');
  await page.goto(url(`${BASE}/index.html`));
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  expect(await kept()).toContain('data-offline-copy-days=');
});
