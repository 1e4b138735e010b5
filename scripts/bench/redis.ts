/** The load section's flood on one instance in memory, then on two sharing one Redis. */
import { randomBytes } from 'node:crypto';
import { startRedis } from '../test-support/redis-server';
import type { RunningServer } from '../test-support/test-server';
import { loadMeasurement, startBenchServer } from './load';
import { exactly, type Measurement, type Reading, type Site, figure } from './measure';

/**
 * Two bench servers on one redis-server (and one cookie secret, as behind a load balancer),
 * with `env` added; all stopped by `stop` or when `signal` aborts.
 */
export async function twoInstancesOnRedis(
  name: string,
  env: Record<string, string>,
  signal: AbortSignal,
) {
  const redis = await startRedis();
  const password = randomBytes(12).toString('base64url');
  const shared = { REDIS_URL: redis.url, SESSION_SECRET: randomBytes(48).toString('base64') };
  const servers: RunningServer[] = [];
  const stop = async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await redis.stop();
  };
  // Also after a failed start: the measurement's end aborts `signal`.
  signal.addEventListener('abort', () => void stop(), { once: true });
  for (const which of ['a', 'b']) {
    const logFile = `reports/bench-server-${name}-${which}.log`;
    servers.push(await startBenchServer(password, { env: { ...shared, ...env }, logFile }));
  }
  return { servers: servers as [RunningServer, RunningServer], password, stop };
}

/**
 * load.ts's measurement on two sites at once, B 2 s after A: both sign in from this machine's
 * one address, and the shared limiter admits one attempt in flight per address.
 */
export function floodBoth([a, b]: Site[], signal: AbortSignal, onFlood?: () => void) {
  const flood = async (site: Site, afterMs: number) => {
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    return loadMeasurement(site, onFlood).run(signal);
  };
  return Promise.all([flood(a!, 0), flood(b!, 2_000)]);
}

/** The worse of the two instances, with both in the text. */
export function bothInstances(a: Reading, b: Reading): Reading {
  const worse = Number(a.measured ?? 0) >= Number(b.measured ?? 0) ? a : b;
  return { value: `A ${a.value}; B ${b.value}`, measured: worse.measured };
}

type Key = 'memoryPage' | 'memoryVideo' | 'redisPage' | 'redisVideo' | 'errors';

export function redisMeasurement(site: Site): Measurement<Key> {
  // The same targets as the one-instance flood (load.ts).
  const { page, video } = loadMeasurement(site).figures;
  return {
    name: 'signin flood: one instance in memory, then two instances on one Redis',
    timeoutMs: 180_000,
    figures: {
      memoryPage: figure('Login page p99 under flood, 1 instance in memory', page.target),
      memoryVideo: figure('Video Range p99 under flood, 1 instance in memory', video.target),
      redisPage: figure('Login page p99 under flood, 2 instances on Redis', page.target),
      redisVideo: figure('Video Range p99 under flood, 2 instances on Redis', video.target),
      errors: figure('Page+video errors under flood, memory | Redis', exactly(0)),
    },
    async run(signal) {
      const memory = await loadMeasurement(site).run(signal);
      const { servers, password, stop } = await twoInstancesOnRedis('redis', {}, signal);
      try {
        const sites = servers.map((server) => ({
          ...site,
          origin: server.origin,
          pid: server.process.pid!,
          password,
        }));
        const [a, b] = await floodBoth(sites, signal);
        const errors = [memory, a, b].map((run) => Number(run.errors.measured ?? 0));
        return {
          memoryPage: memory.page,
          memoryVideo: memory.video,
          redisPage: bothInstances(a.page, b.page),
          redisVideo: bothInstances(a.video, b.video),
          errors: {
            value: `${memory.errors.value} | A ${a.errors.value}, B ${b.errors.value}`,
            measured: errors.reduce((sum, n) => sum + n, 0),
            note: `RSS peak memory ${memory.rss.value}, A ${a.rss.value}, B ${b.rss.value}`,
          },
        };
      } finally {
        await stop();
      }
    },
  };
}
