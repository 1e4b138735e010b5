/**
 * The server under a signin flood: page and video requests must keep their latency (p99 under
 * the flood at most 3× p99 alone, no errors) and the process must stay under 300 MB resident.
 *
 * The probes ask at a steady, modest rate (a few visitors), so that their latency is the
 * server's answer time rather than the queue a saturating client would build by itself.
 * Latencies are taken from each response (autocannon's histogram rounds to whole ms).
 */
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../server/password';
import {
  residentBytes,
  signedIn,
  startServer,
  type RunningServer,
} from '../test-support/test-server';
import type { FloodMessage, FloodOptions } from './flood';
import { atMost, exactly, quantile, type Measurement, type Site } from './measure';

export const SERVER_LOG = 'reports/bench-server.log';

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

/** A bench server with `password`; `env` adds to (the Redis section: shares) its settings. */
export async function startBenchServer(
  password: string,
  { env = {}, logFile = SERVER_LOG }: { env?: Record<string, string>; logFile?: string } = {},
): Promise<RunningServer> {
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
const LAG_RESOLUTION_MS = 5;

export const describeLoad = () =>
  `autocannon 8 on loopback; probes ${PROBE.overallRate} req/s on ${PROBE.connections} connections each for GET login and GET /api/video (${VIDEO_RANGE}), alone for ${ALONE_S} s before and ${ALONE_S} s after (pooled), and for ${PROBE_UNDER_FLOOD_S} s under a flood of ${FLOOD.connections} connections of POST signin (half right, half wrong password, one client address per request, generator at nice ${FLOOD_NICENESS}), server defaults for SIGNIN_MAX_CONCURRENT_HASHES`;

interface Probe {
  latencies: number[];
  errors: number;
  count: number;
}

/** Asks `path` at a steady rate for `seconds`; a status other than `expected` is an error. */
async function probe(
  site: Site,
  path: string,
  headers: Record<string, string>,
  expected: number,
  seconds: number,
): Promise<Probe> {
  const result: Probe = { latencies: [], errors: 0, count: 0 };
  const instance = autocannon({
    url: `${site.origin}${path}`,
    headers,
    duration: seconds,
    timeout: 10,
    ...PROBE,
  });
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

/**
 * Both probes at once. The delay of this process's own event loop is measured alongside: when
 * it is large, the machine (not the server) is what made the requests slow.
 */
async function probeBoth(site: Site, cookie: string, seconds: number) {
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const [page, video] = await Promise.all([
    probe(site, `${site.base}/login`, { 'accept-encoding': 'br, gzip' }, 200, seconds),
    probe(site, '/api/video', { cookie, range: VIDEO_RANGE }, 206, seconds),
  ]);
  lag.disable();
  // The histogram holds whole timer intervals; the delay is what exceeds the interval.
  return { page, video, clientLagP99: lag.percentile(99) / 1e6 - LAG_RESOLUTION_MS };
}

/** Samples the server's resident memory until stopped; returns the peak. */
function watchMemory(pid: number) {
  let peak = 0;
  const sample = () => (peak = Math.max(peak, residentBytes(pid) / 2 ** 20));
  sample();
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

interface Flood {
  child: ChildProcess;
  started: Promise<void>;
  done: Promise<Extract<FloodMessage, { kind: 'done' }>>;
}

function startFlood(site: Site): Flood {
  const options: FloodOptions = {
    origin: site.origin,
    username: site.username,
    password: site.password,
    ...FLOOD,
  };
  const child = fork(fileURLToPath(new URL('./flood.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_FLOOD: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // In production the flood's CPU is the attacker's, not the server's; here they share the
  // machine, so the generator yields to the server (and to the probes) when both want a core.
  if (child.pid) setPriority(child.pid, FLOOD_NICENESS);
  const message = <K extends FloodMessage['kind']>(kind: K) =>
    new Promise<Extract<FloodMessage, { kind: K }>>((resolve, reject) => {
      child.on('message', (m: FloodMessage) => {
        if (m.kind === kind) resolve(m as Extract<FloodMessage, { kind: K }>);
      });
      child.once('exit', (code) =>
        reject(new Error(`the flood exited (${code}) before "${kind}"`)),
      );
    });
  const done = message('done');
  // Awaited only after the probes; a flood that dies early must not crash the bench meanwhile.
  done.catch(() => undefined);
  return { child, started: message('started').then(() => undefined), done };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

type Probes = Awaited<ReturnType<typeof probeBoth>>;

function pool(first: Probes, second: Probes): Probes {
  const join = (a: Probe, b: Probe): Probe => ({
    latencies: [...a.latencies, ...b.latencies],
    errors: a.errors + b.errors,
    count: a.count + b.count,
  });
  return {
    page: join(first.page, second.page),
    video: join(first.video, second.video),
    clientLagP99: Math.max(first.clientLagP99, second.clientLagP99),
  };
}

function ratioValue(name: string, alone: Probe, flooded: Probe) {
  const before = quantile(alone.latencies, 0.99);
  const during = quantile(flooded.latencies, 0.99);
  const ratio = during / before;
  return {
    value: `${ms(during)} vs ${ms(before)} alone (${ratio.toFixed(1)}×)`,
    measured: ratio,
    unit: '×',
    note: `${name}: p50 ${ms(quantile(alone.latencies, 0.5))} alone, ${ms(quantile(flooded.latencies, 0.5))} under flood; ${alone.count} + ${flooded.count} requests`,
  };
}

export function loadMeasurement(site: Site): Measurement<'page' | 'video' | 'errors' | 'rss'> {
  const ratio = atMost(3, (times) => `${times}× alone`);
  return {
    name: 'server under a signin flood',
    timeoutMs: 60_000,
    figures: {
      page: { figure: 'Login page p99 under signin flood', target: ratio },
      video: { figure: 'Video Range p99 under signin flood', target: ratio },
      errors: { figure: 'Page+video errors under flood', target: exactly(0) },
      rss: { figure: 'Server RSS peak under flood', target: atMost(300, (mb) => `${mb} MB`) },
    },
    async run(signal) {
      const { cookie } = await signedIn(site);
      // Warm-up: the first requests pay for JIT and file handles, not for the flood.
      await probeBoth(site, cookie, 1);
      const aloneMemory = watchMemory(site.pid);
      const before = await probeBoth(site, cookie, ALONE_S);
      const rssAlone = aloneMemory();

      const flood = startFlood(site);
      signal.addEventListener('abort', () => flood.child.kill(), { once: true });
      await flood.started;
      const floodMemory = watchMemory(site.pid);
      await new Promise((resolve) => setTimeout(resolve, FLOOD_RAMP_MS));
      const flooded = await probeBoth(site, cookie, PROBE_UNDER_FLOOD_S);
      const summary = await flood.done;
      const rssPeak = floodMemory();
      // The baseline is taken on both sides of the flood and pooled, so that a slow drift in
      // the machine's other work does not pass for an effect of the flood.
      const after = await probeBoth(site, cookie, ALONE_S);
      const alone = pool(before, after);

      const errors = flooded.page.errors + flooded.video.errors;
      const asked = flooded.page.count + flooded.video.count;
      const answers = Object.entries(summary.statusCounts)
        .map(([status, count]) => `${count}× ${status}`)
        .join(', ');
      const hashed = (summary.statusCounts['200'] ?? 0) + (summary.statusCounts['401'] ?? 0);
      return {
        page: ratioValue('login page', alone.page, flooded.page),
        video: ratioValue('video Range', alone.video, flooded.video),
        errors: {
          value: `${errors} of ${asked}`,
          measured: errors + alone.page.errors + alone.video.errors,
          note: `errors alone: ${alone.page.errors + alone.video.errors}; flood: ${summary.total} signins (${answers}; ${summary.errors} client errors), ${(hashed / FLOOD.durationS).toFixed(1)} hashed per second; this process's event-loop delay p99 ${ms(alone.clientLagP99)} alone, ${ms(flooded.clientLagP99)} under flood`,
        },
        rss: {
          value: `${rssPeak.toFixed(0)} MB`,
          measured: rssPeak,
          unit: 'MB',
          note: `${rssAlone.toFixed(0)} MB before the flood`,
        },
      };
    },
  };
}
