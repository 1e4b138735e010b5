import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { defineScript, inStore, LUA_NOW, type Script } from './redis.js';
import {
  HOUR_MS,
  type Admission,
  type AttemptLimiter,
  type SigninLimiterOptions,
} from './signin-limiter.js';

/**
 * The signin limiter of signin-limiter.ts with its per-address state in Redis (REDIS_URL), so
 * that any number of instances grant one address what one instance would. Each decision is one
 * Lua script (atomic, timed by Redis's clock). Per address, under one hash tag so that a
 * cluster keeps them in one slot:
 * - `…:failures`, a sorted set of the failures' times in the last hour;
 * - `…:last`, when the last attempt started or failed (the backoff counts from here);
 * - `…:lease`, the attempt in flight: one per address across instances. A lease outlives a
 *   crashed instance by at most LEASE_MS.
 * The bound on hashes waiting (`busy`) stays per process, as the hashing itself does; the keys
 * expire after the hour, so there is no address count to bound.
 */

const LEASE_MS = 60_000;
const keysOf = (address: string) => {
  const tag = `signin:{${address}}`;
  return [`${tag}:failures`, `${tag}:last`, `${tag}:lease`];
};

/** Returns { reason, waitMs }: reason 'ok' when admitted (the lease is then taken). */
const ADMIT = `${LUA_NOW}
local hour = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - hour)
if redis.call('EXISTS', KEYS[3]) == 1 then return {'in_flight', 1000} end
local failures = redis.call('ZCARD', KEYS[1])
if failures >= tonumber(ARGV[4]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'hourly_limit', tonumber(oldest[2]) + hour - now}
end
local last = redis.call('GET', KEYS[2])
if last then
  local free = tonumber(ARGV[1])
  local delay = 0
  if failures >= free then
    delay = math.min(tonumber(ARGV[2]) * 2 ^ math.min(failures - free, 40), tonumber(ARGV[3]))
  end
  local ready = tonumber(last) + delay
  if now < ready then return {'backoff', ready - now} end
end
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[5])
redis.call('SET', KEYS[2], now, 'PX', hour)
return {'ok', 0}
`;

/** Records a failure and gives the lease back. */
const FAILED = `${LUA_NOW}
local hour = tonumber(ARGV[2])
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[1])
redis.call('PEXPIRE', KEYS[1], hour)
redis.call('SET', KEYS[2], now, 'PX', hour)
return 1
`;

const toSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const REASONS = ['backoff', 'hourly_limit', 'in_flight'] as const;

export class RedisSigninLimiter implements AttemptLimiter {
  private readonly admitScript: Script;
  private readonly failedScript: Script;
  private hashesInFlight = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: Omit<SigninLimiterOptions, 'now' | 'maxTrackedAddresses'>,
  ) {
    this.admitScript = defineScript(redis, 'signinAdmit', 3, ADMIT);
    this.failedScript = defineScript(redis, 'signinFailed', 3, FAILED);
  }

  async admit(address: string): Promise<Admission> {
    // Checked here first: a full queue costs no round trip.
    if (this.hashesInFlight >= this.options.maxAttemptsInFlight)
      return { ok: false, reason: 'busy', retryAfterS: 1 };
    const { freeFailures, backoffBaseMs, backoffMaxMs, maxFailuresPerHour } = this.options;
    const keys = keysOf(address);
    const lease = randomBytes(16).toString('base64url');
    const answer = await inStore(() =>
      this.admitScript(
        ...keys,
        freeFailures,
        backoffBaseMs,
        backoffMaxMs,
        maxFailuresPerHour,
        LEASE_MS,
        lease,
        HOUR_MS,
      ),
    );
    const [reason, waitMs] = Array.isArray(answer) ? answer : [];
    const refused = REASONS.find((known) => known === String(reason));
    if (refused) return { ok: false, reason: refused, retryAfterS: toSeconds(Number(waitMs)) };
    if (reason !== 'ok') throw new Error(`unexpected answer from the signin script: ${reason}`);

    this.hashesInFlight += 1;
    let settled = false;
    const settle = async (work: () => Promise<unknown>) => {
      if (settled) return;
      settled = true;
      this.hashesInFlight -= 1;
      await inStore(work);
    };
    return {
      ok: true,
      ticket: {
        succeeded: () => settle(() => this.redis.del(...keys)),
        failed: () => settle(() => this.failedScript(...keys, lease, HOUR_MS)),
      },
    };
  }
}
