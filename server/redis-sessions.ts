import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { defineScript, inStore, LUA_NOW, type Script } from './redis.js';
import { digest, type Session, type SessionStore } from './sessions.js';

/**
 * Sessions in Redis (REDIS_URL), seen by every instance at once. The key is a digest of the
 * token (a dump of Redis hands out no live cookie); Redis's own expiry ends the session
 * `ttlMs` after signin, by Redis's clock, and nothing ever extends it (no touch, no GETEX).
 * Memory is bounded by Redis's `maxmemory` rather than SESSION_MAX_COUNT: keeping an order of
 * use would cost a write per video request.
 */

const PREFIX = 'session:';

/** Value: "createdAt expiresAt" in milliseconds, by Redis's clock. */
const CREATE = `${LUA_NOW}
local ttl = tonumber(ARGV[1])
redis.call('SET', KEYS[1], now .. ' ' .. (now + ttl), 'PX', ttl, 'NX')
return now
`;

function parse(value: string | null): Session | null {
  const match = value ? /^(\d+) (\d+)$/.exec(value) : null;
  if (!match) return null;
  return { createdAt: Number(match[1]), expiresAt: Number(match[2]) };
}

export class RedisSessionStore implements SessionStore {
  private readonly createScript: Script;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {
    this.createScript = defineScript(redis, 'sessionCreate', 1, CREATE);
  }

  async create(): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const createdAt = Number(
      await inStore(() => this.createScript(PREFIX + digest(token), this.ttlMs)),
    );
    return { token, session: { createdAt, expiresAt: createdAt + this.ttlMs } };
  }

  async get(token: string): Promise<Session | null> {
    return parse(await inStore(() => this.redis.get(PREFIX + digest(token))));
  }

  async delete(token: string): Promise<void> {
    await inStore(() => this.redis.del(PREFIX + digest(token)));
  }

  /** The client belongs to the app, which closes it after everything else. */
  async close(): Promise<void> {}
}
