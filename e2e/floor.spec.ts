/**
 * The declared browser floor (package.json's browserslist; docs/browsers.md): Chromium with what
 * the floor's browsers lack taken away still runs the main flows, and a browser below the floor
 * is told so instead of meeting a login that cannot work.
 */
import type { Page } from '@playwright/test';
import { EMPRESA, NOMBRES } from '../tests/model/model';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD, WRONG_PASSWORD, url } from './site';
import { MESSAGES, readStoredSession } from './ui';

const TOO_OLD = /Este navegador es demasiado antiguo/;

/** What Safari 15.0 (the floor's oldest iPhones) lacks that Chromium has. */
async function withoutAboveTheFloor(page: Page) {
  await page.addInitScript(() => {
    const remove = (owner: object, names: string[]) => {
      for (const name of names) delete (owner as Record<string, unknown>)[name];
    };
    remove(AbortSignal, ['timeout', 'any']);
    remove(Array.prototype, [
      'at',
      'findLast',
      'findLastIndex',
      'toSorted',
      'toReversed',
      'toSpliced',
      'with',
    ]);
    remove(String.prototype, ['at']);
    remove(Object, ['hasOwn', 'groupBy']);
    remove(Map, ['groupBy']);
    remove(Promise, ['withResolvers']);
    remove(Array, ['fromAsync']);
    remove(globalThis, ['structuredClone']);
    remove(Navigator.prototype, ['connection']);
  });
}

async function expectPlaying(page: Page) {
  const video = page.locator('video');
  await video.evaluate(async (v: HTMLVideoElement) => {
    v.muted = true;
    await v.play();
  });
  await expect
    .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime))
    .toBeGreaterThan(0.5);
}

test('on the floor, a visitor is refused a wrong password, signs in, watches and logs out', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/401/);
  await withoutAboveTheFloor(page);
  await page.goto(url(`${BASE}/login`));
  expect(await page.evaluate(() => 'timeout' in AbortSignal || 'at' in [])).toBe(false);
  await page.getByLabel('Contraseña').fill(WRONG_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByText(MESSAGES.wrongPassword)).toBeVisible();

  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  await expect(page.getByText(MESSAGES.network)).toHaveCount(0);
  await expectPlaying(page);
  // The transcript (its fetch has a time limit, made without AbortSignal.timeout) still loads.
  await expect(
    page.getByRole('region', { name: 'Transcripción' }).getByRole('listitem').first(),
  ).toBeAttached();

  const greeting = page.getByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` });
  await greeting.hover();
  await page.getByRole('button', { name: 'Cerrar sesion' }).click();
  await expect(page).toHaveURL(url(`${BASE}/login`));
  expect(await readStoredSession(page)).toBeNull();
});

test('on the floor, a returning visitor sees the video play after a reload', async ({ page }) => {
  await withoutAboveTheFloor(page);
  await page.goto(url(`${BASE}/login`));
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  await page.reload();
  await expectPlaying(page);
});

test('below the floor, the page says the browser is too old and which to use, and starts nothing', async ({
  page,
}) => {
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  // Chrome before 85 and Safari before 14 have no Promise.any.
  await page.addInitScript(() => delete (Promise as { any?: unknown }).any);
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByRole('alert')).toHaveText(TOO_OLD);
  await expect(page.getByRole('alert')).toContainText('iOS 15');
  await expect(page.getByLabel('Contraseña')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Ingresar' })).toHaveCount(0);
  expect(requests.filter((u) => u.includes('/assets/'))).toEqual([]);
});

test('a browser that cannot parse the app is told it is too old, never a network error', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/SyntaxError|Unexpected/);
  await page.route('**/assets/index-*.js', (route) =>
    route.fulfill({ contentType: 'text/javascript', body: 'export const x = ;' }),
  );
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByRole('alert')).toHaveText(TOO_OLD);
  await expect(page.getByText(MESSAGES.network)).toHaveCount(0);
});
