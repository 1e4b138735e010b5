import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { defineScript, inStore, LUA_NOW, type Script } from './redis.js';
import {
  HOUR_MS,
  QueuedLimiter,
  type Decision,
  type SigninLimiterOptions,
} from './signin-limiter.js';

/**
 * The signin limiter of signin-limiter.ts with its per-bucket state in Redis (REDIS_URL), so
 * that any number of instances grant one address (or one device) what one instance would.
 * Each decision is one Lua script (atomic, timed by Redis's clock). Per bucket, under one hash
 * tag so that a cluster keeps them in one slot:
 * - `…:failures`, a sorted set of the failures' times in the last hour;
 * - `…:leases`, the attempts in flight, each scored by when its lease runs out: a crashed
 *   instance's attempts stop counting after LEASE_MS.
 * The lines and the bound on attempts waiting (`busy`) stay per process, as the hashing
 * itself does; an instance learns of another's settlements by asking again every POLL_MS.
 */

const LEASE_MS = 60_000;
const POLL_MS = 25;
const keysOf = (bucket: string) => {
  const tag = `signin:{${bucket}}`;
  return [`${tag}:failures`, `${tag}:leases`];
};

/** Returns { kind, waitMs }; 'admit' has added the lease. The rules of SigninLimiter.decide. */
const DECIDE = `${LUA_NOW}
local free, base, max, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local lease_ms, hour = tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - hour)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local failures = redis.call('ZCARD', KEYS[1])
local reserved = redis.call('ZCARD', KEYS[2])
if failures + reserved >= cap then
  if reserved > 0 then return {'wait', 0} end
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'hourly_limit', tonumber(oldest[2]) + hour - now}
end
if failures + reserved >= free then
  if reserved > 0 then return {'wait', 0} end
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if last[2] then
    local ready = tonumber(last[2]) + math.min(base * 2 ^ math.min(failures - free, 40), max)
    if now < ready then return {'backoff', ready - now} end
  end
end
redis.call('ZADD', KEYS[2], now + lease_ms, ARGV[5])
redis.call('PEXPIRE', KEYS[2], lease_ms)
return {'admit', 0}
`;

/** Gives the lease back, and records a failure's time. */
const SETTLE = `${LUA_NOW}
local hour = tonumber(ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] == 'failed' then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[1])
  redis.call('PEXPIRE', KEYS[1], hour)
end
return 1
`;

const REFUSALS = ['backoff', 'hourly_limit'] as const;

export class RedisSigninLimiter extends QueuedLimiter {
  private readonly decideScript: Script;
  private readonly settleScript: Script;

  constructor(
    redis: Redis,
    private readonly options: Omit<SigninLimiterOptions, 'now' | 'maxTrackedAddresses'>,
  ) {
    super(options, POLL_MS);
    this.decideScript = defineScript(redis, 'signinDecide', 2, DECIDE);
    this.settleScript = defineScript(redis, 'signinSettle', 2, SETTLE);
  }

  protected async decide(bucket: string): Promise<Decision> {
    const { freeFailures, backoffBaseMs, backoffMaxMs, maxFailuresPerHour } = this.options;
    const lease = randomBytes(16).toString('base64url');
    const answer = await inStore(() =>
      this.decideScript(
        ...keysOf(bucket),
        freeFailures,
        backoffBaseMs,
        backoffMaxMs,
        maxFailuresPerHour,
        lease,
        LEASE_MS,
        HOUR_MS,
      ),
    );
    const [kind, waitMs] = Array.isArray(answer) ? answer.map(String) : [];
    if (kind === 'admit') return { kind, lease };
    if (kind === 'wait') return { kind };
    const refused = REFUSALS.find((known) => known === kind);
    if (refused) return { kind: refused, waitMs: Number(waitMs) };
    throw new Error(`unexpected answer from the signin script: ${kind}`);
  }

  protected async record(bucket: string, lease: string, failed: boolean) {
    await inStore(() =>
      this.settleScript(...keysOf(bucket), lease, failed ? 'failed' : 'succeeded', HOUR_MS),
    );
  }
}
