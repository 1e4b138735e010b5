/**
 * The installable site and its offline shell, in Chromium against the real built server: the
 * manifest and the service worker leave no installability error; a reload with the network off
 * shows the site (the login, or a returning visitor's video screen), never the browser's error
 * page; and nothing with a session in it is ever kept.
 */
import { chromium } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from '../scripts/test-support/find-chromium.mjs';
import { expect, login, test } from './fixtures';
import { cachedUrls, logout, workerInControl } from './offline';
import { BASE, url } from './site';

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
