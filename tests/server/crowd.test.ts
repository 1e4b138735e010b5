/**
 * A crowd behind one address (a training day on the cooperative's Wi-Fi): every visitor sends
 * from 127.0.0.1 to a real server on loopback, each as its own browser (own connection, own
 * cookies), all at once. In memory on one instance, then on two instances sharing one real
 * redis-server. Real scrypt at the cheapest cost the config accepts, so the crowd costs
 * seconds; the server's limits are its defaults unless a test says otherwise.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../server/app.js';
import { startRedis, type RedisServer } from '../../scripts/test-support/redis-server.js';
import { request } from 'node:http';
import {
  SIGNIN_PATH,
  signinBody,
  signinBrowser,
  type Answer,
} from '../../scripts/test-support/test-server.js';
import { createMetrics } from '../../server/metrics.js';
import { USERNAME, cheapPasswordHash, listen, logCapture, testConfig } from './helpers.js';

const PASSWORD = 'la-clave-de-la-capacitacion';
const ADDRESS = '127.0.0.1';
const CROWD = 100;
/** Every 20th visitor mistypes once first: 5 of 100. */
const mistypes = (visitor: number) => visitor % 20 === 0;

/**
 * One browser: its own connection per press, its cookies, and no deadline of its own (the test's
 * timeout bounds it): on a loaded machine a press may take longer than a client would wait, and
 * that is the bench's business, not this.
 */
const browser = () =>
  signinBrowser(USERNAME, { localAddress: ADDRESS, agent: false, timeoutMs: 0 });

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** `instances` servers on loopback; with `shared`, all on the test's redis-server. */
async function site(instances: number, shared: boolean, env: Record<string, string> = {}) {
  const passwordHash = cheapPasswordHash(PASSWORD);
  const origins: string[] = [];
  for (let i = 0; i < instances; i++) {
    const app = await buildServer(
      testConfig({
        PASSWORD_HASH: passwordHash,
        ...(shared ? { REDIS_URL: redis.url } : {}),
        ...env,
      }),
    );
    apps.push(app);
    origins.push(await listen(app));
  }
  return origins;
}

const SLOW_BACKOFF = {
  SIGNIN_BACKOFF_BASE_MS: '60000',
  SIGNIN_BACKOFF_MAX_MS: '300000',
  SIGNIN_MAX_HOLD_MS: '0',
};

const SETUPS = [
  { name: 'one instance in memory', instances: 1, shared: false },
  { name: 'two instances on one Redis', instances: 2, shared: true },
];

describe.each(SETUPS)('a crowd behind one address, $name', ({ instances, shared }) => {
  it('lets 100 visitors in, each on its first right press, 5 of them after a typo', async () => {
    const origins = await site(instances, shared);
    if (shared) await redisFlush();
    const rightPresses: number[] = [];
    const typos: number[] = [];
    await Promise.all(
      Array.from({ length: CROWD }, async (_, visitor) => {
        const origin = origins[visitor % origins.length]!;
        const me = browser();
        if (mistypes(visitor))
          typos.push((await me.press(origin, 'la-clave-de-la-capacitasion')).status);
        rightPresses.push((await me.press(origin, PASSWORD)).status);
      }),
    );
    expect(typos).toEqual([401, 401, 401, 401, 401]);
    expect(rightPresses).toHaveLength(CROWD);
    expect(rightPresses.filter((status) => status !== 200)).toEqual([]);
  }, 120_000);

  it('keeps a guesser at that address to its failures; browsers that signed in before get in at once, new ones are told their wait', async () => {
    // A first backoff longer than any stall of a loaded machine, and none held: what follows
    // does not depend on how fast the machine is.
    const origins = await site(instances, shared, SLOW_BACKOFF);
    if (shared) await redisFlush();
    // Twenty visitors signed in on an earlier day: their browsers carry a device cookie.
    const returning = Array.from({ length: 20 }, () => browser());
    for (const [i, me] of returning.entries())
      expect((await me.press(origins[i % origins.length]!, PASSWORD)).status).toBe(200);
    expect(returning.every((me) => me.hasDevice())).toBe(true);

    // The guesser presses as fast as it is answered, four at a time, until its address is
    // in a backoff longer than the server holds.
    const guesser = browser();
    const failures: number[] = [];
    let refusal: Answer | null = null;
    for (let round = 0; !refusal; round++) {
      const answers = await Promise.all(
        [0, 1, 2, 3].map((i) => guesser.press(origins[i % origins.length]!, `guess-${round}-${i}`)),
      );
      for (const answer of answers) if (answer.status === 401) failures.push(answer.status);
      refusal = answers.find((answer) => answer.status === 429) ?? null;
      expect(round).toBeLessThan(20);
    }
    const limits = testConfig(SLOW_BACKOFF).signin;
    // The free failures and not one more: parallel guesses get no more than serial ones.
    expect(failures.length).toBe(limits.freeFailures);
    expect(refusal.headers['retry-after']).toMatch(/^(59|60)$/);

    // The returning crowd, all at once while the guesser goes on: each in at the first press.
    const guessing = Promise.all(
      Array.from({ length: 8 }, (_, i) => guesser.press(origins[i % origins.length]!, `more-${i}`)),
    );
    const statuses = await Promise.all(
      returning.map((me, i) =>
        me.press(origins[i % origins.length]!, PASSWORD).then((a) => a.status),
      ),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const more = await guessing;
    // Twenty successes at its address gave the guesser nothing: still refused, nothing evaluated.
    expect(more.map((answer) => answer.status)).toEqual(Array(8).fill(429));

    // A new browser at that address shares the guesser's wait, and is told how long: never
    // more than the longest backoff.
    const waited = await browser().press(origins[0]!, PASSWORD);
    expect(waited.status).toBe(429);
    expect(Number(waited.headers['retry-after'])).toBeLessThanOrEqual(limits.backoffMaxMs / 1000);
  }, 120_000);
});

describe("a visitor held for a short backoff at the address (the crowd's sixth typo)", () => {
  it("is let in once the backoff has passed by the server's clock, even when the hold's timer ends before it", async () => {
    // The server's clock runs at half the pace of its timers, so every hold's timer ends while
    // the clock still says "backoff". On a real server a timer ends up to a turn of the event
    // loop early: the bench saw a right password held 588.45 ms for a 589 ms backoff, then
    // refused with 429 (2026-11-25).
    const started = performance.now();
    const now = () => Date.UTC(2026, 10, 25, 12) + (performance.now() - started) / 2;
    const app = await buildServer(
      testConfig({
        PASSWORD_HASH: cheapPasswordHash(PASSWORD),
        SIGNIN_FREE_FAILURES: '1',
        SIGNIN_BACKOFF_BASE_MS: '1000',
        SIGNIN_MAX_HOLD_MS: '2000',
      }),
      { now },
    );
    apps.push(app);
    const origin = await listen(app);
    expect((await browser().press(origin, 'la-clave-de-la-capacitasion')).status).toBe(401);
    // The address now waits 1 s after its failure, within what the server holds.
    const held = await browser().press(origin, PASSWORD);
    expect(held.status).toBe(200);
  });
});

describe('a visitor who stops waiting in the line', () => {
  it('costs no hash: the server checks no password nobody waits for, and the next in line gets in', async () => {
    const log = logCapture();
    const metrics = createMetrics();
    const app = await buildServer(
      testConfig({
        PASSWORD_HASH: cheapPasswordHash(PASSWORD),
        LOG_LEVEL: 'info',
        // After one failure the address waits 5 s, which the server holds in line: long
        // enough for the visitor below to give up while it is held.
        SIGNIN_FREE_FAILURES: '1',
        SIGNIN_BACKOFF_BASE_MS: '5000',
        SIGNIN_MAX_HOLD_MS: '10000',
      }),
      { logStream: log.stream, metrics },
    );
    apps.push(app);
    const origin = await listen(app);
    const signinsArrived = () =>
      log.lines.filter((line) => line.includes('incoming request') && line.includes(SIGNIN_PATH))
        .length;
    expect((await browser().press(origin, 'la-clave-de-la-capacitasion')).status).toBe(401);

    // A visitor presses and, once the server has the press, gives up (the app's timeout).
    const gaveUp = request(`${origin}${SIGNIN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      localAddress: ADDRESS,
      agent: false,
    });
    gaveUp.on('error', () => {});
    gaveUp.end(signinBody(USERNAME, PASSWORD));
    await expect.poll(signinsArrived, { timeout: 10_000 }).toBe(2);
    gaveUp.destroy();

    // The next visitor is behind it in the address's line: answered only after its turn.
    expect((await browser().press(origin, PASSWORD)).status).toBe(200);
    const count = async (name: string, labels: Record<string, string> = {}) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values
        .filter((value) => Object.entries(labels).every(([k, v]) => value.labels[k] === v))
        .reduce((sum, value) => sum + value.value, 0);
    expect(await count('signins_total', { outcome: 'accepted' })).toBe(1);
    expect(await count('sessions_created_total')).toBe(1);
    expect(log.text()).toContain('"outcome":"abandoned"');
  }, 30_000);
});

async function redisFlush() {
  const { Redis } = await import('ioredis');
  const client = new Redis(redis.url);
  await client.flushall();
  client.disconnect();
}
