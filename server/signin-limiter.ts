/**
 * Limits password guessing without locking anyone out.
 *
 * The whole site is one shared "account", so a hard lockout would lock out every customer;
 * instead each client address pays for its own failures:
 * - the first `freeFailures` failures in the last hour cost nothing (typos happen);
 * - after that, each attempt waits `backoffBaseMs * 2^(failures - freeFailures)` after the
 *   previous one, capped at `backoffMaxMs`;
 * - never more than `maxFailuresPerHour` failures in any sliding hour (ASVS 4.0.3 V2.2.1);
 * - one attempt in flight per address, so one address can hold at most one hash;
 * - at most `maxAttemptsInFlight` attempts in flight overall (hashing or waiting to hash),
 *   to bound the queue; beyond that the answer is "retry in 1 s".
 * It answers before any hashing; a success clears the address's record. Failures expire
 * after the hour, so limits recover by themselves.
 */

export interface SigninLimiterOptions {
  freeFailures: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxFailuresPerHour: number;
  maxAttemptsInFlight: number;
  maxTrackedAddresses: number;
  /** Milliseconds since the epoch; injected so tests need no real waiting. */
  now?: () => number;
}

export type Refusal = {
  ok: false;
  reason: 'backoff' | 'hourly_limit' | 'in_flight' | 'busy';
  retryAfterS: number;
};

/** Settles one admitted attempt; call exactly one of them, exactly once. */
interface Ticket {
  succeeded(): void | Promise<void>;
  failed(): void | Promise<void>;
}

export type Admission = { ok: true; ticket: Ticket } | Refusal;

/** This in-memory limiter, or the shared one in Redis (redis-signin-limiter.ts). */
export interface AttemptLimiter {
  admit(address: string): Admission | Promise<Admission>;
}

interface Entry {
  /** Times of failures in the last hour, oldest first. */
  failures: number[];
  inFlight: boolean;
  /** When the last attempt started or failed; the backoff counts from here. */
  lastAt: number;
}

export const HOUR_MS = 3_600_000;
const SWEEP_EVERY_MS = 60_000;

const toSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class SigninLimiter implements AttemptLimiter {
  /** Map order is recency: touched entries move to the end, eviction takes from the front. */
  private readonly entries = new Map<string, Entry>();
  private readonly options: Required<SigninLimiterOptions>;
  private hashesInFlight = 0;
  private lastSweep: number;

  constructor(options: SigninLimiterOptions) {
    this.options = { now: Date.now, ...options };
    this.lastSweep = this.options.now();
  }

  /** Addresses currently remembered (for tests and metrics). */
  get trackedAddresses(): number {
    return this.entries.size;
  }

  /** The wait after `failures` failures in the last hour, before the next attempt. */
  delayAfter(failures: number): number {
    const { freeFailures, backoffBaseMs, backoffMaxMs } = this.options;
    if (failures < freeFailures) return 0;
    const exponent = Math.min(failures - freeFailures, 40);
    return Math.min(backoffBaseMs * 2 ** exponent, backoffMaxMs);
  }

  admit(address: string): Admission {
    const now = this.options.now();
    this.sweepIfDue(now);
    const entry = this.entries.get(address);
    if (entry) {
      this.forgetOldFailures(entry, now);
      if (entry.inFlight) return { ok: false, reason: 'in_flight', retryAfterS: 1 };
      const failures = entry.failures.length;
      if (failures >= this.options.maxFailuresPerHour) {
        const oldest = entry.failures[0] ?? now;
        return {
          ok: false,
          reason: 'hourly_limit',
          retryAfterS: toSeconds(oldest + HOUR_MS - now),
        };
      }
      const readyAt = entry.lastAt + this.delayAfter(failures);
      if (now < readyAt)
        return { ok: false, reason: 'backoff', retryAfterS: toSeconds(readyAt - now) };
    }
    if (this.hashesInFlight >= this.options.maxAttemptsInFlight)
      return { ok: false, reason: 'busy', retryAfterS: 1 };

    const admitted: Entry = entry ?? { failures: [], inFlight: false, lastAt: now };
    admitted.inFlight = true;
    admitted.lastAt = now;
    this.touch(address, admitted);
    this.hashesInFlight += 1;

    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      this.hashesInFlight -= 1;
      admitted.inFlight = false;
      // An entry in flight is never evicted, so `admitted` is still the address's entry.
      if (failed) {
        const at = this.options.now();
        admitted.failures.push(at);
        admitted.lastAt = at;
        this.touch(address, admitted);
      } else {
        this.entries.delete(address);
      }
    };
    return { ok: true, ticket: { succeeded: () => settle(false), failed: () => settle(true) } };
  }

  private forgetOldFailures(entry: Entry, now: number) {
    const cutoff = now - HOUR_MS;
    while (entry.failures.length && (entry.failures[0] as number) <= cutoff) entry.failures.shift();
  }

  private touch(address: string, entry: Entry) {
    this.entries.delete(address);
    this.entries.set(address, entry);
    if (this.entries.size <= this.options.maxTrackedAddresses) return;
    for (const [key, candidate] of this.entries) {
      if (this.entries.size <= this.options.maxTrackedAddresses) break;
      if (!candidate.inFlight) this.entries.delete(key);
    }
  }

  private sweepIfDue(now: number) {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, entry] of this.entries) {
      this.forgetOldFailures(entry, now);
      if (!entry.inFlight && entry.failures.length === 0) this.entries.delete(key);
    }
  }
}
