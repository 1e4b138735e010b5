/**
 * The deployment as the company runs it: Debian's nginx over HTTPS (scripts/ops/nginx.ts, a
 * self-signed pair) in front of two built instances on one redis-server, with a published clip.
 * A visitor watches through the proxy; the instances' metrics show who served what.
 */
import { expect, test, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { rmSync } from 'node:fs';
import { freePort, startProxy, type RunningProxy } from '../scripts/ops/nginx';
import { startRedis, type RedisServer } from '../scripts/test-support/redis-server';
import { publishTestClip } from '../scripts/test-support/test-clip';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { hashPassword } from '../server/password';
import { BASE, E2E_PASSWORD } from './site';

test.describe.configure({ mode: 'serial' });
test.use({ ignoreHTTPSErrors: true });

let redis: RedisServer;
let proxy: RunningProxy;
let mediaDir: string;
const instances: { server: RunningServer; metricsPort: number }[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  let dir: string;
  [redis, { dir }] = await Promise.all([startRedis(), publishTestClip(24)]);
  mediaDir = dir;
  const env = {
    NODE_ENV: 'test',
    TRUST_PROXY: '127.0.0.1',
    REDIS_URL: redis.url,
    MEDIA_DIR: dir,
    PASSWORD_HASH: await hashPassword(E2E_PASSWORD),
    SESSION_SECRET: randomBytes(48).toString('base64'),
    LOG_LEVEL: 'warn',
  };
  for (let i = 0; i < 2; i += 1) {
    const metricsPort = await freePort();
    instances.push({
      server: await startServer({ ...env, METRICS_PORT: String(metricsPort) }),
      metricsPort,
    });
  }
  proxy = await startProxy({
    upstreams: instances.map(({ server }) => new URL(server.origin).host),
    mediaDir: dir,
  });
});

test.afterAll(async () => {
  await proxy?.stop();
  await Promise.all(instances.map(({ server }) => server.stop()));
  await redis?.stop();
  if (mediaDir) rmSync(dirname(mediaDir), { recursive: true, force: true });
});

/** A counter's value summed over the instances still running. */
async function counted(name: string, labels = ''): Promise<number> {
  let total = 0;
  for (const { server, metricsPort } of instances) {
    if (server.process.exitCode !== null || server.process.signalCode !== null) continue;
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
    total += Number(line?.split(' ')[1] ?? 0);
  }
  return total;
}

/** Every answer the page got through the proxy that was not a success, and every failure. */
function watchFailures(page: Page): string[] {
  const failures: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    // The page itself drops the MP4's preload when hls.js takes the element: not a failure.
    const error = request.failure()?.errorText ?? '';
    if (error !== 'net::ERR_ABORTED') failures.push(`${error} ${request.url()}`);
  });
  return failures;
}

const video = (page: Page) => page.locator('video.player__video');
const currentTime = (page: Page) =>
  video(page).evaluate((element: HTMLVideoElement) => element.currentTime);

test('a visitor signs in over HTTPS and watches; the segments come from the proxy, none from the instances; an instance killed mid-play loses nothing', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const failures = watchFailures(page);
  const segments: string[] = [];
  page.on('response', (response) => {
    // The version folder the page plays, if any, then the rendition.
    if (/\/api\/video\/hls\/(v\d{14}-[a-z0-9]{8}\/)?[^/]+\/seg\d{5}\.m4s$/.test(response.url()))
      segments.push(`${response.status()} ${new URL(response.url()).origin}`);
  });
  const accepted = await counted('signins_total', '{outcome="accepted"}');
  const created = await counted('sessions_created_total');

  await page.goto(`${proxy.origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page).toHaveURL(`${proxy.origin}${BASE}/VideoPlayer`);
  const cookies = await page.context().cookies();
  expect(cookies.map((cookie) => cookie.name)).toContain('__Host-sid');
  expect(await counted('signins_total', '{outcome="accepted"}')).toBe(accepted + 1);
  expect(await counted('sessions_created_total')).toBe(created + 1);

  await video(page).evaluate((element: HTMLVideoElement) => {
    element.muted = true;
    return element.play();
  });
  await expect.poll(() => currentTime(page)).toBeGreaterThan(1);
  expect(await video(page).evaluate((element: HTMLVideoElement) => element.currentSrc)).toMatch(
    /^blob:/,
  );

  expect(await counted('app_requests_total', '{kind="segment"}')).toBe(0);
  // The playlists are the app's (counted before the kill: either instance may have served them).
  expect(await counted('app_requests_total', '{kind="playlist"}')).toBeGreaterThan(0);
  // Killed outright (no drain): the proxy takes it out and retries on the other.
  instances[0]!.server.process.kill('SIGKILL');
  await expect.poll(() => currentTime(page), { timeout: 30_000 }).toBeGreaterThan(13);

  expect(segments.length).toBeGreaterThan(1);
  expect(new Set(segments)).toEqual(new Set([`200 ${proxy.origin}`]));
  expect(await counted('app_requests_total', '{kind="segment"}')).toBe(0);
  expect(failures).toEqual([]);
});
