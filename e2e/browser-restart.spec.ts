/**
 * The spec's rehydration across a browser restart: a visitor who closes the browser and opens
 * it again within the session's lifetime is still in, and the server still plays the video for
 * them (the session cookie has a Max-Age, so the browser keeps it on disk like the stored
 * session). Real Chromium, one profile directory, two launches.
 */
import { chromium, type BrowserContext } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from '../scripts/test-support/find-chromium.mjs';
import { expect, login, visitorTest as test } from './fixtures';
import { BASE, url } from './site';
import { EMPRESA, NOMBRES } from '../tests/model/model';

const LABEL = `Hola ${NOMBRES} / ${EMPRESA}`;

test('a visitor who restarts the browser within the session is still in and the video plays', async ({
  extraHTTPHeaders,
}) => {
  const profile = mkdtempSync(join(tmpdir(), 'profile-'));
  const open = () =>
    chromium.launchPersistentContext(profile, {
      executablePath: findChromium() ?? undefined,
      args: CHROMIUM_ARGS,
      locale: 'es-AR',
      viewport: { width: 1280, height: 800 },
      extraHTTPHeaders,
    });
  const firstPage = async (context: BrowserContext) =>
    context.pages()[0] ?? (await context.newPage());
  let context = await open();
  try {
    const page = await firstPage(context);
    await login(page);
    await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
    await expect(page.getByRole('button', { name: LABEL })).toBeVisible();
    await context.close();

    context = await open();
    const again = await firstPage(context);
    await again.goto(url(`${BASE}/VideoPlayer`));
    await expect(again.getByRole('button', { name: LABEL })).toBeVisible();
    // The video's metadata arrived: the server accepted the cookie kept from the first launch.
    await expect
      .poll(() => again.evaluate(() => document.querySelector('video')?.readyState ?? 0))
      .toBeGreaterThanOrEqual(1);
    await expect(again).toHaveURL(url(`${BASE}/VideoPlayer`));
    expect((await again.request.head(url('/api/video'))).status()).toBe(200);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
