import { Redis } from 'ioredis';

/**
 * The one Redis client of a process (REDIS_URL), shared by the sessions, the signin limiter and
 * the request counters. It fails fast: while Redis is unreachable a command errors within
 * `COMMAND_TIMEOUT_MS` instead of queueing, so that requests get a 503 at once, and the client
 * keeps reconnecting in the background so that the server recovers without a restart.
 */

const CONNECT_TIMEOUT_MS = 500;
const COMMAND_TIMEOUT_MS = 500;
const MAX_RECONNECT_DELAY_MS = 1_000;
/** What a client is told to wait when the store is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

export function createRedis(url: string): Redis {
  return new Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    // A queued command would wait for the reconnection while the visitor waits for an answer.
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
    lazyConnect: true,
  });
}

/**
 * The shared store did not answer. Becomes a 503 with Retry-After (errors.ts), never a 401:
 * the app reads a 401 as the end of the visitor's session.
 */
class StoreUnavailable extends Error {
  readonly statusCode = 503;
  readonly code = 'STORE_UNAVAILABLE';
  readonly headers = { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) };

  constructor(cause: unknown) {
    super('the shared store (Redis) did not answer', { cause });
  }
}

/** Runs a store operation; any failure of Redis becomes a StoreUnavailable. */
export async function inStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw new StoreUnavailable(error);
  }
}

/** Milliseconds since the epoch on the Redis server, for scripts: instances' clocks don't matter. */
export const LUA_NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/** Does Redis answer a PING within `timeoutMs`? */
export async function redisAnswers(redis: Redis, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const pong = redis.ping().then(
    (answer) => answer === 'PONG',
    () => false,
  );
  try {
    return await Promise.race([pong, late]);
  } finally {
    clearTimeout(timer);
  }
}

export type Script = (...args: (string | number)[]) => Promise<unknown>;

/** A Lua script run atomically by Redis (EVALSHA, and EVAL again after a Redis restart). */
export function defineScript(redis: Redis, name: string, keys: number, lua: string): Script {
  redis.defineCommand(name, { numberOfKeys: keys, lua });
  // defineCommand adds the method at run time; its type cannot know about it.
  const command = (redis as unknown as Record<string, Script>)[name];
  if (!command) throw new Error(`ioredis did not define ${name}`);
  return (...args) => command.apply(redis, args);
}
