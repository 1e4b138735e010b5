/**
 * The login answers from its first paint: a press of "Ingresar" while the app's JavaScript is
 * still on its way (held here until the test lets it go) starts the signin at once, shows
 * "Cargando...", and ends as the spec says once the app is there: the video screen and the
 * stored session, or the error on a wrong password. One signin, never two.
 */
import type { Page, Request } from '@playwright/test';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD, WRONG_PASSWORD, url } from './site';

/** Holds every script the page asks for until `release()`; the inline boot script still runs. */
async function holdScripts(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: string[] = [];
  await page.route(/\/assets\/.*\.js$/, async (route) => {
    held.push(route.request().url());
    await released;
    await route.continue();
  });
  return { held, release };
}

function watchSignins(page: Page): Request[] {
  const signins: Request[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/api/users/signin'))
      signins.push(request);
  });
  return signins;
}

/** The app's bundle has not run: nothing of React is on the page's root. */
const appRan = (page: Page) =>
  page.evaluate(() =>
    Object.keys(document.getElementById('root') ?? {}).some((key) => key.startsWith('__react')),
  );

/**
 * With `answered` 'first', the signin's answer is in before the app's scripts are let go (a press at
 * the login's first paint on a slow link); with 'after', it is held until the app has run.
 */
async function pressBeforeTheApp(
  page: Page,
  password: string,
  answered: 'first' | 'after' = 'first',
) {
  const scripts = await holdScripts(page);
  const signins = watchSignins(page);
  const answer = page.waitForResponse((response) => response.url().includes('/api/users/signin'));
  // The answer waits until "Cargando..." was seen: a right one would replace the login at once.
  let seen!: () => void;
  const loadingSeen = new Promise<void>((resolve) => (seen = resolve));
  await page.route('**/api/users/signin', async (route) => {
    await loadingSeen;
    if (answered === 'after') await expect.poll(() => appRan(page)).toBe(true);
    await route.continue();
  });
  // Not until 'load': the page's scripts are held.
  await page.goto(url(`${BASE}/login`), { waitUntil: 'domcontentloaded' });
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('status')).toHaveText('Cargando...');
  await expect.poll(() => signins.length).toBe(1);
  // Asked for and not yet there: the press was answered without the app.
  expect(scripts.held.length).toBeGreaterThan(0);
  expect(await appRan(page)).toBe(false);
  seen();
  if (answered === 'first') await answer;
  scripts.release();
  if (answered === 'after') await answer;
  return signins;
}

test('a press before the app arrives signs in and reaches the video screen, with one signin', async ({
  page,
}) => {
  const signins = await pressBeforeTheApp(page, E2E_PASSWORD);
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  // The boot may show the video screen before the app has run: the machine stores the session
  // once it has, from the same signin.
  await expect
    .poll(() => page.evaluate(() => JSON.parse(localStorage.getItem('session') ?? 'null')))
    .toMatchObject({ empresa: expect.any(String) });
  expect(signins).toHaveLength(1);
});

for (const answered of ['first', 'after'] as const)
  test(`a wrong password pressed before the app arrives shows the error once the app is there (answered ${answered})`, async ({
    page,
    consoleWatch,
  }) => {
    consoleWatch.allow(/status of 401/);
    const signins = await pressBeforeTheApp(page, WRONG_PASSWORD, answered);
    await expect(page.getByRole('alert')).toHaveText('Error, contraseña incorrecta');
    await expect(page.getByRole('status')).toHaveText('');
    await expect(page).toHaveURL(url(`${BASE}/login`));
    expect(await page.evaluate(() => localStorage.getItem('session'))).toBeNull();
    // The form is the app's now: the right password signs in as usual.
    await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
    expect(signins).toHaveLength(2);
  });

test('an empty password pressed before the app arrives does nothing, and nothing leaves', async ({
  page,
}) => {
  const scripts = await holdScripts(page);
  const signins = watchSignins(page);
  // Not until 'load': the page's scripts are held.
  await page.goto(url(`${BASE}/login`), { waitUntil: 'domcontentloaded' });
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.getByRole('button', { name: 'Ingresar' }).press('Enter');
  await expect(page.getByRole('status')).toHaveText('');
  scripts.release();
  await expect.poll(() => appRan(page)).toBe(true);
  // Not a native submit either: the page stayed where it was, with no password in the address.
  expect(page.url()).toBe(url(`${BASE}/login`));
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('status')).toHaveText('');
  expect(signins).toHaveLength(0);
});
