/**
 * Limits password guessing without locking anyone out.
 *
 * The whole site is one shared "account", so a hard lockout would lock out every customer;
 * instead each bucket pays for its own failures. A bucket is the client address, or the
 * browser's device cookie when it carries one (device-cookie.ts: a browser that signed in
 * before is not slowed by the failures of others at its address). Per bucket:
 * - the first `freeFailures` failures in the last hour cost nothing (typos);
 * - after that, an attempt waits `backoffBaseMs * 2^(failures - freeFailures)` after the last
 *   failure, capped at `backoffMaxMs`;
 * - never more than `maxFailuresPerHour` failures in any sliding hour (ASVS 4.0.3 V2.2.1).
 * A success erases nothing: a crowd's successes must not launder a guesser's failures at the
 * same address.
 * - attempts in flight count as failures until they settle, so parallel guesses get no more
 *   than serial ones. An attempt that could only be refused because others of its bucket are
 *   still hashing waits for them in the bucket's line (first come, first served) instead.
 * A backoff of at most `maxHoldMs` is waited out in the line too, so a few typos in a crowd
 * refuse nobody. Refusals come before any hashing; the failures expire after the hour.
 * At most `maxAttemptsInFlight` attempts per process are waiting or hashing: beyond that the
 * answer is "busy", with the time the line ahead takes to drain as Retry-After.
 */

export interface SigninLimiterOptions {
  freeFailures: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxFailuresPerHour: number;
  maxAttemptsInFlight: number;
  maxHoldMs: number;
  maxTrackedAddresses: number;
  /** Milliseconds since the epoch; injected so tests need no real waiting. */
  now?: () => number;
}

export type Refusal = {
  ok: false;
  reason: 'backoff' | 'hourly_limit' | 'busy';
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
  /** `bucket`: the address, or `device:<id>` for a browser with a device cookie. */
  admit(bucket: string): Promise<Admission>;
}

/** What the rules say about one more attempt from a bucket now; `admit` has reserved it. */
export type Decision =
  | { kind: 'admit'; lease: string }
  | { kind: 'wait' }
  | { kind: 'backoff' | 'hourly_limit'; waitMs: number };

export const HOUR_MS = 3_600_000;
/** Longest an attempt waits in its bucket's line for others' hashes before "busy". */
const MAX_LINE_WAIT_MS = 30_000;
/** What the drain estimate starts from: about one production hash. */
const FIRST_DRAIN_GUESS_MS = 200;

const toSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The wait after `failures` failures in the last hour, before the next attempt. */
export function delayAfter(
  failures: number,
  {
    freeFailures,
    backoffBaseMs,
    backoffMaxMs,
  }: Pick<SigninLimiterOptions, 'freeFailures' | 'backoffBaseMs' | 'backoffMaxMs'>,
): number {
  if (failures < freeFailures) return 0;
  const exponent = Math.min(failures - freeFailures, 40);
  return Math.min(backoffBaseMs * 2 ** exponent, backoffMaxMs);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Real elapsed time, whatever a test does to `Date`. */
const monotonic = () => performance.now();

/**
 * The lines and the process-wide bound, shared by both stores. A store says what the rules
 * decide for a bucket (atomically reserving an admitted attempt) and records the outcome.
 */
export abstract class QueuedLimiter implements AttemptLimiter {
  private attempts = 0;
  /** The tail of each bucket's line: the next attempt starts when it settles. */
  private readonly lines = new Map<string, Promise<void>>();
  private settlement: { promise: Promise<void>; wake: () => void } = QueuedLimiter.nextSettlement();
  /** Average time between two settlements while attempts are queued. */
  private drainMs = FIRST_DRAIN_GUESS_MS;
  private lastSettledAt = monotonic();

  protected constructor(
    private readonly limits: Pick<SigninLimiterOptions, 'maxAttemptsInFlight' | 'maxHoldMs'>,
    /** How often a waiting attempt asks again without news (another instance may settle). */
    private readonly pollMs: number,
  ) {}

  protected abstract decide(bucket: string): Decision | Promise<Decision>;
  protected abstract record(bucket: string, lease: string, failed: boolean): void | Promise<void>;

  /** Attempts waiting or hashing in this process (for tests and metrics). */
  get inFlight(): number {
    return this.attempts;
  }

  private static nextSettlement() {
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => (wake = resolve));
    return { promise, wake };
  }

  private busy(): Refusal {
    return { ok: false, reason: 'busy', retryAfterS: toSeconds(this.attempts * this.drainMs) };
  }

  async admit(bucket: string): Promise<Admission> {
    if (this.attempts >= this.limits.maxAttemptsInFlight) return this.busy();
    this.attempts += 1;
    const ahead = this.lines.get(bucket) ?? Promise.resolve();
    let leave!: () => void;
    const done = new Promise<void>((resolve) => (leave = resolve));
    const mine = ahead.then(() => done);
    this.lines.set(bucket, mine);
    let admitted = false;
    try {
      await ahead;
      const decision = await this.decideInLine(bucket);
      if (decision.kind === 'admit') {
        admitted = true;
        return { ok: true, ticket: this.ticket(bucket, decision.lease) };
      }
      if (decision.kind === 'wait') return this.busy();
      return { ok: false, reason: decision.kind, retryAfterS: toSeconds(decision.waitMs) };
    } finally {
      leave();
      if (this.lines.get(bucket) === mine) this.lines.delete(bucket);
      if (!admitted) this.attempts -= 1;
    }
  }

  /** Asks until admitted or refused; 'wait' is returned only when the line took too long. */
  private async decideInLine(bucket: string): Promise<Decision> {
    const started = monotonic();
    /** The backoff last waited out here; the attempt holds on only while what is left shrinks. */
    let heldMs = Infinity;
    for (;;) {
      const decision = await this.decide(bucket);
      if (decision.kind === 'wait') {
        if (monotonic() - started > MAX_LINE_WAIT_MS) return decision;
        await Promise.race([this.settlement.promise, sleep(this.pollMs)]);
        continue;
      }
      // A timer may end a little before the limiter's clock says the backoff has passed (Node
      // times it from the event loop's cached clock, stale by the loop's current turn): the
      // attempt then holds on for what is left. Only while that shrinks: a clock that does not
      // move (a test's), or a new failure that lengthened the backoff, ends in the refusal.
      if (
        decision.kind === 'backoff' &&
        decision.waitMs <= this.limits.maxHoldMs &&
        decision.waitMs < heldMs
      ) {
        heldMs = decision.waitMs;
        await sleep(decision.waitMs);
        continue;
      }
      return decision;
    }
  }

  private ticket(bucket: string, lease: string): Ticket {
    let settled = false;
    const settle = async (failed: boolean) => {
      if (settled) return;
      settled = true;
      try {
        await this.record(bucket, lease, failed);
      } finally {
        this.settled();
      }
    };
    return { succeeded: () => settle(false), failed: () => settle(true) };
  }

  private settled() {
    const at = monotonic();
    // Only the gaps while others wait say how fast the line moves.
    if (this.attempts > 1) this.drainMs = 0.8 * this.drainMs + 0.2 * (at - this.lastSettledAt);
    this.lastSettledAt = at;
    this.attempts -= 1;
    const { wake } = this.settlement;
    this.settlement = QueuedLimiter.nextSettlement();
    wake();
  }
}

interface Entry {
  /** Times of failures in the last hour, oldest first. */
  failures: number[];
  /** Admitted attempts not settled yet. */
  reserved: number;
}

const SWEEP_EVERY_MS = 60_000;

export class SigninLimiter extends QueuedLimiter {
  /** Map order is recency: touched entries move to the end, eviction takes from the front. */
  private readonly entries = new Map<string, Entry>();
  private readonly options: Required<SigninLimiterOptions>;
  private lastSweep: number;

  constructor(options: SigninLimiterOptions) {
    // Every settlement is in this process and wakes the lines: the poll is only a safety net.
    super(options, 1_000);
    this.options = { now: Date.now, ...options };
    this.lastSweep = this.options.now();
  }

  /** Buckets currently remembered (for tests and metrics). */
  get trackedAddresses(): number {
    return this.entries.size;
  }

  protected decide(bucket: string): Decision {
    const now = this.options.now();
    this.sweepIfDue(now);
    const entry = this.entries.get(bucket) ?? { failures: [], reserved: 0 };
    this.forgetOldFailures(entry, now);
    const { failures, reserved } = entry;
    const { freeFailures, maxFailuresPerHour } = this.options;
    let decision: Decision = { kind: 'admit', lease: '' };
    if (failures.length + reserved >= maxFailuresPerHour) {
      decision =
        reserved > 0
          ? { kind: 'wait' }
          : { kind: 'hourly_limit', waitMs: failures[0]! + HOUR_MS - now };
    } else if (failures.length + reserved >= freeFailures) {
      const readyAt = failures[failures.length - 1]! + delayAfter(failures.length, this.options);
      if (reserved > 0) decision = { kind: 'wait' };
      else if (now < readyAt) decision = { kind: 'backoff', waitMs: readyAt - now };
    }
    if (decision.kind === 'admit') {
      entry.reserved += 1;
      this.touch(bucket, entry);
    }
    return decision;
  }

  protected record(bucket: string, _lease: string, failed: boolean) {
    const entry = this.entries.get(bucket);
    // An entry with a reservation is never evicted.
    if (!entry) return;
    entry.reserved -= 1;
    if (failed) entry.failures.push(this.options.now());
    this.touch(bucket, entry);
  }

  private forgetOldFailures(entry: Entry, now: number) {
    const cutoff = now - HOUR_MS;
    while (entry.failures.length && (entry.failures[0] as number) <= cutoff) entry.failures.shift();
  }

  private touch(bucket: string, entry: Entry) {
    this.entries.delete(bucket);
    this.entries.set(bucket, entry);
    if (this.entries.size <= this.options.maxTrackedAddresses) return;
    for (const [key, candidate] of this.entries) {
      if (this.entries.size <= this.options.maxTrackedAddresses) break;
      if (candidate.reserved === 0) this.entries.delete(key);
    }
  }

  private sweepIfDue(now: number) {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, entry] of this.entries) {
      this.forgetOldFailures(entry, now);
      if (entry.reserved === 0 && entry.failures.length === 0) this.entries.delete(key);
    }
  }
}
