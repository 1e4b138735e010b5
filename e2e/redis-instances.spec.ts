/**
 * Several instances on one Redis: two processes of the built server (A and B, each on its own
 * port) share a real redis-server (private socket, append-only file), and a third instance (M)
 * keeps everything in memory as the reference for "exactly as on one instance". Client
 * addresses are claimed through X-Forwarded-For (the instances trust the loopback proxy).
 */
import { expect, test } from '@playwright/test';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { startRedis, type RedisServer } from '../scripts/test-support/redis-server';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { hashPassword } from '../server/password';
import { BASE, E2E_PASSWORD, WRONG_PASSWORD } from './site';

test.describe.configure({ mode: 'serial' });

const UNAVAILABLE = 'El video no está disponible en este momento. Reintentando…';

/** Answers come at once while Redis is down; this only keeps a hang from lasting the test. */
const HANG_GUARD_MS = 5_000;

let redis: RedisServer;
let env: Record<string, string>;
const servers: Record<'a' | 'b' | 'memory', RunningServer | null> = {
  a: null,
  b: null,
  memory: null,
};
const origin = (name: keyof typeof servers) => {
  const server = servers[name];
  if (!server) throw new Error(`instance ${name} is not running`);
  return server.origin;
};

async function startInstance(name: keyof typeof servers) {
  const shared: Record<string, string> = name === 'memory' ? {} : { REDIS_URL: redis.url };
  servers[name] = await startServer({ ...env, ...shared });
}

test.beforeAll(async () => {
  redis = await startRedis({ persistent: true });
  env = {
    NODE_ENV: 'test',
    TRUST_PROXY: '127.0.0.1',
    PASSWORD_HASH: await hashPassword(E2E_PASSWORD),
    // One secret for every instance: each must accept the cookies the others signed.
    SESSION_SECRET: randomBytes(48).toString('base64'),
    // Two free failures, then a minute's wait: the backoff shows on the third attempt.
    SIGNIN_FREE_FAILURES: '2',
    SIGNIN_BACKOFF_BASE_MS: '60000',
    SIGNIN_BACKOFF_MAX_MS: '600000',
    SIGNIN_MAX_REQUESTS_PER_MINUTE: '1000',
    LOG_LEVEL: 'warn',
  };
  await Promise.all([startInstance('a'), startInstance('b'), startInstance('memory')]);
});

test.afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  await redis?.stop();
});

function signin(at: string, address: string, password = E2E_PASSWORD) {
  return fetch(`${at}/api/users/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ form: { usuario: 'capacitacion', contraseña: password } }),
    signal: AbortSignal.timeout(HANG_GUARD_MS * 4),
  });
}

async function sessionFrom(at: string, address: string): Promise<string> {
  const response = await signin(at, address);
  expect(response.status).toBe(200);
  return (response.headers.get('set-cookie') ?? '').split(';', 1)[0]!;
}

const get = (at: string, path: string, cookie = '') =>
  fetch(`${at}${path}`, {
    headers: { cookie, ...(path.startsWith('/api/video') ? { range: 'bytes=0-1' } : {}) },
    redirect: 'manual',
    signal: AbortSignal.timeout(HANG_GUARD_MS),
  });

const signout = (at: string, cookie: string) =>
  fetch(`${at}/api/users/signout`, {
    method: 'POST',
    headers: { cookie },
    signal: AbortSignal.timeout(HANG_GUARD_MS),
  });

/** Made in the first test, checked again after a restart of an instance and of Redis. */
let earlySession = '';

test('a session made on one instance plays the video on the other', async () => {
  earlySession = await sessionFrom(origin('a'), '10.1.0.1');
  expect((await get(origin('b'), '/api/video', earlySession)).status).toBe(206);
  expect((await get(origin('a'), '/api/video', earlySession)).status).toBe(206);
});

test('a signout on one instance is refused on the other at once', async () => {
  const cookie = await sessionFrom(origin('a'), '10.1.0.2');
  expect((await get(origin('a'), '/api/video', cookie)).status).toBe(206);
  expect((await signout(origin('b'), cookie)).status).toBe(204);
  expect((await get(origin('a'), '/api/video', cookie)).status).toBe(401);
});

test('failures from one address alternating between instances meet the backoff exactly as on one instance', async () => {
  const attempts = async (instances: string[], address: string) => {
    const answers: string[] = [];
    for (const at of instances) {
      const response = await signin(at, address, WRONG_PASSWORD);
      const wait = Number(response.headers.get('retry-after') ?? 0);
      answers.push(
        response.status === 429
          ? `429 wait ${wait > 50 ? 'about 60 s' : wait}`
          : `${response.status}`,
      );
    }
    return answers;
  };
  const [a, b, m] = [origin('a'), origin('b'), origin('memory')];
  const single = await attempts([m, m, m, m], '10.1.0.3');
  const shared = await attempts([a, b, a, b], '10.1.0.3');
  expect(single).toEqual(['401', '401', '429 wait about 60 s', '429 wait about 60 s']);
  expect(shared).toEqual(single);
});

test('a visitor from another address is not slowed while one address waits', async () => {
  expect((await signin(origin('a'), '10.1.0.3')).status).toBe(429);
  expect((await signin(origin('a'), '10.1.0.4')).status).toBe(200);
  expect((await signin(origin('b'), '10.1.0.5')).status).toBe(200);
});

test('two simultaneous signins from one address on both instances both wait their turn and are evaluated', async () => {
  // Both instances hash one password at a time, and a few other visitors' signins are queued
  // first: the second attempt of the address waits in its line instead of being refused.
  const queued = [origin('a'), origin('b')].flatMap((at, i) =>
    [1, 2, 3].map((n) => signin(at, `10.2.${i}.${n}`, WRONG_PASSWORD)),
  );
  const both = await Promise.all([
    signin(origin('a'), '10.1.0.6', WRONG_PASSWORD),
    signin(origin('b'), '10.1.0.6', WRONG_PASSWORD),
  ]);
  await Promise.all(queued);
  expect(both.map((response) => response.status)).toEqual([401, 401]);
});

test('SIGTERM lets a signin in flight finish, with Redis, before the instance exits', async () => {
  // Other visitors' signins queued first keep this one waiting for its hash.
  const queued = [1, 2, 3].map((n) => signin(origin('a'), `10.3.0.${n}`, WRONG_PASSWORD));
  const inFlight = signin(origin('a'), '10.1.0.8');
  const client = new Redis(redis.url);
  try {
    // Admitted: its lease is in Redis, so the instance has it in hand.
    await expect.poll(() => client.zcard('signin:{10.1.0.8}:leases')).toBe(1);
  } finally {
    client.disconnect();
  }
  const stopped = servers.a!.stop();
  servers.a = null;
  const response = await inFlight;
  await Promise.allSettled(queued);
  await stopped;
  expect(response.status).toBe(200);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';', 1)[0]!;
  expect((await get(origin('b'), '/api/video', cookie)).status).toBe(206);
});

test('an instance restarted keeps every session and every address backoff', async () => {
  await startInstance('a');
  expect((await get(origin('a'), '/api/video', earlySession)).status).toBe(206);
  const waiting = await signin(origin('a'), '10.1.0.3', E2E_PASSWORD);
  expect(waiting.status).toBe(429);
  expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(1);
});

test('with Redis killed, media and signin answer 503 with Retry-After, the login page still loads, /readyz is 503 and /livez 200', async () => {
  await redis.kill();
  for (const at of [origin('a'), origin('b')]) {
    for (const path of ['/api/video', '/api/video/captions.vtt', '/api/video/poster.jpg']) {
      const response = await get(at, path, earlySession);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after'), path).toMatch(/^\d+$/);
    }
    const refused = await signin(at, '10.1.0.7');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await get(at, `${BASE}/login`)).status).toBe(200);
    expect((await get(at, '/readyz')).status).toBe(503);
    expect((await get(at, '/livez')).status).toBe(200);
  }
  const out = await signout(origin('b'), 'sid=anything');
  expect(out.headers.get('set-cookie')).toMatch(/^sid=; Max-Age=0;/);
});

test('a visitor watching during the outage is told the video is unavailable, stays in, and the video comes back by itself', async ({
  browser,
}) => {
  await redis.restart();
  await expect.poll(async () => (await get(origin('a'), '/readyz')).status).toBe(200);
  const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': '10.1.0.9' } });
  try {
    const page = await context.newPage();
    await page.goto(`${origin('a')}${BASE}/login`);
    await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await expect(page).toHaveURL(`${origin('a')}${BASE}/VideoPlayer`);

    await redis.kill();
    await page.reload();
    await expect(page.getByText(UNAVAILABLE)).toBeVisible();
    await expect(page).toHaveURL(`${origin('a')}${BASE}/VideoPlayer`);

    await redis.restart();
    await expect(page.getByText(UNAVAILABLE)).toBeHidden();
    await expect
      .poll(() => page.evaluate(() => document.querySelector('video')?.readyState ?? 0))
      .toBeGreaterThanOrEqual(1);
    await expect(page).toHaveURL(`${origin('a')}${BASE}/VideoPlayer`);
  } finally {
    await context.close();
  }
  await redis.kill();
});

test('when Redis comes back with its data, the sessions made before work again', async () => {
  await redis.restart();
  for (const at of [origin('a'), origin('b')]) {
    await expect.poll(async () => (await get(at, '/readyz')).status).toBe(200);
    expect((await get(at, '/api/video', earlySession)).status).toBe(206);
  }
  expect((await signin(origin('b'), '10.1.0.3')).status).toBe(429);
});
