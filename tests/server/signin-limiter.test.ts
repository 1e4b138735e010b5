import { describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  SigninLimiter,
  delayAfter,
  type Admission,
  type SigninLimiterOptions,
} from '../../server/signin-limiter.js';
import { fakeClock } from './helpers.js';

const DEFAULTS = {
  freeFailures: 5,
  backoffBaseMs: 1000,
  backoffMaxMs: 300_000,
  maxFailuresPerHour: 100,
  maxAttemptsInFlight: 2,
  // The rules alone: a backoff is answered at once, whatever its length.
  maxHoldMs: 0,
  maxTrackedAddresses: 10_000,
};

function setup(options: Partial<SigninLimiterOptions> = {}) {
  const clock = fakeClock();
  const limiter = new SigninLimiter({ ...DEFAULTS, ...options, now: clock.now });
  /** One complete attempt; returns the refusal when it was not admitted. */
  const attempt = async (address: string, outcome: 'failed' | 'succeeded') => {
    const admission = await limiter.admit(address);
    if (admission.ok) await admission.ticket[outcome]();
    return admission;
  };
  const fail = (address: string) => attempt(address, 'failed');
  const succeed = (address: string) => attempt(address, 'succeeded');
  return { clock, limiter, fail, succeed };
}

/** Resolves with the admission, or with 'pending' when it is still waiting in line. */
const settledOrPending = (admission: Promise<Admission>) =>
  Promise.race([
    admission,
    new Promise<'pending'>((resolve) => setTimeout(resolve, 50, 'pending')),
  ]);

describe('signin limiter', () => {
  it('lets the first five failures through without any wait', async () => {
    const { fail } = setup();
    for (let i = 0; i < 5; i++) expect((await fail('198.51.100.1')).ok).toBe(true);
  });

  it('then asks for 1 s, 2 s, 4 s… between attempts, with the wait in Retry-After', async () => {
    const { clock, fail } = setup();
    for (let i = 0; i < 5; i++) await fail('198.51.100.1');
    for (const seconds of [1, 2, 4, 8, 16]) {
      expect(await fail('198.51.100.1')).toEqual({
        ok: false,
        reason: 'backoff',
        retryAfterS: seconds,
      });
      clock.advance(seconds * 1000 - 1);
      expect((await fail('198.51.100.1')).ok).toBe(false);
      clock.advance(1);
      expect((await fail('198.51.100.1')).ok).toBe(true);
    }
  });

  it('never makes anyone wait more than the maximum backoff', () => {
    expect(delayAfter(4, DEFAULTS)).toBe(0);
    expect(delayAfter(5, DEFAULTS)).toBe(1000);
    expect(delayAfter(13, DEFAULTS)).toBe(256_000);
    expect(delayAfter(14, DEFAULTS)).toBe(300_000);
    expect(delayAfter(99, DEFAULTS)).toBe(300_000);
  });

  it('keeps one address to at most 100 failures in any hour, even with no backoff at all', async () => {
    const { clock, fail } = setup({ freeFailures: 20, backoffMaxMs: 1, backoffBaseMs: 1 });
    const failures: number[] = [];
    const refusals = new Set<string>();
    // An attacker retrying every 100 ms for three hours.
    for (let t = 0; t < 3 * HOUR_MS; t += 100) {
      const attempt = await fail('203.0.113.66');
      if (attempt.ok) failures.push(t);
      else refusals.add(attempt.reason);
      clock.advance(100);
    }
    let worst = 0;
    for (let i = 0, j = 0; i < failures.length; i++) {
      while ((failures[i] as number) - (failures[j] as number) >= HOUR_MS) j++;
      worst = Math.max(worst, i - j + 1);
    }
    expect(worst).toBe(100);
    expect(refusals).toContain('hourly_limit');
  });

  it('with the default settings an attacker gets about two dozen guesses in the first hour', async () => {
    const { clock, fail } = setup();
    let guesses = 0;
    for (let t = 0; t < HOUR_MS; t += 250) {
      if ((await fail('203.0.113.66')).ok) guesses++;
      clock.advance(250);
    }
    expect(guesses).toBeGreaterThan(15);
    expect(guesses).toBeLessThan(30);
  });

  it('recovers by itself: after an hour without failures the address starts fresh', async () => {
    const { clock, fail } = setup();
    for (let i = 0; i < 5; i++) await fail('198.51.100.1');
    expect((await fail('198.51.100.1')).ok).toBe(false);
    clock.advance(HOUR_MS + 1);
    for (let i = 0; i < 5; i++) expect((await fail('198.51.100.1')).ok).toBe(true);
  });

  it('a success erases no failure: they still count for the backoff and the hourly ceiling', async () => {
    const { clock, fail, succeed } = setup({ maxFailuresPerHour: 8 });
    for (let i = 0; i < 5; i++) await fail('198.51.100.1');
    expect((await fail('198.51.100.1')).ok).toBe(false);
    clock.advance(1000);
    expect((await succeed('198.51.100.1')).ok).toBe(true);
    expect((await fail('198.51.100.1')).ok).toBe(true);
    expect(await fail('198.51.100.1')).toEqual({ ok: false, reason: 'backoff', retryAfterS: 2 });
  });

  it('does not slow down another address while one address is being limited', async () => {
    const { fail, limiter } = setup();
    for (let i = 0; i < 20; i++) await fail('203.0.113.66');
    expect((await fail('203.0.113.66')).ok).toBe(false);
    expect((await limiter.admit('198.51.100.7')).ok).toBe(true);
  });

  it('lets attempts from one address wait their turn instead of refusing them', async () => {
    const { limiter } = setup({ freeFailures: 1, maxAttemptsInFlight: 10 });
    const first = await limiter.admit('198.51.100.1');
    if (!first.ok) throw new Error('refused');
    // One failure more would pass the free ones: the second waits for the first to settle.
    const second = limiter.admit('198.51.100.1');
    expect(await settledOrPending(second)).toBe('pending');
    await first.ticket.succeeded();
    expect((await second).ok).toBe(true);
  });

  it('counts attempts in flight as failures: parallel guesses get no more than serial ones', async () => {
    const { limiter } = setup({ maxAttemptsInFlight: 50 });
    const admissions = Array.from({ length: 20 }, () => limiter.admit('203.0.113.66'));
    const settled: Admission[] = [];
    // Each admitted guess fails as soon as it is admitted, like a fast wrong password.
    await Promise.all(
      admissions.map(async (pending) => {
        const admission = await pending;
        settled.push(admission);
        if (admission.ok) await admission.ticket.failed();
      }),
    );
    expect(settled.filter((admission) => admission.ok)).toHaveLength(5);
    expect(
      settled.filter((admission) => !admission.ok && admission.reason === 'backoff'),
    ).toHaveLength(15);
  });

  it('answers "busy" with the time the line takes to drain when the process is full', async () => {
    const { limiter } = setup({ maxAttemptsInFlight: 2 });
    const a = await limiter.admit('198.51.100.1');
    const b = await limiter.admit('198.51.100.2');
    const refused = await limiter.admit('198.51.100.3');
    expect(refused).toMatchObject({ ok: false, reason: 'busy' });
    expect(refused.ok === false && refused.retryAfterS).toBeGreaterThanOrEqual(1);
    if (a.ok) await a.ticket.succeeded();
    expect((await limiter.admit('198.51.100.3')).ok).toBe(true);
    if (b.ok) await b.ticket.failed();
  });

  it('waits out a backoff no longer than maxHoldMs instead of refusing it', async () => {
    const { limiter, fail } = setup({ freeFailures: 1, backoffBaseMs: 30, maxHoldMs: 100 });
    await fail('198.51.100.1');
    // The fake clock does not move: after the hold the backoff is still there, and only then refused.
    const started = performance.now();
    expect(await limiter.admit('198.51.100.1')).toMatchObject({ ok: false, reason: 'backoff' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('counts a ticket once even when it is settled twice', async () => {
    const { limiter } = setup({ maxAttemptsInFlight: 2 });
    const a = await limiter.admit('198.51.100.1');
    if (!a.ok) throw new Error('refused');
    await a.ticket.failed();
    await a.ticket.failed();
    await a.ticket.succeeded();
    const b = await limiter.admit('198.51.100.2');
    const c = await limiter.admit('198.51.100.3');
    expect([b.ok, c.ok]).toEqual([true, true]);
  });

  it('keeps its memory bounded: the least recently seen addresses are forgotten first', async () => {
    const { limiter, fail } = setup({ maxTrackedAddresses: 100 });
    for (let i = 0; i < 1000; i++) await fail(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.trackedAddresses).toBe(100);
  });

  it('drops addresses whose failures have all expired', async () => {
    const { clock, limiter, fail } = setup();
    for (let i = 0; i < 50; i++) await fail(`10.0.0.${i}`);
    expect(limiter.trackedAddresses).toBe(50);
    clock.advance(HOUR_MS + 60_000);
    await limiter.admit('10.9.9.9');
    expect(limiter.trackedAddresses).toBe(1);
  });
});
