/**
 * spec.md §2–§8, line by line, where the model's paths do not already check it. Runs at
 * 1280×800 and at 390×844 (the `desktop` and `phone` projects).
 */
import type { Page, Request } from '@playwright/test';
import { EMPRESA, NOMBRES, USERNAME } from '../tests/model/model';
import { expect, login, test } from './fixtures';
import { BASE, E2E_PASSWORD, WRONG_PASSWORD, url } from './site';
import { MESSAGES, expectRed, readStoredSession } from './ui';

const GREETING = `Hola ${NOMBRES} / ${EMPRESA}`;

const signinRequests = (page: Page) => {
  const seen: Request[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/users/signin')) seen.push(request);
  });
  return seen;
};

test.describe('login screen (spec §2, §5)', () => {
  test('shows the company logo', async ({ page }) => {
    await page.goto(url(`${BASE}/login`));
    const logo = page.getByRole('img', { name: /logo/i });
    await expect(logo).toBeVisible();
    expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  });

  test('has a hidden, read-only user field holding the shared username', async ({ page }) => {
    await page.goto(url(`${BASE}/login`));
    const user = page.locator('input[autocomplete="username"]');
    await expect(user).toHaveCount(1);
    await expect(user).toBeHidden();
    await expect(user).toHaveValue(USERNAME);
    expect(await user.evaluate((input: HTMLInputElement) => input.readOnly)).toBe(true);
  });

  test('has a required password field labelled "Contraseña" with its placeholder', async ({
    page,
  }) => {
    await page.goto(url(`${BASE}/login`));
    const password = page.getByLabel('Contraseña');
    await expect(password).toHaveAttribute('type', 'password');
    await expect(password).toHaveAttribute('placeholder', 'Ingresar contraseña');
    await expect(password).toHaveAttribute('required', '');
    await expect(page.getByRole('button', { name: 'Ingresar' })).toBeVisible();
  });

  test('does nothing on an empty password: no call, no message', async ({ page }) => {
    const requests = signinRequests(page);
    await page.goto(url(`${BASE}/login`));
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await page.getByLabel('Contraseña').press('Enter');
    await page.waitForTimeout(300);
    expect(requests).toHaveLength(0);
    await expect(page.getByText(MESSAGES.wrongPassword)).toHaveCount(0);
    await expect(page.getByText(MESSAGES.loading)).toHaveCount(0);
    await expect(page).toHaveURL(url(`${BASE}/login`));
  });

  test('sends { form: { usuario, contraseña } } by POST to {api}/api/users/signin', async ({
    page,
  }) => {
    const requests = signinRequests(page);
    await login(page);
    await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method()).toBe('POST');
    expect(request!.url()).toBe(url('/api/users/signin'));
    expect(request!.headers()['content-type']).toContain('application/json');
    expect(request!.postDataJSON()).toEqual({
      form: { usuario: USERNAME, contraseña: E2E_PASSWORD },
    });
  });

  test('shows a red "Cargando..." while the request is in flight, and sends it once', async ({
    page,
  }) => {
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/users/signin', async (route) => {
      await answered;
      await route.continue();
    });
    const requests = signinRequests(page);
    await page.goto(url(`${BASE}/login`));
    await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await expectRed(page.getByText(MESSAGES.loading, { exact: true }));
    for (let i = 0; i < 3; i++) {
      await page.getByRole('button', { name: 'Ingresar' }).click();
      await page.getByLabel('Contraseña').press('Enter');
    }
    release();
    await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
    expect(requests).toHaveLength(1);
  });

  test('shows a red "Error, contraseña incorrecta" on a wrong password and stops loading', async ({
    page,
    consoleWatch,
  }) => {
    consoleWatch.allow(/401/);
    await login(page, WRONG_PASSWORD);
    await expectRed(page.getByText(MESSAGES.wrongPassword));
    await expect(page.getByText(MESSAGES.loading)).toHaveCount(0);
    expect(await readStoredSession(page)).toBeNull();
  });

  test('saves the session with its five fields and goes to the video on success', async ({
    page,
  }) => {
    const before = Math.floor(Date.now() / 1000);
    await login(page);
    await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
    const session = await readStoredSession(page);
    expect(session).toEqual({
      loggedIn: true,
      username: USERNAME,
      timestamp: expect.any(Number),
      empresa: EMPRESA,
      nombres: NOMBRES,
    });
    expect(Number.isInteger(session!.timestamp)).toBe(true);
    expect(session!.timestamp).toBeGreaterThanOrEqual(before);
  });
});

test.describe('routes (spec §2, §6)', () => {
  test('sends a visitor who is not logged in from VideoPlayer to the login', async ({ page }) => {
    await page.goto(url(`${BASE}/VideoPlayer`));
    await expect(page).toHaveURL(url(`${BASE}/login`));
  });

  for (const path of ['/', '/otra-cosa', `${BASE}`, `${BASE}/`, `${BASE}/no-existe/ni/esto`]) {
    test(`redirects ${path} to the login route`, async ({ page }) => {
      await page.goto(url(path));
      await expect(page).toHaveURL(url(`${BASE}/login`));
      await expect(page.getByLabel('Contraseña')).toBeVisible();
    });
  }
});

test.describe('VideoPlayer screen (spec §2)', () => {
  test.beforeEach(async ({ page }) => {
    await login(page);
    await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
  });

  test('has a top bar, a banner image and a video with controls', async ({ page }) => {
    await expect(page.getByRole('banner')).toBeVisible();
    const banner = page.getByRole('img', { name: /silo/i });
    await expect(banner).toBeVisible();
    // Loaded: the screen may be on the page before its image is (the boot script shows it).
    await expect
      .poll(() => banner.evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBeGreaterThan(0);
    const video = page.locator('video');
    await expect(video).toBeVisible();
    expect(await video.evaluate((v: HTMLVideoElement) => v.controls)).toBe(true);
  });

  test('sizes the player 60vh high and 100vh wide, never wider than the window', async ({
    page,
  }) => {
    const box = await page.locator('video').evaluate((v) => {
      const rect = v.getBoundingClientRect();
      return { width: rect.width, height: rect.height, vw: innerWidth, vh: innerHeight };
    });
    expect(box.height).toBeCloseTo(0.6 * box.vh, 0);
    expect(box.width).toBeCloseTo(Math.min(box.vh, box.vw), 0);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scroll).toBeLessThanOrEqual(box.vw);
  });

  test('plays the training video and seeks in it', async ({ page }) => {
    const video = page.locator('video');
    await video.evaluate(async (v: HTMLVideoElement) => {
      v.muted = true;
      await v.play();
    });
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime))
      .toBeGreaterThan(0.5);
    const target = await video.evaluate((v: HTMLVideoElement) => {
      v.currentTime = v.duration * 0.8;
      return v.duration * 0.8;
    });
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime))
      .toBeGreaterThan(target + 0.2);
    expect(await video.evaluate((v: HTMLVideoElement) => v.error)).toBeNull();
  });

  test('greets with "Hola {nombres} / {empresa}" and reads "Cerrar sesion" while hovered, at a fixed width', async ({
    page,
  }) => {
    const button = page.getByRole('button', { name: GREETING });
    await expect(button).toBeVisible();
    // The width of the initial label alone, measured on a copy with an automatic width.
    const { width, natural } = await button.evaluate((element: HTMLElement) => {
      const copy = element.cloneNode(true) as HTMLElement;
      copy.style.width = 'auto';
      copy.style.position = 'absolute';
      copy.style.visibility = 'hidden';
      element.parentElement!.appendChild(copy);
      const natural = copy.getBoundingClientRect().width;
      copy.remove();
      return { width: element.getBoundingClientRect().width, natural };
    });
    expect(width).toBeCloseTo(natural + 10, 0);

    await button.hover();
    const hovered = page.getByRole('button', { name: 'Cerrar sesion' });
    await expect(hovered).toBeVisible();
    const hoveredWidth = await hovered.evaluate((e) => e.getBoundingClientRect().width);
    expect(hoveredWidth).toBeCloseTo(width, 1);

    await hovered.click();
    await expect(page).toHaveURL(url(`${BASE}/login`));
    expect(await readStoredSession(page)).toBeNull();
  });

  test('makes the background element follow the window size', async ({ page }) => {
    const background = page.locator('.video-screen__background');
    const size = () => background.evaluate((e) => e.getBoundingClientRect());
    const before = await size();
    expect(before.width).toBeCloseTo(page.viewportSize()!.width, 0);
    await page.setViewportSize({ width: 700, height: 500 });
    await expect.poll(async () => (await size()).width).toBeCloseTo(700, 0);
    expect((await size()).height).toBeCloseTo(500, 0);
  });
});

test.describe('calls (spec §7)', () => {
  test('makes no request for the web-vitals helper, nor any other request it does not need', async ({
    page,
  }) => {
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await login(page);
    await expect(page.locator('video')).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(requests.filter((u) => /web-vitals|onCLS|getCLS/i.test(u))).toEqual([]);
    const outside = requests.filter((u) => !u.startsWith(url('')));
    expect(outside).toEqual([]);
  });

  test('loads the video from the server by URL, as a media request with Range', async ({
    page,
  }) => {
    const ranges: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/video') && request.resourceType() === 'media')
        ranges.push(request.headers()['range'] ?? 'none');
    });
    await login(page);
    await expect(page.locator('video')).toBeVisible();
    await expect.poll(() => ranges.length).toBeGreaterThan(0);
    expect(ranges[0]).toMatch(/^bytes=/);
  });
});
