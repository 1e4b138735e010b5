import { describe, expect, it } from 'vitest';
import { HOUR_MS, SigninLimiter, type SigninLimiterOptions } from '../../server/signin-limiter.js';
import { fakeClock } from './helpers.js';

const DEFAULTS = {
  freeFailures: 5,
  backoffBaseMs: 1000,
  backoffMaxMs: 300_000,
  maxFailuresPerHour: 100,
  maxAttemptsInFlight: 2,
  maxTrackedAddresses: 10_000,
};

function setup(options: Partial<SigninLimiterOptions> = {}) {
  const clock = fakeClock();
  const limiter = new SigninLimiter({ ...DEFAULTS, ...options, now: clock.now });
  /** One complete wrong attempt; returns the refusal when it was not admitted. */
  const fail = (address: string) => {
    const admission = limiter.admit(address);
    if (admission.ok) admission.ticket.failed();
    return admission;
  };
  return { clock, limiter, fail };
}

describe('signin limiter', () => {
  it('lets the first five failures through without any wait', () => {
    const { fail } = setup();
    for (let i = 0; i < 5; i++) expect(fail('198.51.100.1').ok).toBe(true);
  });

  it('then asks for 1 s, 2 s, 4 s… between attempts, with the wait in Retry-After', () => {
    const { clock, fail } = setup();
    for (let i = 0; i < 5; i++) fail('198.51.100.1');
    for (const seconds of [1, 2, 4, 8, 16]) {
      expect(fail('198.51.100.1')).toEqual({ ok: false, reason: 'backoff', retryAfterS: seconds });
      clock.advance(seconds * 1000 - 1);
      expect(fail('198.51.100.1').ok).toBe(false);
      clock.advance(1);
      expect(fail('198.51.100.1').ok).toBe(true);
    }
  });

  it('never makes anyone wait more than the maximum backoff', () => {
    const { limiter } = setup({ backoffMaxMs: 300_000 });
    expect(limiter.delayAfter(4)).toBe(0);
    expect(limiter.delayAfter(5)).toBe(1000);
    expect(limiter.delayAfter(13)).toBe(256_000);
    expect(limiter.delayAfter(14)).toBe(300_000);
    expect(limiter.delayAfter(99)).toBe(300_000);
  });

  it('keeps one address to at most 100 failures in any hour, even with no backoff at all', () => {
    const { clock, fail } = setup({ freeFailures: 20, backoffMaxMs: 1, backoffBaseMs: 1 });
    const failures: number[] = [];
    const refusals = new Set<string>();
    // An attacker retrying every 100 ms for three hours.
    for (let t = 0; t < 3 * HOUR_MS; t += 100) {
      const attempt = fail('203.0.113.66');
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

  it('with the default settings an attacker gets about two dozen guesses in the first hour', () => {
    const { clock, fail } = setup();
    let guesses = 0;
    for (let t = 0; t < HOUR_MS; t += 250) {
      if (fail('203.0.113.66').ok) guesses++;
      clock.advance(250);
    }
    expect(guesses).toBeGreaterThan(15);
    expect(guesses).toBeLessThan(30);
  });

  it('recovers by itself: after an hour without failures the address starts fresh', () => {
    const { clock, fail } = setup();
    for (let i = 0; i < 5; i++) fail('198.51.100.1');
    expect(fail('198.51.100.1').ok).toBe(false);
    clock.advance(HOUR_MS + 1);
    for (let i = 0; i < 5; i++) expect(fail('198.51.100.1').ok).toBe(true);
  });

  it('forgets an address’s failures after a successful signin from it', () => {
    const { limiter, fail } = setup();
    for (let i = 0; i < 4; i++) fail('198.51.100.1');
    const admission = limiter.admit('198.51.100.1');
    if (!admission.ok) throw new Error('refused');
    admission.ticket.succeeded();
    for (let i = 0; i < 5; i++) expect(fail('198.51.100.1').ok).toBe(true);
  });

  it('does not slow down another address while one address is being limited', () => {
    const { fail, limiter } = setup();
    for (let i = 0; i < 20; i++) fail('203.0.113.66');
    expect(fail('203.0.113.66').ok).toBe(false);
    const other = limiter.admit('198.51.100.7');
    expect(other.ok).toBe(true);
  });

  it('allows one attempt in flight per address', () => {
    const { limiter } = setup();
    const first = limiter.admit('198.51.100.1');
    expect(first.ok).toBe(true);
    expect(limiter.admit('198.51.100.1')).toEqual({
      ok: false,
      reason: 'in_flight',
      retryAfterS: 1,
    });
    if (first.ok) first.ticket.failed();
    expect(limiter.admit('198.51.100.1').ok).toBe(true);
  });

  it('answers "busy, retry in 1 s" when the ceiling of attempts in flight is reached, and frees the slot after', () => {
    const { limiter } = setup({ maxAttemptsInFlight: 2 });
    const a = limiter.admit('198.51.100.1');
    const b = limiter.admit('198.51.100.2');
    expect(limiter.admit('198.51.100.3')).toEqual({ ok: false, reason: 'busy', retryAfterS: 1 });
    if (a.ok) a.ticket.succeeded();
    expect(limiter.admit('198.51.100.3').ok).toBe(true);
    if (b.ok) b.ticket.failed();
  });

  it('counts a ticket once even when it is settled twice', () => {
    const { limiter } = setup({ maxAttemptsInFlight: 2 });
    const a = limiter.admit('198.51.100.1');
    if (!a.ok) throw new Error('refused');
    a.ticket.failed();
    a.ticket.failed();
    a.ticket.succeeded();
    const b = limiter.admit('198.51.100.2');
    const c = limiter.admit('198.51.100.3');
    expect([b.ok, c.ok]).toEqual([true, true]);
  });

  it('keeps its memory bounded: the least recently seen addresses are forgotten first', () => {
    const { limiter, fail } = setup({ maxTrackedAddresses: 100 });
    for (let i = 0; i < 1000; i++) fail(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.trackedAddresses).toBe(100);
  });

  it('drops addresses whose failures have all expired', () => {
    const { clock, limiter, fail } = setup();
    for (let i = 0; i < 50; i++) fail(`10.0.0.${i}`);
    expect(limiter.trackedAddresses).toBe(50);
    clock.advance(HOUR_MS + 60_000);
    limiter.admit('10.9.9.9');
    expect(limiter.trackedAddresses).toBe(1);
  });
});
