/**
 * index.html's video shell (src/boot/videoShell.ts) in Chromium: a returning visitor sees the
 * video screen, never the login form, before the bundle runs, and React adopts the shell's
 * video rather than asking for it again. Runs in the `desktop` and `phone` projects.
 */
import { expect, login, test } from './fixtures';
import { BASE, url } from './site';

interface FirstView {
  loginVisible: boolean;
  shellVideoVisible: boolean;
}

declare global {
  interface Window {
    __firstView?: FirstView;
    __shellVideo?: HTMLVideoElement | null;
  }
}

/** Runs in the page: what is on screen once the HTML is parsed, before any module script. */
function recordFirstView() {
  document.addEventListener('readystatechange', () => {
    if (document.readyState !== 'interactive') return;
    const visible = (element: Element | null) => element?.checkVisibility() ?? false;
    window.__shellVideo = document.querySelector<HTMLVideoElement>('#video-shell video');
    window.__firstView = {
      loginVisible: visible(document.getElementById('password')),
      shellVideoVisible: visible(window.__shellVideo),
    };
  });
}

test('a returning visitor sees the video screen before the app runs, and keeps that video', async ({
  page,
}) => {
  await login(page);
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  await page.addInitScript(recordFirstView);
  await page.reload();

  await expect(page.getByRole('button', { name: /^Hola / })).toBeEnabled();
  expect(await page.evaluate(() => window.__firstView)).toEqual({
    loginVisible: false,
    shellVideoVisible: true,
  });
  await expect(page.locator('#video-shell')).toHaveCount(0);
  await expect(page.locator('video')).toHaveCount(1);
  expect(
    await page.evaluate(() => document.querySelector('#root video') === window.__shellVideo),
  ).toBe(true);
  await expect(page.locator('video')).toBeVisible();
});

test('a stored session the app refuses shows the login form, not the shell', async ({
  page,
  consoleWatch,
}) => {
  // This visitor has no session cookie: the shell's video, poster and captions are refused.
  consoleWatch.allow(/status of 401/);
  await page.addInitScript(recordFirstView);
  await page.addInitScript(() => {
    // Names longer than anyone types: the shell's quick check passes, the machine's does not.
    const timestamp = Math.floor(Date.now() / 1000) - 60;
    const session = { loggedIn: true, username: 'capacitacion', timestamp, empresa: 'E' };
    localStorage.setItem('session', JSON.stringify({ ...session, nombres: 'x'.repeat(500) }));
  });
  await page.goto(url(`${BASE}/VideoPlayer`));

  await expect(page).toHaveURL(url(`${BASE}/login`));
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  expect(await page.evaluate(() => window.__firstView?.shellVideoVisible)).toBe(true);
  await expect(page.locator('#video-shell')).toHaveCount(0);
  await expect(page.locator('video')).toHaveCount(0);
});
