import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { defineScript, inStore, LUA_NOW, type Script } from './redis.js';
import { digest, type Session, type SessionStore } from './sessions.js';

/**
 * Sessions in Redis (REDIS_URL), seen by every instance at once. The key is a digest of the
 * token (a dump of Redis hands out no live cookie); Redis's own expiry ends the session
 * `ttlMs` after signin, by Redis's clock, and nothing ever extends it (no touch, no GETEX).
 * Memory is bounded by Redis's `maxmemory` rather than SESSION_MAX_COUNT: keeping an order of
 * use would cost a write per video request. A session made under another PASSWORD_HASH (its
 * fingerprint is in the value) is no session here: a password change ends them all.
 */

const PREFIX = 'session:';

/** Value: "createdAt expiresAt password" (milliseconds by Redis's clock, the fingerprint). */
const CREATE = `${LUA_NOW}
local ttl = tonumber(ARGV[1])
redis.call('SET', KEYS[1], now .. ' ' .. (now + ttl) .. ' ' .. ARGV[2], 'PX', ttl, 'NX')
return now
`;

function parse(value: string | null, password: string): Session | null {
  // A value without a fingerprint was made before sessions were bound: it ends too.
  const match = value ? /^(\d+) (\d+) (\S+)$/.exec(value) : null;
  if (!match || match[3] !== password) return null;
  return { createdAt: Number(match[1]), expiresAt: Number(match[2]) };
}

/**
 * Ends every session in Redis now, whatever password it was made with (`npm run end-sessions`,
 * for a leak). Returns how many there were. SCAN, not KEYS: Redis keeps answering meanwhile.
 */
export async function endAllSessions(redis: Redis): Promise<number> {
  let ended = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    if (keys.length) ended += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return ended;
}

export class RedisSessionStore implements SessionStore {
  private readonly createScript: Script;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
    /** The fingerprint of the PASSWORD_HASH in force. */
    private readonly password: string,
  ) {
    this.createScript = defineScript(redis, 'sessionCreate', 1, CREATE);
  }

  async create(): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const createdAt = Number(
      await inStore(() => this.createScript(PREFIX + digest(token), this.ttlMs, this.password)),
    );
    return { token, session: { createdAt, expiresAt: createdAt + this.ttlMs } };
  }

  async get(token: string): Promise<Session | null> {
    return parse(await inStore(() => this.redis.get(PREFIX + digest(token))), this.password);
  }

  async delete(token: string): Promise<void> {
    await inStore(() => this.redis.del(PREFIX + digest(token)));
  }

  /** The client belongs to the app, which closes it after everything else. */
  async close(): Promise<void> {}
}
