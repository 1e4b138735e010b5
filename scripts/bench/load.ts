/**
 * The server under a signin flood (p99 under flood ≤ 3× alone, no errors, RSS ≤ 300 MB), probed
 * at a steady rate by autocannon; the flood is this file again, forked (its CPU is not ours).
 */
import autocannon, { type Request } from 'autocannon';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../../server/password';
import {
  SIGNIN_PATH,
  residentBytes,
  signedIn,
  signinBody,
  startServer,
} from '../test-support/test-server';
import { atMost, exactly, quantile, type Measurement, type Site, figure } from './measure';

/**
 * The server as in production, with its own password hash and secret, except for the
 * per-address signin limits, made generous so that the flood's signins really reach the hashing.
 * The flood claims one address per request through the (loopback) proxy.
 */
export const BENCH_SERVER_ENV = {
  NODE_ENV: 'production',
  TRUST_PROXY: '127.0.0.1',
  SIGNIN_FREE_FAILURES: '20',
  SIGNIN_MAX_FAILURES_PER_HOUR: '100',
  SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000',
};

type Env = Record<string, string>;

/** A bench server with `password`; `env` adds to its settings, its log goes to `logFile`. */
export async function startBenchServer(
  password: string,
  { env = {}, logFile = 'reports/bench-server.log' }: { env?: Env; logFile?: string } = {},
) {
  const secrets = {
    PASSWORD_HASH: await hashPassword(password),
    SESSION_SECRET: randomBytes(48).toString('base64'),
  };
  return startServer({ ...BENCH_SERVER_ENV, ...secrets, ...env }, { logFile });
}

const PROBE = { connections: 2, overallRate: 100 } as const;
const ALONE_S = 5;
const FLOOD = { connections: 50, durationS: 10 } as const;
const FLOOD_NICENESS = 10;
/** The flood's first half second is its ramp; probes start after it and end before it does. */
const FLOOD_RAMP_MS = 500;
const PROBE_UNDER_FLOOD_S = 8;
const VIDEO_RANGE = 'bytes=0-65535';

export const describeLoad = () =>
  `autocannon 8 on loopback; probes ${PROBE.overallRate} req/s on ${PROBE.connections} connections each for GET login and GET /api/video (${VIDEO_RANGE}), alone for ${ALONE_S} s before and ${ALONE_S} s after (pooled), and for ${PROBE_UNDER_FLOOD_S} s under a flood of ${FLOOD.connections} connections of POST signin (half right, half wrong password, one client address per request, generator at nice ${FLOOD_NICENESS}), server defaults for SIGNIN_MAX_CONCURRENT_HASHES`;

interface Probe {
  latencies: number[];
  errors: number;
  count: number;
}

/** Asks `path` at a steady rate for `seconds`; a status other than `expected` is an error. */
async function probe(url: string, headers: Record<string, string>, expected: number, s: number) {
  const result: Probe = { latencies: [], errors: 0, count: 0 };
  const instance = autocannon({ url, headers, duration: s, timeout: 10, ...PROBE });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    result.count += 1;
    result.latencies.push(ms);
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

/** Samples the server's resident memory until stopped; returns the peak in MB. */
function watchMemory(pid: number) {
  let peak = 0;
  const sample = () => (peak = Math.max(peak, residentBytes(pid) / 2 ** 20));
  sample();
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    return sample();
  };
}

/** 10.0.0.1, 10.0.0.2, …: a distinct address for every request. */
const address = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/**
 * The flood, in this file's own process when forked with BENCH_FLOOD. Each request claims its
 * own client address (X-Forwarded-For, which the bench server trusts from loopback): a crowd,
 * not one client that the per-address limits would stop at once. Half carry the right password.
 */
async function flood({ origin, username, password }: Site) {
  let sent = 0;
  const signin = (request: Request): Request => {
    sent += 1;
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': address(sent) };
    const body = signinBody(username, sent % 2 ? password : `equivocada-${sent}`);
    return { ...request, headers, body };
  };
  const instance = autocannon({
    url: origin,
    connections: FLOOD.connections,
    duration: FLOOD.durationS,
    timeout: 30,
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
  if (child.pid) setPriority(child.pid, FLOOD_NICENESS);
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

const ms = (value: number) => `${value.toFixed(2)} ms`;

function ratio(alone: Probe, flooded: Probe) {
  const before = quantile(alone.latencies, 0.99);
  const during = quantile(flooded.latencies, 0.99);
  const times = during / before;
  return { value: `${ms(during)} vs ${ms(before)} alone (${times.toFixed(1)}×)`, measured: times };
}

type Key = 'page' | 'video' | 'errors' | 'rss';

/** `onFlood` is called as the flood's process starts (the proxy section kills an instance then). */
export function loadMeasurement(site: Site, onFlood = () => {}): Measurement<Key> {
  const times = atMost(3, (n) => `${n}× alone`);
  return {
    name: 'server under a signin flood',
    timeoutMs: 60_000,
    figures: {
      page: figure('Login page p99 under signin flood', times),
      video: figure('Video Range p99 under signin flood', times),
      errors: figure('Page+video errors under flood', exactly(0)),
      rss: { figure: 'Server RSS peak under flood', target: atMost(300, (mb) => `${mb} MB`) },
    },
    async run(signal) {
      const { cookie } = await signedIn(site);
      // Warm-up: the first requests pay for JIT and file handles, not for the flood.
      await probeBoth(site, cookie, 1);
      const before = await probeBoth(site, cookie, ALONE_S);
      const flood = startFlood(site, signal);
      onFlood();
      await flood.started;
      const memory = watchMemory(site.pid);
      await new Promise((resolve) => setTimeout(resolve, FLOOD_RAMP_MS));
      const flooded = await probeBoth(site, cookie, PROBE_UNDER_FLOOD_S);
      const { statusCounts, total } = await flood.done;
      const rssPeak = memory();
      // The baseline is taken on both sides of the flood and pooled, so that a slow drift in
      // the machine's other work does not pass for an effect of the flood.
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
    },
  };
}
