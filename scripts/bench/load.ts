/**
 * The server under a signin flood (p99 under flood ≤ 3× alone, no errors, RSS ≤ 300 MB), probed
 * at a steady rate by autocannon, on one instance, then on two sharing one Redis; the flood is
 * this file again, forked (its CPU is not ours).
 */
import autocannon, { type Request } from 'autocannon';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../../server/password';
import { startRedis } from '../test-support/redis-server';
import { SIGNIN_PATH, residentBytes, signedIn, signinBody } from '../test-support/test-server';
import { startServer, type RunningServer } from '../test-support/test-server';
import { atEnd, atMost, exactly, figure, quantile, sleep } from './measure';
import type { Measurement, Reading, Site } from './measure';

/**
 * The server as in production, with its own password hash and secret, but for generous
 * per-address signin limits, so that the flood's signins (one address each, claimed through the
 * loopback proxy) really reach the hashing.
 */
export const BENCH_SERVER_ENV = {
  NODE_ENV: 'production',
  TRUST_PROXY: '127.0.0.1',
  SIGNIN_FREE_FAILURES: '20',
  SIGNIN_MAX_FAILURES_PER_HOUR: '100',
  SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000',
};

/** A bench server with `password`; `env` adds to its settings, its log goes to `logFile`. */
export async function startBenchServer(
  password: string,
  {
    env = {},
    logFile = 'reports/bench-server.log',
  }: { env?: Record<string, string>; logFile?: string } = {},
) {
  const secrets = {
    PASSWORD_HASH: await hashPassword(password),
    SESSION_SECRET: randomBytes(48).toString('base64'),
  };
  return startServer({ ...BENCH_SERVER_ENV, ...secrets, ...env }, { logFile });
}

const PROBE = { connections: 2, overallRate: 100 } as const;
const FLOOD = { connections: 50, durationS: 10, niceness: 10 } as const;
/** Probes alone for ALONE_S before and after; under the flood from its ramp's end to before its end. */
const [ALONE_S, FLOOD_RAMP_MS, PROBE_UNDER_FLOOD_S] = [5, 500, 8];
const VIDEO_RANGE = 'bytes=0-65535';

export const describeLoad = () =>
  `autocannon 8 on loopback; probes ${PROBE.overallRate} req/s on ${PROBE.connections} connections each for GET login and GET /api/video (${VIDEO_RANGE}), alone for ${ALONE_S} s before and ${ALONE_S} s after (pooled), and for ${PROBE_UNDER_FLOOD_S} s under a flood of ${FLOOD.connections} connections of POST signin (half right, half wrong password, one client address per request, generator at nice ${FLOOD.niceness}), server defaults for SIGNIN_MAX_CONCURRENT_HASHES`;

type Probe = { latencies: number[]; errors: number; count: number };

/** Asks `url` at a steady rate for `s` seconds; a status other than `expected` is an error. */
async function probe(url: string, headers: Record<string, string>, expected: number, s: number) {
  const result: Probe = { latencies: [], errors: 0, count: 0 };
  const instance = autocannon({ url, headers, duration: s, timeout: 10, ...PROBE });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    result.latencies.push(ms);
    result.count += 1;
    if (status !== expected) result.errors += 1;
  });
  instance.on('reqError', () => {
    result.count += 1;
    result.errors += 1;
  });
  await instance;
  return result;
}

/** The page and the video probes at once. */
async function probeBoth(site: Site, cookie: string, seconds: number) {
  const [page, video] = await Promise.all([
    probe(`${site.origin}${site.base}/login`, { 'accept-encoding': 'br, gzip' }, 200, seconds),
    probe(`${site.origin}/api/video`, { cookie, range: VIDEO_RANGE }, 206, seconds),
  ]);
  return { page, video };
}

/** 10.0.0.1, 10.0.0.2, …: a distinct address for every request. */
const address = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** The flood, in this file's own process when forked with BENCH_FLOOD; half the right password. */
async function flood({ origin, username, password }: Site) {
  let sent = 0;
  const signin = (request: Request): Request => {
    sent += 1;
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': address(sent) };
    const body = signinBody(username, sent % 2 ? password : `equivocada-${sent}`);
    return { ...request, headers, body };
  };
  const instance = autocannon({
    ...{ url: origin, connections: FLOOD.connections, duration: FLOOD.durationS, timeout: 30 },
    requests: [{ method: 'POST', path: SIGNIN_PATH, setupRequest: signin }],
  });
  instance.once('start', () => process.send?.({ kind: 'started' }));
  const { statusCodeStats, requests } = await instance;
  const statusCounts = Object.entries(statusCodeStats).map(
    ([status, { count }]) => `${count}× ${status}`,
  );
  process.send?.({ kind: 'done', statusCounts, total: requests.total }, () => process.exit(0));
}
if (process.env.BENCH_FLOOD) await flood(JSON.parse(process.env.BENCH_FLOOD) as Site);

/** The flood in its own process, so that its client work is not on the event loop that times. */
function startFlood(site: Site, signal: AbortSignal) {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_FLOOD: JSON.stringify({ ...site, agent: undefined }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  signal.addEventListener('abort', () => child.kill(), { once: true });
  // In production the flood's CPU is the attacker's; here the generator yields to the server.
  if (child.pid) setPriority(child.pid, FLOOD.niceness);
  const message = <T>(kind: string) =>
    new Promise<T>((resolve, reject) => {
      child.on('message', (m: { kind: string }) => m.kind === kind && resolve(m as T));
      child.once('exit', (code) => reject(new Error(`the flood exited (${code}) before ${kind}`)));
    });
  const done = message<{ statusCounts: string[]; total: number }>('done');
  // Awaited only after the probes; a flood that dies early must not crash the bench meanwhile.
  done.catch(() => undefined);
  return { started: message('started'), done };
}

function ratio(alone: Probe, flooded: Probe) {
  const [before, during] = [quantile(alone.latencies, 0.99), quantile(flooded.latencies, 0.99)];
  const [ms, times] = [(n: number) => `${n.toFixed(2)} ms`, during / before];
  return { value: `${ms(during)} vs ${ms(before)} alone (${times.toFixed(1)}×)`, measured: times };
}

/** One flood on `site`; `onFlood` is called as its process starts (the proxy section kills an instance then). */
async function floodOnce(site: Site, signal: AbortSignal, onFlood = () => {}) {
  const { cookie } = await signedIn(site);
  // Warm-up: the first requests pay for JIT and file handles, not for the flood.
  await probeBoth(site, cookie, 1);
  const before = await probeBoth(site, cookie, ALONE_S);
  const flood = startFlood(site, signal);
  onFlood();
  await flood.started;
  let rssPeak = 0;
  const sample = () => (rssPeak = Math.max(rssPeak, residentBytes(site.pid) / 2 ** 20));
  sample();
  const sampling = setInterval(sample, 100);
  await sleep(FLOOD_RAMP_MS);
  const flooded = await probeBoth(site, cookie, PROBE_UNDER_FLOOD_S);
  const { statusCounts, total } = await flood.done;
  clearInterval(sampling);
  sample();
  // The baseline is taken on both sides of the flood and pooled, so that a slow drift in the
  // machine's other work does not pass for an effect of the flood.
  const after = await probeBoth(site, cookie, ALONE_S);
  const alone = (key: 'page' | 'video') => ({
    latencies: [...before[key].latencies, ...after[key].latencies],
    errors: before[key].errors + after[key].errors,
    count: 0,
  });
  const errors = flooded.page.errors + flooded.video.errors;
  return {
    page: ratio(alone('page'), flooded.page),
    video: ratio(alone('video'), flooded.video),
    errors: {
      value: `${errors} of ${flooded.page.count + flooded.video.count}`,
      measured: errors + alone('page').errors + alone('video').errors,
      note: `flood: ${total} signins (${statusCounts.join(', ')})`,
    },
    rss: { value: `${rssPeak.toFixed(0)} MB`, measured: rssPeak },
  };
}

const TIMES = atMost(3, (n) => `${n}× alone`);
const LOAD = {
  page: figure('Login page p99 under signin flood', TIMES),
  video: figure('Video Range p99 under signin flood', TIMES),
  errors: figure('Page+video errors under flood', exactly(0)),
  rss: figure(
    'Server RSS peak under flood',
    atMost(300, (mb) => `${mb} MB`),
  ),
};

export const loadMeasurement = (site: Site): Measurement<keyof typeof LOAD> => ({
  name: 'server under a signin flood',
  timeoutMs: 60_000,
  figures: LOAD,
  run: (signal) => floodOnce(site, signal),
});

/** Two bench servers on one redis-server and one cookie secret, as behind a load balancer. */
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
  atEnd(signal, stop); // also after a failed start
  for (const which of ['a', 'b']) {
    const logFile = `reports/bench-server-${name}-${which}.log`;
    servers.push(await startBenchServer(password, { env: { ...shared, ...env }, logFile }));
  }
  return { servers: servers as [RunningServer, RunningServer], password };
}

/** The flood on two sites at once, B 2 s after A (the shared limiter admits one attempt in flight per address). */
export const floodBoth = ([a, b]: Site[], signal: AbortSignal, onFlood?: () => void) =>
  Promise.all([
    floodOnce(a!, signal, onFlood),
    sleep(2_000).then(() => floodOnce(b!, signal, onFlood)),
  ]);

/** The worse of the two instances, with both in the text. */
export function bothInstances(a: Reading, b: Reading): Reading {
  const worse = Number(a.measured ?? 0) >= Number(b.measured ?? 0) ? a : b;
  return { value: `A ${a.value}; B ${b.value}`, measured: worse.measured };
}

const REDIS = {
  memoryPage: figure('Login page p99 under flood, 1 instance in memory', TIMES),
  memoryVideo: figure('Video Range p99 under flood, 1 instance in memory', TIMES),
  redisPage: figure('Login page p99 under flood, 2 instances on Redis', TIMES),
  redisVideo: figure('Video Range p99 under flood, 2 instances on Redis', TIMES),
  errors: figure('Page+video errors under flood, memory | Redis', exactly(0)),
};

export function redisMeasurement(site: Site): Measurement<keyof typeof REDIS> {
  return {
    name: 'signin flood: one instance in memory, then two instances on one Redis',
    timeoutMs: 180_000,
    figures: REDIS,
    async run(signal) {
      const memory = await floodOnce(site, signal);
      const { servers, password } = await twoInstancesOnRedis('redis', {}, signal);
      const sites = servers.map((server) => ({
        ...site,
        origin: server.origin,
        pid: server.process.pid!,
        password,
      }));
      const [a, b] = await floodBoth(sites, signal);
      const errors = [memory, a, b].reduce((sum, run) => sum + Number(run.errors.measured ?? 0), 0);
      return {
        memoryPage: memory.page,
        memoryVideo: memory.video,
        redisPage: bothInstances(a.page, b.page),
        redisVideo: bothInstances(a.video, b.video),
        errors: {
          value: `${memory.errors.value} | A ${a.errors.value}, B ${b.errors.value}`,
          measured: errors,
          note: `RSS peak memory ${memory.rss.value}, A ${a.rss.value}, B ${b.rss.value}`,
        },
      };
    },
  };
}
