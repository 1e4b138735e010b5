/**
 * `npm run end-sessions`: ends every session now, on every instance, password change or not
 * (for a leak). With REDIS_URL the sessions live in Redis and are deleted there; every visitor's
 * next video request then gets the ordinary 401 and the app shows the login with the expired
 * notice. Without it they live in each instance's memory, which only a restart empties.
 */
import { readSettings } from '../../config/settings.js';
import { createRedis } from '../../server/redis.js';
import { endAllSessions } from '../../server/redis-sessions.js';

let url: string;
try {
  url = readSettings(process.env, ['REDIS_URL']).REDIS_URL;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

if (!url) {
  console.error(
    [
      'REDIS_URL is not set: nothing was ended here.',
      'Without Redis each instance keeps its sessions in its own memory: restart every instance to end them all.',
      'After a leak, also set a new PASSWORD_HASH (npm run hash-password) before the restart:',
      'sessions and device cookies made under the old password then end on every instance.',
    ].join('\n'),
  );
  process.exit(1);
}

const redis = createRedis(url);
// A failure to connect is reported once, below; ioredis would also print each attempt.
redis.on('error', () => undefined);
try {
  await redis.connect();
  const ended = await endAllSessions(redis);
  console.log(
    `Ended ${ended} session${ended === 1 ? '' : 's'} in Redis. Every visitor signs in again; ` +
      'the proxy may still serve video files to one for PROXY_AUTH_CACHE_S (10 s at most).',
  );
} catch (error) {
  console.error('Redis did not answer:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  redis.disconnect();
}
