/**
 * The download lasts into the field (OFFLINE_COPY_DAYS, 7 on these sites): the copy outlives the
 * session, plays with no signal from the login in one tap, says until when, goes at the end of
 * its period, and is the visitor's to keep or delete at the signout. A signout made with no
 * signal reaches the server when the link returns. Chromium against the real built servers, on
 * the single-MP4 site and a MEDIA_DIR site.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import {
  loginAndDownload,
  logout,
  playTo,
  recordOfAnotherPublish,
  reloadFromDevice,
  storedDownload,
} from './offline';
import { BASE, E2E_PASSWORD, url } from './site';
import { expectNoSeriousViolations } from './ui';

const SITES = [
  { name: 'the single-MP4 site', origin: () => url(''), adaptive: false },
  { name: 'a MEDIA_DIR site', origin: () => process.env.E2E_ADAPTIVE_ORIGIN!, adaptive: true },
];

// Each test downloads, reloads and plays: longer than the default on a busy machine.
test.describe.configure({ timeout: 60_000 });

const DAY_MS = 86_400_000;
// The last: Chromium's own log when the link drops while the service worker's script is on its
// way (register-worker.ts catches the failure; the worker comes at the next visit).
const OFFLINE_ERRORS =
  /ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch|An unknown error occurred when fetching the script/;

/** "3 de diciembre": the date the page shows, `days` from now, as the browser writes it. */
const dateIn = (page: Page, days: number) =>
  page.evaluate(
    (ms) =>
      new Date(Date.now() + ms).toLocaleDateString('es-AR', { day: 'numeric', month: 'long' }),
    days * DAY_MS,
  );

/** Logs in, downloads the default choice and waits until it is ready. */
async function downloaded(page: Page, origin: string) {
  await loginAndDownload(page, origin);
  await expect(
    page.getByText(`Disponible sin conexión hasta el ${await dateIn(page, 7)}.`),
  ).toBeVisible();
}

/**
 * The session over on both sides, as two hours later: the server's ended, and the stored one
 * 7,200 s old.
 */
async function sessionOver(page: Page, origin: string) {
  expect((await page.request.post(`${origin}/api/users/signout`)).status()).toBe(204);
  await page.evaluate(() => {
    const session = JSON.parse(localStorage.getItem('session')!) as { timestamp: number };
    session.timestamp -= 7200;
    localStorage.setItem('session', JSON.stringify(session));
  });
}

/**
 * Signs in on the single-MP4 site; the video as this session's cookie opens it, asked apart from
 * the page (a 206 while the session lives, a 401 once it is over).
 */
async function signedInVideo(page: Page, context: BrowserContext) {
  await page.goto(url(`${BASE}/login`));
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  return () => page.request.get(url('/api/video'), { headers: { cookie, range: 'bytes=0-1' } });
}

/** Opens the copy from the login, plays it, seeks near its end and sees it end. */
async function watchCopy(page: Page) {
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await page.getByRole('button', { name: 'Ver la copia guardada' }).click();
  await expect(
    page.getByText(/Copia guardada en este teléfono: se ve sin conexión hasta el/),
  ).toBeVisible();
  // Its source comes from the phone's storage once the screen is up.
  await expect
    .poll(() => page.locator('video.player__video').evaluate((v: HTMLVideoElement) => v.readyState))
    .toBeGreaterThanOrEqual(1);
  await playTo(page, 1);
  await page.locator('video.player__video').evaluate((element: HTMLVideoElement) => {
    element.currentTime = element.duration - 1.5;
  });
  await expect
    .poll(() => page.locator('video.player__video').evaluate((v: HTMLVideoElement) => v.ended), {
      timeout: 20_000,
    })
    .toBe(true);
}

async function offlineReload(page: Page, context: BrowserContext) {
  await reloadFromDevice(page, context);
}

for (const site of SITES)
  test.describe(site.name, () => {
    test('the session over and no signal: the copy plays from the login in one tap, seeks, and says until when', async ({
      page,
      context,
      consoleWatch,
    }) => {
      consoleWatch.allow(OFFLINE_ERRORS);
      await downloaded(page, site.origin());
      await sessionOver(page, site.origin());
      await offlineReload(page, context);
      await expect(page.getByText(`hasta el ${await dateIn(page, 7)}.`)).toBeVisible();
      await expectNoSeriousViolations(page);
      await watchCopy(page);
      await expectNoSeriousViolations(page);
      if (site.adaptive)
        await page.screenshot({ path: 'reports/screenshots/offline-copy-phone.png' });
      // Back at the login, the password is still the way in.
      await page.getByRole('button', { name: 'Volver al ingreso' }).click();
      await expect(page.getByLabel('Contraseña')).toBeVisible();
    });

    test('online, an ended session still needs the password for the video screen; the copy is offered beside it', async ({
      page,
    }) => {
      await downloaded(page, site.origin());
      await sessionOver(page, site.origin());
      await page.goto(`${site.origin()}${BASE}/VideoPlayer`);
      await expect(page).toHaveURL(`${site.origin()}${BASE}/login`);
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      await expect(
        page.getByText(/^Tiene una copia del video guardada en este teléfono/),
      ).toBeVisible();
      await expect(page.getByRole('button', { name: /^Hola / })).toHaveCount(0);
      await watchCopy(page);
    });

    test('past its period the copy is deleted, and the next visit says so', async ({
      page,
      context,
      consoleWatch,
    }) => {
      consoleWatch.allow(OFFLINE_ERRORS);
      await downloaded(page, site.origin());
      const until = await dateIn(page, 7);
      await sessionOver(page, site.origin());
      // The phone's clock, eight days on.
      await page.clock.install({ time: Date.now() + 8 * DAY_MS });
      await offlineReload(page, context);
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      await expect(
        page.getByText(
          `La copia del video guardada en este teléfono venció el ${until} y se borró.`,
        ),
      ).toBeVisible();
      await expect(page.getByRole('button', { name: 'Ver la copia guardada' })).toHaveCount(0);
      await expect.poll(() => storedDownload(page)).toEqual([]);
    });

    test('the signout asks about the copy: kept, it plays offline after; deleted, it is gone', async ({
      page,
      context,
      consoleWatch,
    }) => {
      consoleWatch.allow(OFFLINE_ERRORS);
      await downloaded(page, site.origin());
      await logout(page);
      const choice = page.getByRole('alertdialog', {
        name: '¿Qué hacemos con la copia descargada?',
      });
      await expect(choice).toBeVisible();
      await expect(
        choice.getByRole('button', { name: 'Conservar la copia y cerrar sesión' }),
      ).toBeFocused();
      await expectNoSeriousViolations(page);
      if (site.adaptive)
        await page.screenshot({ path: 'reports/screenshots/offline-choice-phone.png' });
      await choice.getByRole('button', { name: 'Cancelar' }).click();
      await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();

      await logout(page);
      await page.getByRole('button', { name: 'Conservar la copia y cerrar sesión' }).click();
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      expect((await storedDownload(page)).length).toBeGreaterThan(0);
      await offlineReload(page, context);
      await watchCopy(page);

      await context.setOffline(false);
      await page.goto(`${site.origin()}${BASE}/login`);
      await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      await expect(page.getByText('Lista para ver sin conexión')).toBeVisible({ timeout: 20_000 });
      await logout(page);
      await page.getByRole('button', { name: 'Borrar la copia y cerrar sesión' }).click();
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      await expect.poll(() => storedDownload(page)).toEqual([]);
    });
  });

test('a signout with no signal reaches the server when the link returns: the old cookie opens nothing', async ({
  page,
  context,
  consoleWatch,
}) => {
  consoleWatch.allow(OFFLINE_ERRORS);
  const video = await signedInVideo(page, context);
  expect((await video()).status()).toBe(206);

  await context.setOffline(true);
  await logout(page);
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  // Nothing reached the server: the cookie still opens the video.
  expect((await video()).status()).toBe(206);
  await context.setOffline(false);
  await expect.poll(async () => (await video()).status(), { timeout: 10_000 }).toBe(401);
});

test('a page that starts with no session of its own ends the one the server still holds', async ({
  page,
  context,
}) => {
  const video = await signedInVideo(page, context);
  // The stored session gone some other way (an old one dropped at start, a cleared key).
  await page.evaluate(() => localStorage.removeItem('session'));
  await page.reload();
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await expect.poll(async () => (await video()).status(), { timeout: 10_000 }).toBe(401);
});

test('a copy of an older publish plays on and the screen says a newer one exists', async ({
  page,
}) => {
  const origin = process.env.E2E_ADAPTIVE_ORIGIN!;
  await downloaded(page, origin);
  await recordOfAnotherPublish(page);
  await page.reload();
  await expect(
    page.getByText('Hay una versión más nueva del video; la copia guardada es de la anterior.'),
  ).toBeVisible({ timeout: 20_000 });
  expect((await storedDownload(page)).length).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Borrar la copia anterior' }).click();
  await expect(
    page.getByRole('button', { name: /^Descargar para ver sin conexión \(≈ \d+ MB\)$/ }),
  ).toBeVisible();
  await expect.poll(() => storedDownload(page)).toEqual([]);
});

test('a copy the browser evicted is said to be gone, never shown as a broken player', async ({
  page,
  context,
  consoleWatch,
}) => {
  consoleWatch.allow(OFFLINE_ERRORS);
  const origin = process.env.E2E_ADAPTIVE_ORIGIN!;
  await downloaded(page, origin);
  // Part of it evicted: a segment gone.
  await page.evaluate(async () => {
    for (const name of await caches.keys()) {
      if (!name.startsWith('offline-video:')) continue;
      const cache = await caches.open(name);
      const segment = (await cache.keys()).find((request) => request.url.endsWith('.m4s'));
      await cache.delete(segment!);
    }
  });
  await sessionOver(page, origin);
  await reloadFromDevice(page, context);
  await page.getByRole('button', { name: 'Ver la copia guardada' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    /^La copia guardada ya no está completa en este teléfono/,
  );
  await expect.poll(() => storedDownload(page)).toEqual([]);

  // All of it evicted, with the site's note kept: the next visit says so.
  await context.setOffline(false);
  await downloaded(page, origin);
  await page.evaluate(async () => {
    for (const name of await caches.keys())
      if (name.startsWith('offline-video:')) await caches.delete(name);
  });
  await page.reload();
  await expect(
    page.getByText(/^La copia del video guardada en este teléfono ya no está/),
  ).toBeVisible({ timeout: 20_000 });
  await expect(
    page.getByRole('button', { name: /^Descargar para ver sin conexión/ }),
  ).toBeVisible();
});
