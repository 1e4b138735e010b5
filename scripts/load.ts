/**
 * `npm run test:load`: a bounded load test of the real built server (under 60 s in all).
 *
 * Builds if needed, starts `dist-server/server/index.js` on a free loopback port, signs in, then for
 * LOAD_SECONDS (30) holds LOAD_STREAMS (50) video streams that keep seeking: each stream is one
 * keep-alive connection asking `/api/video` with `Range: bytes=<random start>-`, reading either
 * to the end or a few hundred KB before it seeks again (aborting the request, as a browser does).
 * Meanwhile a visitor signs in with the right password every 2 s (from 127.0.0.3) and an
 * attacker with wrong ones every 0.5 s (from 127.0.0.4).
 *
 * Fails (exit 1) on: a video answer other than 206 with the asked start, a socket error, a
 * signin other than 200/401/429 (and the visitor anything but 200), or growth after the load:
 * RSS (lowest in the 5 s idle after the load) more than 30 MB over the baseline taken after a
 * 5 s warm-up, or file descriptors left open.
 * Importable: `runLoad(options)` returns the report without exiting.
 */
import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { quantile } from './bench/measure';
import {
  buildIfMissing,
  residentBytes,
  send,
  signIn,
  signedIn,
  startServer,
  type Signin,
} from './test-server';

export interface LoadOptions {
  durationMs?: number;
  streams?: number;
  /** How long the server idles after the load before "after" is measured. */
  idleMs?: number;
  /** Allowed RSS growth after the idle, over the warmed-up baseline. */
  rssToleranceBytes?: number;
  log?: (line: string) => void;
}

export interface LoadReport {
  ok: boolean;
  failures: string[];
  streams: number;
  seconds: number;
  video: { requests: number; aborted: number; bytes: number; firstByteMs: Percentiles };
  signins: { visitor: Record<number, number>; attacker: Record<number, number> };
  signinMs: Percentiles;
  rss: { start: number; before: number; peak: number; after: number };
  fds: { before: number; peak: number; after: number };
}

interface Percentiles {
  p50: number;
  p95: number;
  max: number;
}

const DEMO_PASSWORD = 'silobolsa2023';
const USERNAME = 'capacitacion';
const MB = 1024 * 1024;

/** The running server, so that a hard stop can end it too. */
let running: { stop(): Promise<void> } | null = null;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bench's percentile (nearest rank), so that a p95 here and there means the same. */
function percentiles(values: number[]): Percentiles {
  if (!values.length) return { p50: 0, p95: 0, max: 0 };
  return { p50: quantile(values, 0.5), p95: quantile(values, 0.95), max: quantile(values, 1) };
}

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

export async function runLoad(options: LoadOptions = {}): Promise<LoadReport> {
  const durationMs = options.durationMs ?? Number(process.env.LOAD_SECONDS ?? 30) * 1000;
  const streams = options.streams ?? Number(process.env.LOAD_STREAMS ?? 50);
  const idleMs = options.idleMs ?? 5000;
  const tolerance = options.rssToleranceBytes ?? 30 * MB;
  const log = options.log ?? ((line: string) => console.log(line));
  const failures: string[] = [];
  const fail = (message: string) => {
    if (failures.length < 20) failures.push(message);
  };

  buildIfMissing();
  // The real server as `npm start` runs it (demo password, default limits, info logging).
  const server = await startServer({ NODE_ENV: 'development' });
  running = server;
  const pid = server.process.pid;
  if (pid === undefined) throw new Error('the server has no pid');
  try {
    const { origin } = server;
    const { hostname, port } = new URL(origin);
    const start = residentBytes(pid);

    const as = (localAddress: string, password: string, agent?: Agent): Signin => ({
      origin,
      username: USERNAME,
      password,
      localAddress,
      agent,
    });
    const { cookie } = await signedIn(as('127.0.0.2', DEMO_PASSWORD));
    const head = await send(`${origin}/api/video`, { method: 'HEAD', headers: { cookie } });
    const size = Number(head.headers['content-length']);
    if (head.status !== 200 || !(size > 0)) throw new Error(`HEAD /api/video: ${head.status}`);

    const video = { requests: 0, aborted: 0, bytes: 0, firstByte: [] as number[] };
    const signins = {
      visitor: {} as Record<number, number>,
      attacker: {} as Record<number, number>,
    };
    const signinTimes: number[] = [];
    const count = (map: Record<number, number>, status: number) => {
      map[status] = (map[status] ?? 0) + 1;
    };

    /** One media element: a connection that keeps asking from a new position. */
    const stream = async (id: number, until: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (Date.now() < until) {
          const from = Math.floor(Math.random() * size);
          // Two seeks in three read a few hundred KB and move on; one reads to the end.
          const budget = Math.random() < 2 / 3 ? 64 * 1024 + Math.random() * 384 * 1024 : Infinity;
          const sent = performance.now();
          let seeking = false;
          await new Promise<void>((resolve) => {
            const req = request({
              hostname,
              port,
              path: '/api/video',
              agent,
              headers: { cookie, range: `bytes=${from}-` },
            });
            req.on('response', (res) => {
              video.requests += 1;
              video.firstByte.push(performance.now() - sent);
              const range = String(res.headers['content-range']);
              if (res.statusCode !== 206 || !range.startsWith(`bytes ${from}-`)) {
                fail(`stream ${id}: ${res.statusCode} ${range} for bytes=${from}-`);
              }
              let read = 0;
              res.on('data', (chunk: Buffer) => {
                read += chunk.length;
                video.bytes += chunk.length;
                if (read >= budget && !seeking) {
                  seeking = true;
                  video.aborted += 1;
                  req.destroy();
                  resolve();
                }
              });
              res.on('end', () => {
                if (read !== size - from) fail(`stream ${id}: ${read} bytes from ${from}`);
                resolve();
              });
              res.on('error', () => resolve());
            });
            req.on('error', (error: NodeJS.ErrnoException) => {
              // The end of a request we dropped to seek elsewhere is not an error.
              if (!seeking) fail(`stream ${id}: ${error.code ?? ''} ${error.message}`);
              resolve();
            });
            req.end();
          });
        }
      } finally {
        agent.destroy();
      }
    };

    /** Signins every `everyMs` until `until`; `expected` lists the acceptable statuses. */
    const trickle = async (
      who: 'visitor' | 'attacker',
      address: string,
      password: () => string,
      everyMs: number,
      expected: number[],
      until: number,
    ) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (Date.now() < until) {
          const sent = performance.now();
          try {
            const answer = await signIn(as(address, password(), agent));
            signinTimes.push(performance.now() - sent);
            count(signins[who], answer.status);
            if (!expected.includes(answer.status))
              fail(`${who} signin: ${answer.status} ${answer.body}`);
            if (answer.status === 429 && !/^\d+$/.test(String(answer.headers['retry-after'])))
              fail(`${who} signin: 429 without Retry-After`);
          } catch (error) {
            fail(`${who} signin: ${(error as Error).message}`);
          }
          await sleep(everyMs);
        }
      } finally {
        agent.destroy();
      }
    };

    // Warm-up: a few seconds of the same load, so that "before" is a warmed-up process, not a
    // cold start (JIT, buffers, the heap's first growth are not a leak).
    const warmUntil = Date.now() + 5000;
    await Promise.all(Array.from({ length: streams }, (_, i) => stream(i, warmUntil)));
    await sleep(1000);
    const before = residentBytes(pid);
    const fdsBefore = openFds(pid);
    Object.assign(video, { requests: 0, aborted: 0, bytes: 0, firstByte: [] });

    log(`load: ${streams} streams with seeks + signins for ${durationMs / 1000} s on ${origin}`);
    let peak = before;
    let fdsPeak = fdsBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid));
      fdsPeak = Math.max(fdsPeak, openFds(pid));
    }, 250);
    const began = Date.now();
    const until = began + durationMs;
    let guess = 0;
    await Promise.all([
      ...Array.from({ length: streams }, (_, i) => stream(i, until)),
      trickle('visitor', '127.0.0.3', () => DEMO_PASSWORD, 2000, [200], until),
      trickle('attacker', '127.0.0.4', () => `guess-${(guess += 1)}`, 500, [401, 429], until),
    ]);
    clearInterval(sampler);
    const seconds = (Date.now() - began) / 1000;

    // Idle: nothing runs; the server may release what it no longer needs (V8 shrinks its heap
    // a few seconds after allocation stops). "After" is the lowest RSS seen in that window.
    let after = residentBytes(pid);
    for (let waited = 0; waited < idleMs; waited += 500) {
      await sleep(500);
      after = Math.min(after, residentBytes(pid));
    }
    const fdsAfter = openFds(pid);
    if (server.process.exitCode !== null) fail(`the server exited with ${server.process.exitCode}`);
    if (after > before + tolerance)
      fail(`RSS grew from ${(before / MB).toFixed(1)} MB to ${(after / MB).toFixed(1)} MB`);
    if (fdsAfter > fdsBefore + 2) fail(`file descriptors: ${fdsBefore} before, ${fdsAfter} after`);
    if (video.requests < streams) fail(`only ${video.requests} video requests in ${seconds} s`);
    if (!signins.visitor[200]) fail('the visitor never signed in');

    return {
      ok: failures.length === 0,
      failures,
      streams,
      seconds,
      video: {
        requests: video.requests,
        aborted: video.aborted,
        bytes: video.bytes,
        firstByteMs: percentiles(video.firstByte),
      },
      signins,
      signinMs: percentiles(signinTimes),
      rss: { start, before, peak, after },
      fds: { before: fdsBefore, peak: fdsPeak, after: fdsAfter },
    };
  } finally {
    await server.stop();
    running = null;
  }
}

export function summary(report: LoadReport): string {
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  const ms = (p: Percentiles) => `p50 ${p.p50.toFixed(0)} / p95 ${p.p95.toFixed(0)} ms`;
  const statuses = (map: Record<number, number>) =>
    Object.entries(map)
      .map(([status, n]) => `${n}×${status}`)
      .join(' ');
  return (
    `${report.ok ? 'PASS' : 'FAIL'} load: ${report.streams} streams for ${report.seconds.toFixed(1)} s: ` +
    `${report.video.requests} video requests (${report.video.aborted} seeks away), ` +
    `${mb(report.video.bytes)} read, first byte ${ms(report.video.firstByteMs)}; ` +
    `signins visitor ${statuses(report.signins.visitor)}, attacker ${statuses(report.signins.attacker)}, ` +
    `${ms(report.signinMs)}; RSS start ${mb(report.rss.start)}, before ${mb(report.rss.before)}, ` +
    `peak ${mb(report.rss.peak)}, after ${mb(report.rss.after)}; ` +
    `fds ${report.fds.before}/${report.fds.peak}/${report.fds.after}`
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const hardStop = setTimeout(() => {
    console.error('FAIL load: did not finish in 60 s');
    void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
  }, 60_000);
  hardStop.unref();
  runLoad()
    .then((report) => {
      for (const failure of report.failures) console.error(`  - ${failure}`);
      console.log(summary(report));
      process.exitCode = report.ok ? 0 : 1;
    })
    .catch((error: unknown) => {
      console.error('FAIL load:', error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
