/**
 * A password change ends everything made under the old password: sessions (in memory and in a
 * real redis-server) and device cookies. And `npm run end-sessions` ends every session now.
 */
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../scripts/test-support/redis-server.js';
import { cheapPasswordHash, REPO, sessionCookie, signin, testServer } from './helpers.js';

let redis: RedisServer;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});
afterEach(async () => {
  await client.flushall();
});

const OLD = 'la-vieja-contraseña';
const NEW = 'la-nueva-contraseña';
const OLD_HASH = cheapPasswordHash(OLD);
const NEW_HASH = cheapPasswordHash(NEW);
/** The same secret before and after: only the password changes. */
const SECRET = 'password-change-test-secret-0123456789-abcdef';

const video = (cookie: string) => ({ url: '/api/video', headers: { cookie, range: 'bytes=0-1' } });
const modes = [
  ['in memory', {}],
  ['in Redis', { shared: true }],
] as const;

function instance(hash: string, shared: boolean, env: Record<string, string> = {}) {
  return testServer({
    PASSWORD_HASH: hash,
    SESSION_SECRET: SECRET,
    ...(shared ? { REDIS_URL: redis.url } : {}),
    ...env,
  });
}

/** The `dev=…` pair of a successful signin's device cookie. */
function deviceCookie(setCookie: string | string[] | undefined): string {
  const found = [setCookie ?? []].flat().find((line) => line.startsWith('dev='));
  if (!found) throw new Error('no device cookie');
  return found.split(';', 1)[0]!;
}

describe('a password change', () => {
  it.each(modes)(
    'ends every session made under the old password: the next video request is the ordinary 401 (%s)',
    async (_name, { shared }: { shared?: boolean }) => {
      const before = await instance(OLD_HASH, !!shared);
      const cookies: string[] = [];
      for (const address of ['192.0.2.1', '192.0.2.2'])
        cookies.push(
          sessionCookie(
            (await signin(before, OLD, { remoteAddress: address })).headers['set-cookie'],
          ),
        );
      for (const cookie of cookies)
        expect((await before.inject(video(cookie))).statusCode).toBe(206);
      await before.close();

      if (shared) {
        // The control: restarted with the same hash, the sessions in Redis go on playing.
        const same = await instance(OLD_HASH, true);
        for (const cookie of cookies)
          expect((await same.inject(video(cookie))).statusCode).toBe(206);
        await same.close();
      }

      const after = await instance(NEW_HASH, !!shared);
      for (const cookie of cookies) {
        const refused = await after.inject(video(cookie));
        // 401, never 503: the app reads it as the end of the session and shows the login.
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toMatchObject({ error: 'unauthorized' });
        expect(
          (await after.inject({ url: '/api/video/access', headers: { cookie } })).statusCode,
        ).toBe(401);
      }
      const fresh = await signin(after, NEW, { remoteAddress: '192.0.2.3' });
      expect(fresh.statusCode).toBe(200);
      expect(
        (await after.inject(video(sessionCookie(fresh.headers['set-cookie'])))).statusCode,
      ).toBe(206);
      await after.close();
    },
  );

  it.each(modes)(
    'makes the device cookies of the old password count for nothing: their guesses count on the address (%s)',
    async (_name, { shared }: { shared?: boolean }) => {
      const limits = { SIGNIN_FREE_FAILURES: '1', SIGNIN_BACKOFF_BASE_MS: '60000' };
      const before = await instance(OLD_HASH, !!shared, limits);
      // Three browsers that once signed in, as a guesser would collect them.
      const devices: string[] = [];
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
        devices.push(
          deviceCookie(
            (await signin(before, OLD, { remoteAddress: address })).headers['set-cookie'],
          ),
        );
      await before.close();

      /** A wrong guess from `address` with each device cookie, after one without any. */
      const guesses = async (hash: string, address: string) => {
        const app = await instance(hash, !!shared, limits);
        const statuses = [(await signin(app, 'mal', { remoteAddress: address })).statusCode];
        for (const cookie of devices)
          statuses.push(
            (await signin(app, 'mal', { remoteAddress: address, headers: { cookie } })).statusCode,
          );
        await app.close();
        return statuses;
      };
      // The control: under the same password each device has its own free failure.
      expect(await guesses(OLD_HASH, '203.0.113.1')).toEqual([401, 401, 401, 401]);
      // Under the new one they share the address's: one free failure, then the backoff.
      expect(await guesses(NEW_HASH, '203.0.113.2')).toEqual([401, 429, 429, 429]);

      // A right signin with an old device cookie gets a new device id, bound to the new password.
      const after = await instance(NEW_HASH, !!shared, limits);
      const answer = await signin(after, NEW, {
        remoteAddress: '203.0.113.3',
        headers: { cookie: devices[0]! },
      });
      expect(answer.statusCode).toBe(200);
      const id = (cookie: string) => decodeURIComponent(cookie.split('=')[1]!).split('.')[0];
      expect(id(deviceCookie(answer.headers['set-cookie']))).not.toBe(id(devices[0]!));
      await after.close();
    },
  );
});

/** `npm run end-sessions`, as an operator runs it. */
function endSessions(env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ops/end-sessions.ts'], {
    cwd: REPO,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('npm run end-sessions', () => {
  it('ends every session in Redis now, on every instance, and nothing else; new signins work at once', async () => {
    const env = { REDIS_URL: redis.url, PASSWORD_HASH: OLD_HASH, SESSION_SECRET: SECRET };
    const [first, second] = [await testServer(env), await testServer(env)];
    const cookies: string[] = [];
    for (const [app, address] of [
      [first!, '192.0.2.20'],
      [second!, '192.0.2.21'],
    ] as const)
      cookies.push(
        sessionCookie((await signin(app, OLD, { remoteAddress: address })).headers['set-cookie']),
      );
    // A failure on record: the limiter's state is not the command's business.
    expect((await signin(first, 'mal', { remoteAddress: '192.0.2.22' })).statusCode).toBe(401);
    for (const app of [first, second])
      for (const cookie of cookies) expect((await app.inject(video(cookie))).statusCode).toBe(206);

    const run = endSessions({ REDIS_URL: redis.url });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Ended 2 sessions');

    for (const app of [first, second])
      for (const cookie of cookies) expect((await app.inject(video(cookie))).statusCode).toBe(401);
    expect(await client.zcard('signin:{192.0.2.22}:failures')).toBe(1);
    const again = await signin(second, OLD, { remoteAddress: '192.0.2.23' });
    expect(again.statusCode).toBe(200);
    expect((await first.inject(video(sessionCookie(again.headers['set-cookie'])))).statusCode).toBe(
      206,
    );
    await Promise.all([first.close(), second.close()]);
  });

  it('with Redis unreachable says so in one line and fails', () => {
    const run = endSessions({ REDIS_URL: '/nonexistent/redis.sock' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Redis did not answer: /),
    ]);
  });

  it('without REDIS_URL ends nothing, says so, tells the operator to restart every instance and fails', () => {
    const run = endSessions({});
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('REDIS_URL is not set: nothing was ended');
    expect(run.stderr).toContain('restart every instance');
    expect(run.stdout).toBe('');
  });
});
