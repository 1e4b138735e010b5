/**
 * The stores in Redis, in one process against a real redis-server (its own, on a private
 * socket). Several instances as separate processes are proved in e2e/redis-instances.spec.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../scripts/test-support/redis-server.js';
import {
  cheapPasswordHash,
  DEMO_PASSWORD,
  logCapture,
  sessionCookie,
  signin,
  SIGNOUT,
  testServer,
} from './helpers.js';

let redis: RedisServer;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  // The outage test kills Redis under this client too; it reconnects by itself.
  client.on('error', () => undefined);
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});
afterEach(async () => {
  await client.flushall();
});

const video = (cookie: string) => ({ url: '/api/video', headers: { cookie, range: 'bytes=0-1' } });

describe('sessions and limits in Redis', () => {
  it.each([
    ['in memory', {}],
    ['in Redis', { shared: true }],
  ])(
    'the session cookie lives exactly as long as the server session (%s)',
    async (_name, { shared }: { shared?: boolean }) => {
      const app = await testServer({
        SESSION_TTL_S: '5400',
        ...(shared ? { REDIS_URL: redis.url } : {}),
      });
      const response = await signin(app);
      expect(response.statusCode).toBe(200);
      expect(String(response.headers['set-cookie'])).toMatch(/; Max-Age=5400;/);
      await app.close();
    },
  );

  it('keeps only a digest of the token in Redis, and reading a session never extends it', async () => {
    const app = await testServer({ REDIS_URL: redis.url });
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    const token = decodeURIComponent(cookie.split('=')[1]!).split('.')[0]!;
    const keys = await client.keys('*');
    const sessionKeys = keys.filter((key) => key.startsWith('session:'));
    expect(sessionKeys).toHaveLength(1);
    expect(keys.join(' ')).not.toContain(token);
    expect(JSON.stringify(await client.get(sessionKeys[0]!))).not.toContain(token);

    const before = await client.pttl(sessionKeys[0]!);
    expect(before).toBeGreaterThan(7_000_000);
    for (let i = 0; i < 3; i += 1) expect((await app.inject(video(cookie))).statusCode).toBe(206);
    expect(await client.pttl(sessionKeys[0]!)).toBeLessThanOrEqual(before);
    await app.close();
  });

  it('stops an address at the hourly ceiling in Redis; a success erases no failure and leaves no lease', async () => {
    const password = 'la-correcta';
    const app = await testServer({
      REDIS_URL: redis.url,
      PASSWORD_HASH: cheapPasswordHash(password),
      SIGNIN_FREE_FAILURES: '5',
      SIGNIN_MAX_FAILURES_PER_HOUR: '3',
    });
    const from = (address: string, guess: string) =>
      signin(app, guess, { remoteAddress: address }).then((r) => r.statusCode);
    for (let i = 0; i < 3; i += 1) expect(await from('192.0.2.7', 'mal')).toBe(401);
    const refused = await signin(app, password, { remoteAddress: '192.0.2.7' });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);

    expect(await from('192.0.2.8', 'mal')).toBe(401);
    expect(await from('192.0.2.8', password)).toBe(200);
    expect(await client.keys('signin:{192.0.2.8}*')).toEqual(['signin:{192.0.2.8}:failures']);
    expect(await client.zcard('signin:{192.0.2.8}:failures')).toBe(1);
    await app.close();
  });

  it('counts the requests per minute to /api/users/* once for all instances', async () => {
    const env = { REDIS_URL: redis.url, SIGNIN_MAX_REQUESTS_PER_MINUTE: '3' };
    const [first, second] = [await testServer(env), await testServer(env)];
    const statuses: number[] = [];
    for (const app of [first, second, first, second]) {
      const response = await app.inject({
        method: 'POST',
        url: SIGNOUT,
        remoteAddress: '192.0.2.10',
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([204, 204, 204, 429]);
    await Promise.all([first.close(), second.close()]);
  });

  it('answers 503 with Retry-After, never 401, while Redis is unreachable, and recovers by itself', async () => {
    const log = logCapture();
    const app = await testServer(
      { REDIS_URL: redis.url, LOG_LEVEL: 'info' },
      { logStream: log.stream },
    );
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    await redis.kill();
    try {
      for (const path of ['/api/video', '/api/video/captions.vtt', '/api/video/poster.jpg']) {
        const response = await app.inject({ url: path, headers: { cookie } });
        expect(response.statusCode, path).toBe(503);
        expect(response.headers['retry-after'], path).toMatch(/^\d+$/);
        expect(response.json()).toMatchObject({ error: 'temporarily_unavailable' });
      }
      const lines = log.lines.length;
      const refused = await signin(app, DEMO_PASSWORD, { remoteAddress: '192.0.2.9' });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      // Refused before the limiter could count it: no hash, no "signin attempt" line.
      expect(log.lines.slice(lines).join('')).not.toContain('signin attempt');

      const signout = await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie } });
      expect(String(signout.headers['set-cookie'])).toMatch(/^sid=; Max-Age=0;/);
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
      expect((await app.inject({ url: '/livez' })).statusCode).toBe(200);
    } finally {
      await redis.restart();
    }
    await expect.poll(async () => (await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect((await signin(app, DEMO_PASSWORD, { remoteAddress: '192.0.2.9' })).statusCode).toBe(200);
    await app.close();
  });
});
