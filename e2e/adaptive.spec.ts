/**
 * Adaptive video in a real Chromium against the real server with MEDIA_DIR: a 24 s clip published
 * by prepare-video in the global set-up (360p, 240p, 144p; 6 s segments). hls.js plays it,
 * switches renditions when DevTools throttles the link, and the quality menu and data saver
 * work and are remembered on the device.
 */
import type { Page } from '@playwright/test';
import { expect, login as loginSingle, test } from './fixtures';
import { BASE, E2E_PASSWORD } from './site';

const origin = () => {
  const value = process.env.E2E_ADAPTIVE_ORIGIN;
  if (!value) throw new Error('E2E_ADAPTIVE_ORIGIN is not set: the global set-up did not run');
  return value;
};

/** The heights of the media segments the page asked for, in order. */
function watchSegments(page: Page): number[] {
  const heights: number[] = [];
  page.on('request', (request) => {
    const match = /\/api\/video\/hls\/[a-z0-9]{8}-(\d+)p\/seg\d+\.m4s$/.exec(request.url());
    if (match) heights.push(Number(match[1]));
  });
  return heights;
}

async function login(
  page: Page,
  storage: Record<string, string> = {},
  before: () => Promise<void> = async () => {},
) {
  await page.goto(`${origin()}${BASE}/login`);
  await page.evaluate((items) => {
    for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
  }, storage);
  await before();
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  // Under throttling the screen's chunk and hls.js take seconds.
  await expect(page.getByLabel('Calidad')).toBeVisible({ timeout: 20_000 });
}

const video = (page: Page) => page.locator('video.player__video');

async function play(page: Page) {
  await video(page).evaluate((element: HTMLVideoElement) => {
    element.muted = true;
    return element.play();
  });
}

async function throttle(page: Page, kbps: number, latencyMs: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: latencyMs,
    downloadThroughput: (kbps * 1000) / 8,
    uploadThroughput: (kbps * 1000) / 8,
  });
}

test('plays the published clip through Media Source, hls.js choosing the rendition', async ({
  page,
}) => {
  const segments = watchSegments(page);
  await login(page);
  await play(page);
  await expect
    .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.currentTime))
    .toBeGreaterThan(1);
  // hls.js feeds the element a Media Source, not the fallback MP4.
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /^blob:/,
  );
  await expect(page.locator('.quality__playing')).toHaveText(/^Reproduciendo en (360|240|144)p$/);
  expect(segments.length).toBeGreaterThan(0);
  await expect(page.getByLabel('Calidad')).toHaveValue('auto');
});

test('switches up when the link turns out fast', async ({ page }) => {
  const segments = watchSegments(page);
  // A slow link remembered from the last visit: the start is the lowest rendition.
  await login(page, { videoBandwidthEstimate: '60000' });
  await play(page);
  await expect.poll(() => segments.length).toBeGreaterThanOrEqual(2);
  expect(segments[0]).toBe(144);
  await expect.poll(() => Math.max(...segments)).toBe(360);
});

test('switches down under DevTools throttling', async ({ page }) => {
  const segments = watchSegments(page);
  // A fast link remembered, but the link is slow now (400 kbit/s): the start is the top
  // rendition, which the link cannot carry; hls.js measures that and goes down.
  await login(page, { videoBandwidthEstimate: '20000000' }, () => throttle(page, 400, 100));
  await play(page);
  await expect.poll(() => segments[0], { timeout: 15_000 }).toBe(360);
  await expect.poll(() => Math.min(...segments), { timeout: 20_000 }).toBeLessThan(360);
});

test('the quality menu fixes a rendition and the data saver is offered; both are remembered', async ({
  page,
}, testInfo) => {
  const segments = watchSegments(page);
  await login(page);
  const menu = page.getByLabel('Calidad');
  await expect(menu.locator('option')).toHaveText([
    'Automática',
    /^360p \(≈ \d+ MB cada 10 min\)$/,
    /^240p /,
    /^144p /,
  ]);
  const before = segments.length;
  await menu.selectOption('144');
  await play(page);
  await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 144p');
  // The choice replaces what was buffered: 144p segments are asked for, and nothing else after.
  await expect
    .poll(() => segments.slice(before).filter((h) => h === 144).length)
    .toBeGreaterThan(0);
  expect(segments.at(-1)).toBe(144);

  const saver = page.getByLabel('Ahorro de datos');
  await saver.check();
  await expect(menu.locator('option', { hasText: '360p' })).toBeDisabled();
  // The README's screenshot of the menu, under the video.
  await page.locator('.quality').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `reports/screenshots/quality-${testInfo.project.name}.png` });

  await page.reload();
  await expect(page.getByLabel('Calidad')).toHaveValue('144');
  await expect(page.getByLabel('Ahorro de datos')).toBeChecked();
  await expect(page.locator('.quality__playing')).toHaveText('Reproduciendo en 144p');
});

test('the data saver keeps automatic quality at 240p or less, even on a fast link', async ({
  page,
}) => {
  const segments = watchSegments(page);
  await login(page, {
    videoQuality: JSON.stringify({ quality: 'auto', dataSaver: true }),
    videoBandwidthEstimate: '20000000',
  });
  await expect(page.getByLabel('Ahorro de datos')).toBeChecked();
  await play(page);
  await expect.poll(() => segments.length).toBeGreaterThanOrEqual(4);
  expect(Math.max(...segments)).toBe(240);
});

test('a stored choice that makes no sense is ignored: automatic, no data saver', async ({
  page,
}) => {
  await login(page, { videoQuality: '{"quality":"huge","dataSaver":"yes"}' });
  await expect(page.getByLabel('Calidad')).toHaveValue('auto');
  await expect(page.getByLabel('Ahorro de datos')).not.toBeChecked();
});

test('the single-MP4 site (no MEDIA_DIR) plays its MP4 and never downloads hls.js', async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url());
  });
  const master = page.waitForResponse((response) =>
    response.url().endsWith('/api/video/hls/master.m3u8'),
  );
  await loginSingle(page);
  expect((await master).status()).toBe(204);
  await play(page);
  await expect
    .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.currentTime))
    .toBeGreaterThan(0.5);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /\/api\/video$/,
  );
  expect(scripts.filter((url) => /hls/i.test(url))).toEqual([]);
  await expect(page.getByLabel('Calidad')).toHaveCount(0);
});

test('a session ended elsewhere mid-play: the next request is refused and the visitor sees the login with the expired notice', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/status of 401/);
  await login(page);
  await play(page);
  await expect(page.locator('.quality__playing')).toHaveText(/^Reproduciendo en \d+p$/);
  // Signout from another tab of this browser ends the server's session, not this page's.
  const signout = await page.request.post(`${origin()}/api/users/signout`);
  expect(signout.ok()).toBe(true);
  // A new rendition replaces the buffer, so the player must ask the server again (unless a
  // request still under way was refused first and the menu has gone).
  await page
    .getByLabel('Calidad')
    .selectOption('144', { timeout: 2_000 })
    .catch(() => undefined);
  await expect(page.getByText(/Su sesión expiró/)).toBeVisible({ timeout: 15_000 });
  await expect(page.getByLabel('Contraseña')).toBeVisible();
});
