/**
 * A republish while a visitor watches (issue 29), in a real Chromium against the real built
 * server on its own media folder: the visitor keeps the version the page started with, to the
 * end, with no failed request and no long stall; a page loaded after the publish gets the new
 * one, or for this visitor, whose service worker shows its copy of the page, the page after the
 * one that noticed it. The link is throttled so that the player is still asking for segments
 * after the switch.
 */
import type { Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareVideo } from '../scripts/ops/prepare-video';
import { makeClip } from '../scripts/test-support/test-clip';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD, siteEnv } from './site';
import { expectPlaysOn } from './ui';

/** Long enough that the player (30 s ahead at most) still asks for segments after the switch. */
const WATCHED_S = 72;
const NEXT_S = 8;

let work: string;
let media: string;
let server: RunningServer;
let watchedSource: string;
let nextSource: string;

/** A 72 s clip published, and the built server on a free port serving its folder. */
async function publishAndServe() {
  work = mkdtempSync(join(tmpdir(), 'republish-'));
  media = join(work, 'media');
  watchedSource = join(work, 'watched.mp4');
  nextSource = join(work, 'next.mp4');
  makeClip(watchedSource, WATCHED_S);
  makeClip(nextSource, NEXT_S, { tone: 660 });
  await prepareVideo(watchedSource, media, { preset: 'ultrafast' });
  server = await startServer(await siteEnv({ MEDIA_DIR: media }));
}

test.afterAll(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const versionIn = (url: string) => /\/api\/video\/hls\/(v\d{14}-[a-z0-9]{8})\//.exec(url)?.[1];

/** Every media request's URL, status and when it was asked for. */
function watchMedia(page: Page) {
  const answers: { url: string; method: string; status: number; at: number }[] = [];
  page.on('response', (response) => {
    const url = response.url();
    const method = response.request().method();
    if (url.includes('/api/video'))
      answers.push({ url, method, status: response.status(), at: Date.now() });
  });
  page.on('requestfailed', (request) => {
    // Aborted on purpose (hls.js leaving a rendition, the poster held back) is not a failure.
    if (request.url().includes('/api/video') && request.failure()?.errorText !== 'net::ERR_ABORTED')
      answers.push({ url: request.url(), method: request.method(), status: 0, at: Date.now() });
  });
  return answers;
}

async function login(page: Page) {
  await page.goto(`${server.origin}${BASE}/login`);
  // A slow link remembered: the start is a rendition the throttled link carries.
  await page.evaluate(() => localStorage.setItem('videoBandwidthEstimate', '150000'));
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByLabel('Calidad')).toBeVisible({ timeout: 20_000 });
}

const mediaInfoVersion = (page: Page) =>
  page.evaluate(
    () =>
      (
        JSON.parse(document.getElementById('media-info')?.textContent ?? 'null') as {
          version?: string;
        } | null
      )?.version,
  );

test("a visitor watching through a republish keeps the version the page started, to the end; a new visitor gets the new one, and this visitor's next page once the worker's copy is asked again", async ({
  page,
  context,
  browser,
}) => {
  test.setTimeout(300_000);
  await publishAndServe();
  const answers = watchMedia(page);
  await login(page);
  const started = await mediaInfoVersion(page);
  expect(started).toMatch(/^v\d{14}-[a-z0-9]{8}$/);
  // Stalls: each waiting → playing after the first playing, timed in the page.
  await page.evaluate(() => {
    const video = document.querySelector('video')!;
    const record = window as unknown as { stalls: number[]; waitingSince: number | null };
    record.stalls = [];
    record.waitingSince = null;
    let playing = false;
    video.addEventListener('playing', () => {
      if (playing && record.waitingSince !== null)
        record.stalls.push(performance.now() - record.waitingSince);
      playing = true;
      record.waitingSince = null;
    });
    video.addEventListener('waiting', () => {
      if (playing) record.waitingSince ??= performance.now();
    });
  });
  // Slow enough that the player asks for the later segments after the switch.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (300 * 1000) / 8,
    uploadThroughput: (300 * 1000) / 8,
  });
  await page.locator('video').evaluate((video: HTMLVideoElement) => {
    video.muted = true;
    return video.play();
  });

  const publishing = Date.now();
  const next = await prepareVideo(nextSource, media, { preset: 'ultrafast' });
  const switchedAt = Date.now();
  console.log(`republish: ${((switchedAt - publishing) / 1000).toFixed(1)} s`);
  expect(next.version).not.toBe(started);

  await page
    .locator('video')
    .evaluate(
      (video: HTMLVideoElement) =>
        video.ended ||
        new Promise((resolvePromise) =>
          video.addEventListener('ended', resolvePromise, { once: true }),
        ),
      undefined,
      { timeout: 150_000 },
    );
  const { duration, stalls, open } = await page.evaluate(() => {
    const video = document.querySelector('video')!;
    const record = window as unknown as { stalls: number[]; waitingSince: number | null };
    return {
      duration: video.duration,
      stalls: record.stalls,
      open: record.waitingSince === null ? 0 : performance.now() - record.waitingSince,
    };
  });
  console.log(
    `watched: ${answers.filter((a) => a.at > switchedAt).length} media answers after the switch, stalls ${JSON.stringify(stalls.map(Math.round))} ms`,
  );
  // The same video to its end: its length, and every adaptive request in its version.
  expect(Math.abs(duration - WATCHED_S)).toBeLessThan(1);
  const adaptive = answers.filter((a) => a.url.includes('/api/video/hls/'));
  expect(adaptive.every((a) => versionIn(a.url) === started)).toBe(true);
  // The player was still asking after the switch: the republish happened under it.
  expect(adaptive.filter((a) => a.at > switchedAt && /\.m4s$/.test(a.url)).length).toBeGreaterThan(
    0,
  );
  expect(answers.filter((a) => a.status >= 400 || a.status === 0)).toEqual([]);
  // Never the fallback MP4 of either version (the player's HEAD asks only about the session).
  const mp4 = answers.filter((a) => /\/fallback\.mp4$|\/api\/video$/.test(a.url));
  expect(mp4.filter((a) => a.method !== 'HEAD')).toEqual([]);
  expect(Math.max(0, open, ...stalls)).toBeLessThanOrEqual(2000);

  // Another visitor's page, loaded now, plays the new publish.
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    const otherAnswers = watchMedia(otherPage);
    await login(otherPage);
    expect(await mediaInfoVersion(otherPage)).toBe(next.version);
    await playsVersion(otherPage, otherAnswers, next.version, NEXT_S);
  } finally {
    await other.close();
  }

  // This visitor's next page is the service worker's copy: it plays the version it names,
  // which the server still keeps, and has the page asked again after its first frame; the page
  // after that plays the new publish.
  const copy = await context.newPage();
  const copyAnswers = watchMedia(copy);
  await copy.goto(`${server.origin}${BASE}/VideoPlayer`);
  expect(await mediaInfoVersion(copy)).toBe(started);
  await playsVersion(copy, copyAnswers, started!, WATCHED_S);
  await expect
    .poll(() =>
      copy.evaluate(async (base) => {
        const kept = await caches.match(`${location.origin}${base}/login`);
        return /"version":"([^"]+)"/.exec((await kept?.text()) ?? '')?.[1];
      }, BASE),
    )
    .toBe(next.version);
  const fresh = await context.newPage();
  const freshAnswers = watchMedia(fresh);
  await fresh.goto(`${server.origin}${BASE}/VideoPlayer`);
  expect(await mediaInfoVersion(fresh)).toBe(next.version);
  await playsVersion(fresh, freshAnswers, next.version, NEXT_S);
});

/** The page plays: past 0.5 s, the video's length as `seconds`, every adaptive request in `version`. */
async function playsVersion(
  page: Page,
  answers: ReturnType<typeof watchMedia>,
  version: string,
  seconds: number,
) {
  const video = page.locator('video');
  await expectPlaysOn(page);
  expect(
    Math.abs((await video.evaluate((element: HTMLVideoElement) => element.duration)) - seconds),
  ).toBeLessThan(1);
  const adaptive = answers.filter((a) => a.url.includes('/api/video/hls/'));
  expect(adaptive.length).toBeGreaterThan(0);
  expect(adaptive.every((a) => versionIn(a.url) === version)).toBe(true);
}
