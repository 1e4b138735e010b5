/**
 * What sharing the state in Redis costs under a signin flood: the load measurement (load.ts, as
 * it is) on the bench's one in-memory instance, then on two instances sharing one redis-server
 * (a private one, scripts/redis-server.ts), flooded and probed at the same time, each as hard
 * as the single instance was (B starts 2 s after A). Same run, same machine: on 2 cores the two
 * instances also compete with each other for the CPU, which the single instance did not, and
 * both floods claim the same client addresses, which the shared limiter then sees as one.
 */
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../server/password';
import { startRedis, type RedisServer } from '../redis-server';
import { loadMeasurement } from './load';
import type { Measurement } from './measure';
import type { Value } from './report';
import { startBenchServer, type BenchServer } from './server';
import type { Site } from './site';

/**
 * Both measurements sign in from this machine's one address, and the shared limiter admits one
 * attempt in flight per address: B starts once A's signin is surely done.
 */
const STAGGER_MS = 2_000;

type Key = 'memoryPage' | 'memoryVideo' | 'redisPage' | 'redisVideo' | 'errors';

/** The worse of the two instances, with both in the text. */
function bothInstances(a: Value, b: Value): Value {
  const worse = (a.measured ?? 0) >= (b.measured ?? 0) ? a : b;
  return {
    value: `A ${a.value}; B ${b.value}`,
    met: a.met === true && b.met === true,
    measured: worse.measured ?? null,
    unit: worse.unit,
    note: `A: ${a.note ?? ''} | B: ${b.note ?? ''}`,
  };
}

export function redisMeasurement(site: Site): Measurement<Key> {
  const target = '≤ 3× alone';
  return {
    name: 'signin flood: one instance in memory, then two instances on one Redis',
    timeoutMs: 180_000,
    figures: {
      memoryPage: { figure: 'Login page p99 under flood, 1 instance in memory', target },
      memoryVideo: { figure: 'Video Range p99 under flood, 1 instance in memory', target },
      redisPage: { figure: 'Login page p99 under flood, 2 instances on Redis', target },
      redisVideo: { figure: 'Video Range p99 under flood, 2 instances on Redis', target },
      errors: { figure: 'Page+video errors under flood, memory | Redis', target: '0' },
    },
    async run(signal) {
      const memory = await loadMeasurement(site).run(signal);

      let redis: RedisServer | null = null;
      const servers: BenchServer[] = [];
      const stopAll = async () => {
        await Promise.all(servers.splice(0).map((server) => server.stop()));
        await redis?.stop();
        redis = null;
      };
      signal.addEventListener('abort', () => void stopAll(), { once: true });
      try {
        redis = await startRedis();
        const password = randomBytes(12).toString('base64url');
        // One password and one cookie secret for both, as behind a load balancer.
        const shared = {
          REDIS_URL: redis.url,
          PASSWORD_HASH: await hashPassword(password),
          SESSION_SECRET: randomBytes(48).toString('base64'),
        };
        for (const name of ['a', 'b'])
          servers.push(await startBenchServer(`reports/bench-server-redis-${name}.log`, shared));
        const [a, b] = await Promise.all(
          servers.map(async (server, index) => {
            await new Promise((resolve) => setTimeout(resolve, index * STAGGER_MS));
            return loadMeasurement({
              ...site,
              origin: server.origin,
              pid: server.pid,
              password,
            }).run(signal);
          }),
        );
        if (!a || !b) throw new Error('two instances were expected');
        return {
          memoryPage: memory.page,
          memoryVideo: memory.video,
          redisPage: bothInstances(a.page, b.page),
          redisVideo: bothInstances(a.video, b.video),
          errors: {
            value: `${memory.errors.value} | A ${a.errors.value}, B ${b.errors.value}`,
            met: memory.errors.met === true && a.errors.met === true && b.errors.met === true,
            measured:
              (memory.errors.measured ?? 0) + (a.errors.measured ?? 0) + (b.errors.measured ?? 0),
            note: `memory: ${memory.errors.note ?? ''} | A: ${a.errors.note ?? ''} | B: ${b.errors.note ?? ''}; RSS peak memory ${memory.rss.value}, A ${a.rss.value}, B ${b.rss.value}`,
          },
        };
      } finally {
        await stopAll();
      }
    },
  };
}
