/**
 * With OFFLINE_COPY_DAYS=0 the download belongs to the session that made it: each way a session
 * ends deletes the stored video, captions, chapters and poster at once, online or offline, on the
 * single-MP4 site and on a MEDIA_DIR site. Chromium against the real built servers. (With a
 * period of its own, the default, the copy outlives the session: e2e/offline-copy.spec.ts.)
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { loginAndDownload, logout, recordOfAnotherPublish, storedDownload } from './offline';
import { BASE, SESSION_TIMEOUT_MS } from './site';

const SITES = [
  { name: 'the single-MP4 site', origin: () => process.env.E2E_SESSION_COPY_ORIGIN! },
  { name: 'a MEDIA_DIR site', origin: () => process.env.E2E_ADAPTIVE_SESSION_COPY_ORIGIN! },
];

/** Logs in, downloads the default choice and waits until it is ready. */
async function downloaded(page: Page, origin: string) {
  await loginAndDownload(page, origin);
  const stored = await storedDownload(page);
  expect(stored.some((u) => u.endsWith('/poster.jpg'))).toBe(true);
  expect(stored.some((u) => u.endsWith('/captions.vtt'))).toBe(true);
}

async function expectDeleted(page: Page) {
  await expect.poll(() => storedDownload(page)).toEqual([]);
}

for (const site of SITES)
  test.describe(site.name, () => {
    test('the logout button deletes the download', async ({ page }) => {
      await downloaded(page, site.origin());
      await logout(page);
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      await expectDeleted(page);
    });

    test('the session timer deletes the download', async ({ page }) => {
      await page.clock.install();
      await downloaded(page, site.origin());
      await page.clock.fastForward(SESSION_TIMEOUT_MS);
      await expect(page.getByText(/Su sesión expiró/)).toBeVisible();
      await expectDeleted(page);
    });

    test("another tab's logout deletes the download here", async ({ page, context }) => {
      await downloaded(page, site.origin());
      // The other tab removes the stored session; its own machine sees no storage event, so
      // only this page's machine (logged out by the event) can have deleted the download.
      const other = await context.newPage();
      await other.goto(`${site.origin()}${BASE}/login`);
      await other.evaluate(() => localStorage.removeItem('session'));
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      await expectDeleted(page);
    });

    test('a stored session found expired at start deletes the download, with the network off: the login, never the video', async ({
      page,
      context,
      consoleWatch,
    }) => {
      await downloaded(page, site.origin());
      await page.evaluate(() => {
        const session = JSON.parse(localStorage.getItem('session')!) as { timestamp: number };
        session.timestamp -= 7200;
        localStorage.setItem('session', JSON.stringify(session));
      });
      await context.setOffline(true);
      consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
      await page.reload();
      await expect(page.getByLabel('Contraseña')).toBeVisible();
      await expect(page.locator('video')).toHaveCount(0);
      await expectDeleted(page);
    });

    test('the server refusing the video (401) deletes the download', async ({
      page,
      consoleWatch,
    }) => {
      consoleWatch.allow(/status of 401/);
      await downloaded(page, site.origin());
      // A signout elsewhere ends the server's session, not this page's.
      expect((await page.request.post(`${site.origin()}/api/users/signout`)).ok()).toBe(true);
      await page.reload();
      await expect(page.getByText(/Su sesión expiró/)).toBeVisible({ timeout: 15_000 });
      await expectDeleted(page);
    });
  });

test('a download of an older publish is deleted and the new one offered', async ({ page }) => {
  const origin = process.env.E2E_ADAPTIVE_SESSION_COPY_ORIGIN!;
  await downloaded(page, origin);
  await recordOfAnotherPublish(page);
  await page.reload();
  await expect(
    page.getByRole('button', { name: /^Descargar para ver sin conexión \(≈ \d+ MB\)$/ }),
  ).toBeVisible({ timeout: 20_000 });
  await expectDeleted(page);
});
