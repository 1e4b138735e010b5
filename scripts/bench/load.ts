/** Signin floods, on one instance and on two sharing Redis (docs/benchmarks.md). */
import type { Request } from 'autocannon';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../../server/password';
import { SAMPLE_PUBLISH_DIR } from '../ops/sample-publish';
import { startRedis } from '../test-support/redis-server';
import { SIGNIN_PATH, residentBytes, signedIn, signinBody } from '../test-support/test-server';
import { startServer } from '../test-support/test-server';
import { cannon, quantile } from '../test-support/load-generator';
import { atEnd, atMost, exactly, figure, reading, sleep } from './measure';
import { section, type Reading, type Site } from './measure';

/** As in production, but with per-address limits that let the flood's signins reach the hashing. */
export const BENCH_SERVER_ENV = {
  ...{ NODE_ENV: 'production', TRUST_PROXY: '127.0.0.1', SIGNIN_FREE_FAILURES: '20' },
  ...{ SIGNIN_MAX_FAILURES_PER_HOUR: '100', SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000' },
};

export const benchSecrets = async (password: string) => ({
  PASSWORD_HASH: await hashPassword(password),
  SESSION_SECRET: randomBytes(48).toString('base64'),
});

/** A bench server with `password` and `env` added, its log in reports/bench-`name`.log. */
export async function startBenchServer(password: string, name: string, env = {}) {
  const all = { ...BENCH_SERVER_ENV, ...(await benchSecrets(password)), ...env };
  return startServer(all, { logFile: `reports/bench-${name}.log` });
}

const PROBE = { connections: 2, overallRate: 100 } as const;
const FLOOD = { connections: 50, durationS: 10, niceness: 10 } as const;
/** Probes alone for ALONE_S before and after; under the flood from its ramp's end on. */
const [ALONE_S, FLOOD_RAMP_MS, PROBE_UNDER_FLOOD_S] = [5, 500, 8];
const VIDEO_RANGE = 'bytes=0-65535';

export const describeLoad = () =>
  `autocannon 8 on loopback; probes ${PROBE.overallRate} req/s on ${PROBE.connections} connections each for GET login and GET /api/video (${VIDEO_RANGE}), alone for ${ALONE_S} s before and ${ALONE_S} s after (pooled), and for ${PROBE_UNDER_FLOOD_S} s under a flood of ${FLOOD.connections} connections of POST signin (half right, half wrong password, one client address per request, generator at nice ${FLOOD.niceness}), server defaults for SIGNIN_MAX_CONCURRENT_HASHES`;

/** The page and the video asked at a steady rate for `s` seconds; another status is an error. */
async function probeBoth({ origin, base }: Site, cookie: string, s: number) {
  const probe = async (url: string, headers: Record<string, string>, expected: number) => {
    const latencies: number[] = [];
    const instance = cannon({ url, headers, duration: s, timeout: 10, ...PROBE });
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
    // Every answer (requests.total) and every request with none (errors, timeouts included).
    const { requests, errors, statusCodeStats = {} } = await instance;
    const count = requests.total + errors;
    return { latencies, count, errors: count - (statusCodeStats[`${expected}`]?.count ?? 0) };
  };
  const [page, video] = await Promise.all([
    probe(`${origin}${base}/login`, { 'accept-encoding': 'br, gzip' }, 200),
    probe(`${origin}/api/video`, { cookie, range: VIDEO_RANGE }, 206),
  ]);
  return { page, video };
}

/** The flood, in this file's own process when forked with BENCH_FLOOD; half the right password. */
if (process.env.BENCH_FLOOD) {
  const { origin, username, password } = JSON.parse(process.env.BENCH_FLOOD) as Site;
  let sent = 0;
  const signin = (request: Request): Request => {
    sent += 1;
    // 10.0.0.1, 10.0.0.2, …: a distinct client address for every request.
    const address = `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`;
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': address };
    const body = signinBody(username, sent % 2 ? password : `equivocada-${sent}`);
    return { ...request, headers, body };
  };
  const instance = cannon({
    ...{ url: origin, connections: FLOOD.connections, duration: FLOOD.durationS, timeout: 30 },
    requests: [{ method: 'POST', path: SIGNIN_PATH, setupRequest: signin }],
  });
  instance.once('start', () => process.send?.({ started: '' }));
  const { statusCodeStats = {}, requests } = await instance;
  const counts = Object.entries(statusCodeStats).map(([code, n]) => `${n.count}× ${code}`);
  const summary = `${requests.total} signins (${counts.join(', ')})`;
  process.send?.({ summary }, () => process.exit(0));
}

/** What floods the server beside the probes: `started` once it runs, `done` with what it sent. */
export type Flood = { started: Promise<unknown>; done: Promise<string> };

/** The flood in its own process at a lower priority: in production its CPU is the attacker's. */
function startFlood({ origin, username, password }: Site, signal: AbortSignal): Flood {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_FLOOD: JSON.stringify({ origin, username, password }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  signal.addEventListener('abort', () => child.kill(), { once: true });
  if (child.pid) setPriority(child.pid, FLOOD.niceness);
  const message = (kind: 'started' | 'summary') =>
    new Promise<string>((resolve, reject) => {
      child.on('message', (m: Record<string, string>) => kind in m && resolve(m[kind]!));
      child.once('exit', (code) => reject(new Error(`the flood exited (${code}) before ${kind}`)));
    });
  return { started: message('started'), done: message('summary') };
}

type Options = { flood?: typeof startFlood; probeS?: number; onFlood?: () => void };
/** One flood on `site`, the signins' unless told; `onFlood` as it starts (the proxy's kill). */
export async function floodOnce(site: Site, signal: AbortSignal, options: Options = {}) {
  const { flood: start = startFlood, probeS = PROBE_UNDER_FLOOD_S, onFlood } = options;
  const { cookie } = await signedIn(site);
  await probeBoth(site, cookie, 1); // warm-up: JIT and file handles, not the flood
  const before = await probeBoth(site, cookie, ALONE_S);
  const flood = start(site, signal);
  flood.done.catch(() => undefined); // awaited after the probes: a flood that dies early waits
  onFlood?.();
  await flood.started;
  let rssPeak = 0;
  const sample = () => (rssPeak = Math.max(rssPeak, residentBytes(site.pid) / 2 ** 20));
  const sampling = setInterval(sample, 100);
  sample();
  await sleep(FLOOD_RAMP_MS);
  const flooded = await probeBoth(site, cookie, probeS);
  const sent = await flood.done;
  clearInterval(sampling);
  sample();
  // Alone on both sides of the flood, pooled: a drift in the machine's other work is no effect.
  const after = await probeBoth(site, cookie, ALONE_S);
  const ratio = (key: 'page' | 'video') => {
    const alone = quantile([...before[key].latencies, ...after[key].latencies], 0.99);
    const during = quantile(flooded[key].latencies, 0.99);
    const [ms, times] = [(n: number) => `${n.toFixed(2)} ms`, during / alone];
    return { value: `${ms(during)} vs ${ms(alone)} alone (${times.toFixed(1)}×)`, measured: times };
  };
  const errorsOf = ({ page, video }: typeof before) => page.errors + video.errors;
  const [errors, count] = [errorsOf(flooded), flooded.page.count + flooded.video.count];
  const all = errors + errorsOf(before) + errorsOf(after);
  return {
    ...{ page: ratio('page'), video: ratio('video') },
    errors: reading(`${errors} of ${count}`, all, `flood: ${sent}`),
    rss: reading(`${rssPeak.toFixed(0)} MB`, rssPeak),
  };
}

/** A bench server as a site, stopped as the measurement behind `signal` ends. */
export async function benchSite(site: Site, name: string, signal: AbortSignal, env = {}) {
  const server = await startBenchServer(site.password, name, env);
  atEnd(signal, () => server.stop());
  return { ...site, origin: server.origin, pid: server.process.pid! };
}

/** Two bench servers on one redis-server, password hash and cookie secret, as behind a balancer. */
export async function twoInstancesOnRedis(site: Site, name: string, signal: AbortSignal, env = {}) {
  const redis = await startRedis();
  atEnd(signal, () => redis.stop()); // after the servers' own stops
  const both = { ...site, password: randomBytes(12).toString('base64url') };
  // One hash too: a session is bound to it, and nginx may check one on the other instance.
  const shared = { ...env, REDIS_URL: redis.url, ...(await benchSecrets(both.password)) };
  const start = (which: string) => benchSite(both, `server-${name}-${which}`, signal, shared);
  return [await start('a'), await start('b')];
}

/** The flood on two sites, B 2 s after A (the shared limiter: one attempt per address at once). */
export const floodBoth = ([a, b]: Site[], signal: AbortSignal, onFlood?: () => void) =>
  Promise.all([
    floodOnce(a!, signal, { onFlood }),
    sleep(2_000).then(() => floodOnce(b!, signal, { onFlood })),
  ]);

/** The worse of the two instances, with both in the text. */
export function bothInstances(a: Reading, b: Reading): Reading {
  const worse = Number(a.measured ?? 0) >= Number(b.measured ?? 0) ? a : b;
  return { value: `A ${a.value}; B ${b.value}`, measured: worse.measured };
}

const [TIMES, MB] = [atMost(3, (n) => `${n}× alone`), (mb: number) => `${mb} MB`];
const LOAD = {
  page: figure('Login page p99 under signin flood', TIMES),
  video: figure('Video Range p99 under signin flood', TIMES),
  errors: figure('Page+video errors under flood', exactly(0)),
  rss: figure('Server RSS peak under flood', atMost(300, MB)),
  redisPage: figure('Login page p99 under flood, 2 instances on Redis', TIMES),
  redisVideo: figure('Video Range p99 under flood, 2 instances on Redis', TIMES),
  redisErrors: figure('Page+video errors under flood, 2 instances on Redis', exactly(0)),
};

const NAME = 'signin flood: one instance in memory, then two instances on one Redis';
export const loadMeasurement = section(NAME, 240_000, LOAD, async (site, signal) => {
  const alone = await floodOnce(site, signal);
  const publish = { MEDIA_DIR: SAMPLE_PUBLISH_DIR }; // the same /api/video as the one instance
  const [a, b] = await floodBoth(await twoInstancesOnRedis(site, 'redis', signal, publish), signal);
  const errors = Number(a.errors.measured) + Number(b.errors.measured);
  const rss = `RSS peak A ${a.rss.value}, B ${b.rss.value}`;
  return {
    ...alone,
    redisPage: bothInstances(a.page, b.page),
    redisVideo: bothInstances(a.video, b.video),
    redisErrors: reading(`A ${a.errors.value}, B ${b.errors.value}`, errors, rss),
  };
});
