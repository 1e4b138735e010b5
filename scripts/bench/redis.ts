/**
 * What sharing the state in Redis costs under a signin flood: the load measurement (load.ts, as
 * it is) on the bench's one in-memory instance, then on two instances sharing one redis-server
 * (a private one, scripts/test-support/redis-server.ts), flooded and probed at the same time, each as hard
 * as the single instance was (B starts 2 s after A). Same run, same machine: on 2 cores the two
 * instances also compete with each other for the CPU, which the single instance did not, and
 * both floods claim the same client addresses, which the shared limiter then sees as one.
 */
import { randomBytes } from 'node:crypto';
import { startRedis, type RedisServer } from '../test-support/redis-server';
import type { RunningServer } from '../test-support/test-server';
import { loadMeasurement, startBenchServer } from './load';
import { exactly, type Measurement, type Reading, type Site } from './measure';

/**
 * Both measurements sign in from this machine's one address, and the shared limiter admits one
 * attempt in flight per address: B starts once A's signin is surely done.
 */
export const STAGGER_MS = 2_000;

type Key = 'memoryPage' | 'memoryVideo' | 'redisPage' | 'redisVideo' | 'errors';

/** The worse of the two instances, with both in the text. */
export function bothInstances(a: Reading, b: Reading): Reading {
  const worse = Number(a.measured ?? 0) >= Number(b.measured ?? 0) ? a : b;
  return {
    value: `A ${a.value}; B ${b.value}`,
    measured: worse.measured,
    unit: worse.unit,
    note: `A: ${a.note ?? ''} | B: ${b.note ?? ''}`,
  };
}

export function redisMeasurement(site: Site): Measurement<Key> {
  // The same targets as the one-instance flood (load.ts).
  const { page, video } = loadMeasurement(site).figures;
  return {
    name: 'signin flood: one instance in memory, then two instances on one Redis',
    timeoutMs: 180_000,
    figures: {
      memoryPage: {
        figure: 'Login page p99 under flood, 1 instance in memory',
        target: page.target,
      },
      memoryVideo: {
        figure: 'Video Range p99 under flood, 1 instance in memory',
        target: video.target,
      },
      redisPage: {
        figure: 'Login page p99 under flood, 2 instances on Redis',
        target: page.target,
      },
      redisVideo: {
        figure: 'Video Range p99 under flood, 2 instances on Redis',
        target: video.target,
      },
      errors: { figure: 'Page+video errors under flood, memory | Redis', target: exactly(0) },
    },
    async run(signal) {
      const memory = await loadMeasurement(site).run(signal);

      let redis: RedisServer | null = null;
      const servers: RunningServer[] = [];
      const stopAll = async () => {
        await Promise.all(servers.splice(0).map((server) => server.stop()));
        await redis?.stop();
        redis = null;
      };
      signal.addEventListener('abort', () => void stopAll(), { once: true });
      try {
        redis = await startRedis();
        const password = randomBytes(12).toString('base64url');
        // One cookie secret for both, as behind a load balancer.
        const env = { REDIS_URL: redis.url, SESSION_SECRET: randomBytes(48).toString('base64') };
        for (const name of ['a', 'b'])
          servers.push(
            await startBenchServer(password, {
              env,
              logFile: `reports/bench-server-redis-${name}.log`,
            }),
          );
        const [a, b] = await Promise.all(
          servers.map(async (server, index) => {
            await new Promise((resolve) => setTimeout(resolve, index * STAGGER_MS));
            return loadMeasurement({
              ...site,
              origin: server.origin,
              pid: server.process.pid!,
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
            measured:
              Number(memory.errors.measured ?? 0) +
              Number(a.errors.measured ?? 0) +
              Number(b.errors.measured ?? 0),
            note: `memory: ${memory.errors.note ?? ''} | A: ${a.errors.note ?? ''} | B: ${b.errors.note ?? ''}; RSS peak memory ${memory.rss.value}, A ${a.rss.value}, B ${b.rss.value}`,
          },
        };
      } finally {
        await stopAll();
      }
    },
  };
}
