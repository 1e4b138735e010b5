/**
 * Encrypted publishes (docs/publishing.md) in a real Chromium against the real server with the
 * global set-up's MEDIA_DIR: segments are public and useless without the key; the key comes in
 * the signin's answer, lives with the session, and a start with a held, missing or wrong key
 * still ends playing. A key rotated while someone watches (npm run rekey) is in rekey.spec.ts.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD } from './site';
import { expectPlaysOn } from './ui';

const origin = () => {
  const value = process.env.E2E_ADAPTIVE_ORIGIN;
  if (!value) throw new Error('E2E_ADAPTIVE_ORIGIN is not set: the global set-up did not run');
  return value;
};

const KEY_URL = /\/api\/video\/hls\/(?:v\d{14}-[a-z0-9]{8}\/)?[a-z0-9]{8}-\d+p\/key\.bin$/;
const video = (page: Page) => page.locator('video.player__video');

async function login(page: Page) {
  await page.goto(`${origin()}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByLabel('Calidad')).toBeVisible({ timeout: 20_000 });
}

/** The page's media info: the version it plays and its lowest rendition's folder. */
async function published(page: Page) {
  await page.goto(`${origin()}${BASE}/login`);
  return page.evaluate(() => {
    const info = JSON.parse(document.getElementById('media-info')!.textContent!) as {
      version: string;
      encrypted?: boolean;
      rungs: { dir: string }[];
    };
    return { version: info.version, encrypted: info.encrypted, dir: info.rungs[0]!.dir };
  });
}

/** An fMP4 segment's first box: a size, then its four-letter type. */
const boxType = (bytes: Buffer) => bytes.subarray(4, 8).toString('latin1');

test('without a session a segment is public but noise, and the key, the playlists and the MP4 are refused', async ({
  page,
  playwright,
}) => {
  const { version, encrypted, dir } = await published(page);
  expect(encrypted).toBe(true);
  const hls = `${origin()}/api/video/hls/${version}/${dir}`;
  const stranger = await playwright.request.newContext();
  try {
    const segment = await stranger.get(`${hls}/seg00001.m4s`);
    expect(segment.status()).toBe(200);
    expect(segment.headers()['cache-control']).toMatch(/public.*immutable|immutable.*public/);
    const body = await segment.body();
    expect(body.length % 16).toBe(0);
    expect(boxType(body)).not.toMatch(/^(styp|moof|sidx|ftyp)$/);
    // The init segment carries no picture, only the codecs: clear.
    expect(boxType(await (await stranger.get(`${hls}/init.mp4`)).body())).toBe('ftyp');
    for (const refused of [
      `${hls}/key.bin`,
      `${hls}/index.m3u8`,
      `${origin()}/api/video/hls/${version}/fallback.mp4`,
    ])
      expect((await stranger.get(refused)).status(), refused).toBe(401);
  } finally {
    await stranger.dispose();
  }
});

test("the key comes in the signin's answer, needs no request of its own, and leaves the phone at signout", async ({
  page,
  consoleWatch,
}) => {
  // What the player still asks after the signout is refused.
  consoleWatch.allow(/status of 401/);
  const keyRequests: string[] = [];
  page.on('request', (request) => KEY_URL.test(request.url()) && keyRequests.push(request.url()));
  await login(page);
  const stored = await page.evaluate(() => localStorage.getItem('video-key'));
  expect(JSON.parse(stored!)).toEqual({ id: expect.any(String), key: expect.any(String) });
  await expectPlaysOn(page);
  expect(keyRequests).toEqual([]);
  await page.getByRole('button', { name: /^Hola / }).hover();
  await page.getByRole('button', { name: 'Cerrar sesion' }).click();
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('video-key'))).toBeNull();
});

test('a key that is not stored is asked beside the first segment; held, the first frame waits for it, then plays', async ({
  page,
}) => {
  await login(page);
  const screen = page.url();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: string[] = [];
  await page.context().route(KEY_URL, async (route) => {
    held.push(route.request().url());
    await released;
    await route.continue();
  });
  // A key of another publish (one made since the signin): the start asks for this one's.
  await page.evaluate(() =>
    localStorage.setItem(
      'video-key',
      JSON.stringify({ id: 'zzzzzzzz', key: 'AAECAwQFBgcICQoLDA0ODw==' }),
    ),
  );
  await page.goto(screen);
  await expect.poll(() => held.length).toBe(1);
  // The first segment is in by now on loopback; without its key nothing shows.
  await page.waitForTimeout(500);
  expect(
    await video(page).evaluate((element: HTMLVideoElement) => element.readyState),
  ).toBeLessThan(2 /* HAVE_CURRENT_DATA */);
  release();
  await expectPlaysOn(page);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /^blob:/,
  );
});

test('a wrong key is never appended: hls.js asks the server for the right one and the video plays', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/decrypt|OperationError/i);
  await login(page);
  const screen = page.url();
  const keyRequests: string[] = [];
  page.on('request', (request) => KEY_URL.test(request.url()) && keyRequests.push(request.url()));
  await page.evaluate(() => {
    const stored = JSON.parse(localStorage.getItem('video-key')!) as { id: string };
    localStorage.setItem(
      'video-key',
      JSON.stringify({ id: stored.id, key: 'AAECAwQFBgcICQoLDA0ODw==' }),
    );
  });
  await page.goto(screen);
  await expectPlaysOn(page);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /^blob:/,
  );
  expect(keyRequests.length).toBeGreaterThan(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('no key to be had (the server has lost it): the video still plays, from the MP4', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/status of 404/);
  await login(page);
  const screen = page.url();
  await page.context().route(KEY_URL, (route) => route.fulfill({ status: 404, body: '' }));
  await page.evaluate(() => localStorage.removeItem('video-key'));
  await page.goto(screen);
  await expectPlaysOn(page);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /\/fallback\.mp4$/,
  );
});

test('a plain-HTTP site on a LAN (no WebCrypto) still plays: hls.js decrypts in JavaScript', async ({
  page,
}) => {
  await page.addInitScript(() => {
    Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined });
  });
  await login(page);
  await expectPlaysOn(page);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /^blob:/,
  );
});
