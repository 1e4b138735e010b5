/**
 * The reports a phone sends (docs/field-reports.md), proved in Chromium against the real built
 * server and read back from the store it writes (DATA_DIR), summed by the staff page's own
 * summary (server/report-summary.ts). The "0-20, seek to 60, 60-70" of a 90 s video is
 * here 0-5, seek to 16, 16-19 of the 24 s test clip: the same shares of the video.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import type { ViewReport } from '../config/field-report';
import { publishTestClip } from '../scripts/test-support/test-clip';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { REPORTS_FILE } from '../server/file-report-store';
import { parseStored, type StoredReport } from '../server/report-store';
import { summarize } from '../server/report-summary';
import { expect, test } from './fixtures';
import { loginAndDownload, logout, reloadFromDevice, workerInControl } from './offline';
import { BASE, E2E_PASSWORD, siteEnv } from './site';

let server: RunningServer;
let dataDir: string;
let mediaDir: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'field-report-e2e-'));
  mediaDir = (await publishTestClip(24)).dir;
  server = await startServer(await siteEnv({ MEDIA_DIR: mediaDir, DATA_DIR: dataDir }));
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(dirname(mediaDir), { recursive: true, force: true });
});

// Two visits of a video that plays in real time, and a download.
test.describe.configure({ timeout: 90_000 });

/** Every report the server stored, as it stored them. */
function stored(): StoredReport[] {
  let text = '';
  try {
    text = readFileSync(join(dataDir, REPORTS_FILE), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => parseStored(line) ?? []);
}

const views = (since: number) =>
  stored().flatMap(({ at, report }) =>
    report.kind === 'view' && at >= since ? [report as ViewReport] : [],
  );

const video = (page: Page) => page.locator('video.player__video');

/** Plays (muted) until the video is at `to` seconds, then pauses there. */
async function watchTo(page: Page, to: number) {
  await video(page).evaluate(
    (element: HTMLVideoElement, target) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (element.currentTime < target) return;
          element.pause();
          element.removeEventListener('timeupdate', check);
          resolve();
        };
        element.addEventListener('timeupdate', check);
        element.muted = true;
        void element.play().catch(() => {});
      }),
    to,
  );
}

async function seekTo(page: Page, to: number) {
  await video(page).evaluate(
    (element: HTMLVideoElement, target) =>
      new Promise((resolve) => {
        element.addEventListener('seeked', resolve, { once: true });
        element.currentTime = target;
      }),
    to,
  );
}

async function signIn(page: Page) {
  await page.goto(`${server.origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
}

test('a visitor watches 0-5, skips to 16, watches to 19 and leaves: the report counts exactly those seconds, once', async ({
  page,
  context,
}) => {
  const since = Date.now();
  await signIn(page);
  await watchTo(page, 5);
  await seekTo(page, 16);
  await watchTo(page, 19);
  // Nothing of this view travels while the visitor watches.
  expect(views(since)).toEqual([]);
  // Closing the tab: the page beacons the view, and keeps it until a flush confirms it (a
  // beacon's answer cannot be read). (Navigating to another page instead, headless Chromium
  // lost about half of the beacons: docs/benchmarks.md.)
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => views(since).length, { timeout: 10_000 }).toBe(1);
  page = await context.newPage();
  // Back: the kept copy goes again, with the same id, and the server keeps it once.
  const resent: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/reports')) resent.push(request.postData() ?? '');
  });
  await page.goto(`${server.origin}${BASE}/VideoPlayer`);
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem('field-reports')), { timeout: 20_000 })
    .toBeNull();
  const [view, ...others] = views(since);
  expect(others).toEqual([]);
  expect(resent.map((body) => (JSON.parse(body) as { id: string }).id)).toContain(view!.id);
  expect(view).toMatchObject({
    part: 0,
    seen: [
      [0, 5],
      [16, 19],
    ],
    seeks: 1,
    stalls: 0,
    browser: { family: 'chrome', engine: 'blink' },
  });
  expect(view!.firstFrameMs).toBeGreaterThan(0);
  expect(view!.firstFrameMs).toBeLessThan(15_000);
  // A first visit's page came from the network.
  expect(view!.fromWorker).toBeUndefined();
  expect(view!.mediaBytes).toBeGreaterThan(0);
  expect(Object.keys(view!.renditions).length).toBeGreaterThan(0);

  const summary = await summarize(stored(), { since, until: Date.now() }, null);
  expect(summary.views).toBe(1);
  const seconds = summary.secondsWatched;
  expect(seconds).toHaveLength(24);
  expect(seconds.map((count, second) => (count ? second : null)).filter((s) => s !== null)).toEqual(
    [0, 1, 2, 3, 4, 16, 17, 18],
  );
  expect(Math.max(...seconds)).toBe(1);
  console.log(
    `a view's report: ${JSON.stringify(view).length} bytes for ${view!.mediaBytes} media bytes`,
  );
});

test('the downloaded copy watched with no signal is counted, as an offline view, when the link returns', async ({
  page,
  context,
  consoleWatch,
}) => {
  consoleWatch.allow(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch/);
  await loginAndDownload(page, server.origin);
  const since = Date.now();
  // No signal, and the page reloaded from what the phone kept: the copy plays.
  await reloadFromDevice(page, context);
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await watchTo(page, 3);
  await seekTo(page, 10);
  await watchTo(page, 13);
  // The view ends with no signal: kept on the phone, nothing reaches the server.
  await page.reload();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await expect
    .poll(() => video(page).evaluate((element: HTMLVideoElement) => element.readyState))
    .toBeGreaterThanOrEqual(2);
  expect(views(since).filter((view) => view.offline)).toEqual([]);

  await context.setOffline(false);
  await expect
    .poll(() => views(since).filter((view) => view.offline).length, { timeout: 20_000 })
    .toBe(1);
  const [offline] = views(since).filter((view) => view.offline);
  expect(offline!.seen).toEqual([
    [0, 3],
    [10, 13],
  ]);
  const summary = await summarize(stored(), { since, until: Date.now() }, null);
  expect(summary.offlineViews).toBe(1);
  // The download itself, reported from the video screen where it was made.
  const all = await summarize(stored(), { since: 0, until: Date.now() }, null);
  expect(all.downloads).toMatchObject({ started: 1, finished: 1, cancelled: 0, noRoom: 0 });
});

test("a return whose page the service worker served says so in its view's report", async ({
  page,
}) => {
  await signIn(page);
  await workerInControl(page);
  const since = Date.now();
  await page.goto(`${server.origin}${BASE}/VideoPlayer`);
  await watchTo(page, 2);
  await page.close({ runBeforeUnload: true });
  // The first visit's view (a first frame, nothing seen) may arrive too, as the page leaves.
  const watched = () => views(since).filter((view) => view.seen.length > 0);
  await expect.poll(() => watched().length, { timeout: 10_000 }).toBe(1);
  const [view] = watched();
  expect(view).toMatchObject({ part: 0, fromWorker: true, seen: [[0, 2]] });
  // On a return the first frame counts from the navigation.
  expect(view!.firstFrameMs).toBeGreaterThan(0);
});

test('a visitor who watches 0-4 and logs out: signed out the phone sends nothing; the view goes with the next signin', async ({
  page,
}) => {
  const since = Date.now();
  const posted: number[] = [];
  page.on('response', (response) => {
    if (response.url().endsWith('/api/reports')) posted.push(response.status());
  });
  await signIn(page);
  await watchTo(page, 4);
  await logout(page);
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  // Kept on the phone; nothing that would earn a 401 (the console watch refuses any).
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem('field-reports')))
    .toContain('"seen":[[0,4]]');
  expect(posted.filter((status) => status === 401)).toEqual([]);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible();
  await expect
    .poll(() => views(since).filter((view) => view.seen.length > 0), { timeout: 20_000 })
    .toMatchObject([{ part: 0, seen: [[0, 4]] }]);
});
