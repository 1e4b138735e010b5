/**
 * What index.html shows before the app runs, in Chromium: the login prerendered in #root, and
 * for a returning visitor the video screen, prerendered in a template that the boot script puts
 * in its place; React then hydrates that very markup, video included, without replacing it.
 * Runs in the `desktop` and `phone` projects.
 */
import { expect, login, test } from './fixtures';
import { BASE, url } from './site';
import { expectPlaysOn } from './ui';

interface FirstView {
  loginVisible: boolean;
  videoVisible: boolean;
  greeting: string | null;
}

declare global {
  interface Window {
    __firstView?: FirstView;
    __firstVideo?: HTMLVideoElement | null;
  }
}

/** Runs in the page: what is on screen once the HTML is parsed, before any module script. */
function recordFirstView() {
  document.addEventListener('readystatechange', () => {
    if (document.readyState !== 'interactive') return;
    const visible = (element: Element | null) => element?.checkVisibility() ?? false;
    window.__firstVideo = document.querySelector<HTMLVideoElement>('#root video');
    window.__firstView = {
      loginVisible: visible(document.getElementById('password')),
      videoVisible: visible(window.__firstVideo),
      greeting: document.querySelector('#root .session-button')?.textContent ?? null,
    };
  });
}

test('a returning visitor sees the video screen before the app runs, and React keeps that video', async ({
  page,
}) => {
  await login(page);
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  await page.addInitScript(recordFirstView);
  await page.reload();

  const button = page.getByRole('button', { name: /^Hola / });
  await expect(button).toBeEnabled();
  const first = await page.evaluate(() => window.__firstView);
  expect(first).toMatchObject({ loginVisible: false, videoVisible: true });
  expect(first?.greeting).toBe(await button.textContent());
  await expect(page.locator('video')).toHaveCount(1);
  // Hydrated, not replaced: the element that started loading before the app is the one playing.
  expect(
    await page.evaluate(() => document.querySelector('#root video') === window.__firstVideo),
  ).toBe(true);
  await expect(page.locator('video')).toBeVisible();
});

test('the app hydrates the prerendered screens without a mismatch', async ({
  page,
  consoleWatch,
}) => {
  // React reports a hydration mismatch as a console error (and would re-render the screen).
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByRole('button', { name: 'Ingresar' })).toBeEnabled();
  await login(page);
  await expect(page.getByRole('button', { name: /^Hola / })).toBeEnabled();
  // A video that loads is no problem: no message, whether React made it or adopted it.
  const noProblem = async () => {
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
    await page.waitForLoadState('networkidle');
    await expect(page.getByRole('alert')).toHaveCount(0);
  };
  await noProblem();
  await page.reload();
  await noProblem();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeEnabled();
  // The prerendered video screen carries no test hooks and no second copy of any element.
  await expect(page.locator('[data-testid]')).toHaveCount(0);
  expect(consoleWatch.errors).toEqual([]);
});

test('a stored session the app refuses shows the login form, not the video screen', async ({
  page,
  consoleWatch,
}) => {
  // This visitor has no session cookie: the video, poster and captions are refused.
  consoleWatch.allow(/status of 401/);
  await page.addInitScript(recordFirstView);
  await page.addInitScript(() => {
    // A session from a browser that has none on the server: the boot script shows the video
    // screen; the server refuses the video, which ends the session at the login.
    const timestamp = Math.floor(Date.now() / 1000) - 60;
    const session = { loggedIn: true, username: 'capacitacion', timestamp, empresa: 'E' };
    localStorage.setItem('session', JSON.stringify({ ...session, nombres: 'N' }));
  });
  await page.goto(url(`${BASE}/VideoPlayer`));

  expect(await page.evaluate(() => window.__firstView?.videoVisible)).toBe(true);
  await expect(page).toHaveURL(url(`${BASE}/login`));
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await expect(page.getByText('Su sesión expiró')).toBeVisible();
  await expect(page.locator('video')).toHaveCount(0);
});

test('a browser that blocks site data (reading localStorage throws) still gets a working login, and the video', async ({
  page,
  consoleWatch,
}) => {
  // What Chromium does with "Block sites from saving data": the property itself throws.
  consoleWatch.allow(/localStorage|Access is denied/);
  await page.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException(
          "Failed to read the 'localStorage' property from 'Window': Access is denied for this document.",
          'SecurityError',
        );
      },
    });
  });
  await login(page);
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  await expectPlaysOn(page);
});

declare global {
  interface Window {
    __frames?: string[];
  }
}

/** Runs in the page: what #root shows at each frame, from the first one, with repeats dropped. */
function recordFrames() {
  const frames: string[] = (window.__frames = []);
  const seen = () => {
    const root = document.getElementById('root');
    if (!root) return 'no root yet';
    if (root.querySelector('video')) return 'video screen';
    if (root.querySelector('main.login form')?.checkVisibility({ visibilityProperty: true }))
      return 'login';
    if (root.textContent?.includes('Cargando el video')) return 'loading message';
    return root.children.length ? `other: ${root.innerHTML.slice(0, 80)}` : 'empty';
  };
  const frame = () => {
    const now = seen();
    // Before #root is parsed the page is its background: nothing of either screen yet.
    if (frames.at(-1) !== now && now !== 'no root yet') frames.push(now);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

test('from the press to the video screen every frame shows the login or the video screen: no empty page, no loading page', async ({
  page,
}) => {
  // The video screen's chunk comes after the signin's answer, as on a slow link.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/video-player-screen-[^/]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  const signedIn = page.waitForResponse(/\/api\/users\/signin$/);
  await page.addInitScript(recordFrames);
  await login(page);
  await signedIn;
  // Long enough for several frames with the answer in and the chunk still out.
  await page.waitForTimeout(500);
  release();
  await expect(page.locator('video')).toBeVisible();
  expect(await page.evaluate(() => window.__frames)).toEqual(['login', 'video screen']);
});

test("a returning visitor's first painted frame is the video screen, never the login", async ({
  page,
}) => {
  await login(page);
  await expect(page.locator('video')).toBeVisible();
  await page.addInitScript(recordFrames);
  await page.reload();
  await expect(page.locator('video')).toBeVisible();
  // A frame may come before the boot script has run (the parser waits for the rest of the
  // page): the login is hidden then, never painted.
  const frames = await page.evaluate(() => window.__frames);
  expect(frames).not.toContain('login');
  expect(frames?.at(-1)).toBe('video screen');
});
