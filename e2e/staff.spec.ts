/**
 * The staff page in a real browser (docs/staff-page.md): a staff member signs in with the staff
 * password, reads the report, chooses a period; no script, no CSP violation, nothing wider than
 * the screen. Takes docs/screenshots/staff-{phone,desktop}.png.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { EventsReport, ViewReport } from '../config/field-report';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { FileReportStore } from '../server/file-report-store';
import { hashPassword } from '../server/password';
import { DAY_MS } from '../server/report-store';
import { expect, test } from './fixtures';
import { BASE, siteEnv } from './site';

const STAFF_PASSWORD = 'clave-del-equipo-e2e';
const PAGE = `${BASE}/equipo`;
const VIDEO_S = 73;

const id = () => randomBytes(16).toString('base64url');
const BROWSERS = [
  { family: 'chrome', major: 131, engine: 'blink' },
  { family: 'safari', major: 17, engine: 'webkit' },
  { family: 'chrome', major: 131, engine: 'blink' },
  { family: 'samsung', major: 25, engine: 'blink' },
  { family: 'firefox', major: 128, engine: 'gecko' },
] as const;
const RENDITIONS = ['240p', '360p', '360p', '480p', '720p'];

/** A month of views, most of them this week: an audience that thins out as the video goes on. */
async function fillReports(dir: string) {
  const now = Date.now();
  for (const [ageDays, count] of [
    [20, 6],
    [2, 34],
  ] as const) {
    const store = new FileReportStore({
      dir,
      retentionMs: 365 * DAY_MS,
      now: () => now - ageDays * DAY_MS,
    });
    for (let i = 0; i < count; i += 1) {
      const stop = Math.min(VIDEO_S, 12 + ((i * 37) % 62) + (i % 3 === 0 ? 30 : 0));
      const view: ViewReport = {
        format: 1,
        id: id(),
        browser: BROWSERS[i % BROWSERS.length]!,
        device: i % 4 === 3 ? 'desktop' : 'phone',
        kind: 'view',
        view: id(),
        part: 0,
        durationS: VIDEO_S + 0.04,
        firstFrameMs: 700 + ((i * 211) % 3300),
        offline: i % 9 === 4,
        stalls: i % 5 === 0 ? 2 : 0,
        stallS: i % 5 === 0 ? 3.5 : 0,
        seeks: i % 6 === 0 ? 1 : 0,
        mediaBytes: 900_000 + i * 10_000,
        renditions: { [RENDITIONS[i % RENDITIONS.length]!]: stop },
        seen: i % 6 === 0 && stop > 30 ? [[21, stop]] : [[0, stop]],
      };
      await store.add(`device-${ageDays}-${i}`, view);
    }
    const events: EventsReport = {
      format: 1,
      id: id(),
      browser: BROWSERS[0],
      device: 'phone',
      kind: 'events',
      events: [
        { type: 'download', outcome: 'started', rendition: '360p', bytes: 0 },
        { type: 'download', outcome: 'finished', rendition: '360p', bytes: 14_200_000 },
        { type: 'vital', name: 'LCP', metric: `v5-${ageDays}-lcp`, value: 2300 },
        { type: 'vital', name: 'INP', metric: `v5-${ageDays}-inp`, value: 240 },
        { type: 'vital', name: 'CLS', metric: `v5-${ageDays}-cls`, value: 0.02 },
        { type: 'vital', name: 'FCP', metric: `v5-${ageDays}-fcp`, value: 1500 },
        { type: 'vital', name: 'TTFB', metric: `v5-${ageDays}-ttfb`, value: 950 },
      ],
    };
    await store.add(`device-${ageDays}-events`, events);
    await store.close();
  }
}

let server: RunningServer;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'staff-e2e-'));
  await fillReports(dataDir);
  server = await startServer(
    await siteEnv({
      DATA_DIR: dataDir,
      STAFF_PASSWORD_HASH: await hashPassword(STAFF_PASSWORD, { N: 2 ** 14, r: 8, p: 1 }),
    }),
  );
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const figure = (page: Page, label: string) =>
  page
    .locator('.figure', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd');

/** Nothing on the page is wider than the screen. */
const fitsWidth = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test('a staff member signs in with the staff password, reads the report and chooses a period', async ({
  page,
  browser,
  consoleWatch,
}) => {
  // A server of its own, two browser contexts and two screenshots on a small machine.
  test.setTimeout(60_000);
  // The form's own answers: 401 before signing in and for the wrong password.
  consoleWatch.allow(/status of 401/);
  const response = await page.goto(`${server.origin}${PAGE}`);
  expect(response?.status()).toBe(401);
  expect(response?.headers()['x-robots-tag']).toBe('noindex, nofollow');
  await page.getByLabel('Contraseña del equipo').fill('no-es-esta');
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('alert')).toHaveText('Contraseña incorrecta.');

  await page.getByLabel('Contraseña del equipo').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('heading', { name: 'Informe de visitas' })).toBeVisible();
  await expect(figure(page, 'Visitas')).toHaveText(/^40/);
  expect(await page.locator('script').count()).toBe(0);

  await page.getByLabel('Período').selectOption('7');
  await page.getByRole('button', { name: 'Ver' }).click();
  await expect(page).toHaveURL(/periodo=7/);
  await expect(figure(page, 'Visitas')).toHaveText(/^34/);
  const graph = page.getByRole('img', { name: 'Segundos vistos' });
  await expect(graph).toBeVisible();
  await expect(graph.locator('rect.bar')).toHaveCount(VIDEO_S);
  expect(await fitsWidth(page)).toBe(true);
  // The phone's picture: the engagement graph whole, with its chapters below.
  await page
    .locator('section', { has: page.getByRole('heading', { name: 'Segundos vistos' }) })
    .evaluate((section) => section.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: 'docs/screenshots/staff-phone.png' });

  // The same staff cookie on a desktop.
  const desktop = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
    locale: 'es-AR',
    storageState: await page.context().storageState(),
  });
  const wide = await desktop.newPage();
  await wide.goto(`${server.origin}${PAGE}?periodo=7`);
  await expect(wide.getByRole('img', { name: 'Segundos vistos' })).toBeVisible();
  expect(await fitsWidth(wide)).toBe(true);
  await wide.screenshot({ path: 'docs/screenshots/staff-desktop.png', fullPage: true });
  await desktop.close();

  await page.getByRole('button', { name: 'Salir' }).click();
  await expect(page.getByLabel('Contraseña del equipo')).toBeVisible();
});
