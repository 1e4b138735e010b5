/**
 * `npm run test:load`: a bounded load test of the real built server (under 60 s in all), on the
 * load generator it shares with the bench (load-generator.ts, autocannon).
 *
 * Builds if needed, starts the built server on a free loopback port as on `npm start`'s defaults
 * (the sample's adaptive publish, scripts/ops/sample-publish.ts), signs in, then for
 * LOAD_SECONDS (30) holds LOAD_STREAMS (50) connections that keep asking for the video from a
 * random place, as a seeking player does: two requests in three for a few hundred KB
 * (`Range: bytes=<start>-<end>`), one to the end (`bytes=<start>-`). Meanwhile a visitor signs in
 * with the right password every 2 s (from 127.0.0.3) and an attacker with wrong ones every 0.5 s
 * (from 127.0.0.4).
 *
 * Fails (exit 1) on: a video answer other than 206 from the asked start, a socket error, a signin
 * other than 200/401/429 (and the visitor anything but 200), or growth after the load: RSS
 * (lowest in the 5 s idle after the load) more than 30 MB over the baseline taken after a 5 s
 * warm-up, or file descriptors left open.
 */
import type { Request } from 'autocannon';
import { readdirSync } from 'node:fs';
import { Agent } from 'node:http';
import { samplePublish } from '../ops/sample-publish';
import { cannon, quantile } from './load-generator';
import { buildIfMissing, residentBytes, send, signIn, signedIn, startServer } from './test-server';

const DURATION_S = Number(process.env.LOAD_SECONDS ?? 30);
const STREAMS = Number(process.env.LOAD_STREAMS ?? 50);
const WARM_UP_S = 5;
const IDLE_MS = 5000;
const RSS_TOLERANCE = 30 * 2 ** 20;
const DEMO_PASSWORD = 'silobolsa2023';
const USERNAME = 'capacitacion';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

const failures: string[] = [];
const fail = (message: string) => void (failures.length < 20 && failures.push(message));

/** `connections` players seeking through the video for `seconds`; checks every answer. */
async function streams(origin: string, cookie: string, size: number, seconds: number) {
  const video = { requests: 0, bytes: 0, latencies: [] as number[] };
  const seek = (request: Request, context: { from?: number }): Request => {
    const from = Math.floor(Math.random() * size);
    const to =
      Math.random() < 2 / 3 ? Math.floor(from + 64 * 1024 + Math.random() * 384 * 1024) : '';
    context.from = from;
    return { ...request, headers: { cookie, range: `bytes=${from}-${to}` } };
  };
  const instance = cannon({
    url: origin,
    connections: STREAMS,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        path: '/api/video',
        setupRequest: seek,
        onResponse: (status, _body, context: { from?: number }, headers) => {
          const range = String(headers?.['content-range']);
          if (status !== 206 || !range.startsWith(`bytes ${String(context.from)}-`))
            fail(`${status} ${range} for bytes=${String(context.from)}-`);
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, _status: number, bytes: number, ms: number) => {
    video.requests += 1;
    video.bytes += bytes;
    video.latencies.push(ms);
  });
  instance.on('reqError', (error: Error) => fail(`video: ${error.message}`));
  const { timeouts } = await instance;
  if (timeouts) fail(`${timeouts} video requests got no answer in 10 s`);
  return video;
}

/** Signins every `everyMs` for `seconds` from `address`; `expected` lists the right answers. */
async function trickle(
  origin: string,
  address: string,
  password: () => string,
  everyMs: number,
  expected: number[],
  seconds: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<number, number> = {};
  for (const until = Date.now() + seconds * 1000; Date.now() < until; await sleep(everyMs)) {
    try {
      const answer = await signIn({
        origin,
        username: USERNAME,
        password: password(),
        localAddress: address,
        agent,
      });
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (!expected.includes(answer.status))
        fail(`signin from ${address}: ${answer.status} ${answer.body}`);
      if (answer.status === 429 && !/^\d+$/.test(String(answer.headers['retry-after'])))
        fail(`signin from ${address}: 429 without Retry-After`);
    } catch (error) {
      fail(`signin from ${address}: ${(error as Error).message}`);
    }
  }
  agent.destroy();
  return Object.entries(statuses)
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');
}

async function main() {
  buildIfMissing();
  // The real server as `npm start` runs it (demo password, default limits, info logging, the
  // sample's adaptive publish when ffmpeg can make it: /api/video is then its fallback MP4).
  const mediaDir = await samplePublish(process.cwd());
  const server = await startServer({
    NODE_ENV: 'development',
    ...(mediaDir ? { MEDIA_DIR: mediaDir } : {}),
  });
  const pid = server.process.pid!;
  const hardStop = setTimeout(() => {
    console.error('FAIL load: did not finish in 60 s');
    void server.stop().finally(() => process.exit(1));
  }, 60_000);
  try {
    const { origin } = server;
    const { cookie } = await signedIn({
      origin,
      username: USERNAME,
      password: DEMO_PASSWORD,
      localAddress: '127.0.0.2',
    });
    const head = await send(`${origin}/api/video`, { method: 'HEAD', headers: { cookie } });
    const size = Number(head.headers['content-length']);
    if (head.status !== 200 || !(size > 0)) throw new Error(`HEAD /api/video: ${head.status}`);

    // Warm-up: "before" is a warmed-up process, not a cold start (JIT, buffers, the heap's first
    // growth are not a leak).
    await streams(origin, cookie, size, WARM_UP_S);
    await sleep(1000);
    const before = residentBytes(pid);
    const fdsBefore = openFds(pid);
    console.log(`load: ${STREAMS} streams with seeks + signins for ${DURATION_S} s on ${origin}`);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 250);
    let guess = 0;
    const [video, visitor, attacker] = await Promise.all([
      streams(origin, cookie, size, DURATION_S),
      trickle(origin, '127.0.0.3', () => DEMO_PASSWORD, 2000, [200], DURATION_S),
      trickle(origin, '127.0.0.4', () => `guess-${(guess += 1)}`, 500, [401, 429], DURATION_S),
    ]);
    clearInterval(sampler);

    // Idle: the server may release what it no longer needs (V8 shrinks its heap a few seconds
    // after allocation stops). "After" is the lowest RSS seen in that window.
    let after = residentBytes(pid);
    for (let waited = 0; waited < IDLE_MS; waited += 500) {
      await sleep(500);
      after = Math.min(after, residentBytes(pid));
    }
    const fdsAfter = openFds(pid);
    if (server.process.exitCode !== null) fail(`the server exited with ${server.process.exitCode}`);
    if (after > before + RSS_TOLERANCE) fail(`RSS grew from ${mb(before)} to ${mb(after)}`);
    if (fdsAfter > fdsBefore + 2) fail(`file descriptors: ${fdsBefore} before, ${fdsAfter} after`);
    if (video.requests < STREAMS) fail(`only ${video.requests} video requests`);
    if (!visitor.includes('×200')) fail('the visitor never signed in');

    for (const failure of failures) console.error(`  - ${failure}`);
    const ms = (q: number) => quantile(video.latencies, q).toFixed(0);
    console.log(
      `${failures.length ? 'FAIL' : 'PASS'} load: ${STREAMS} streams for ${DURATION_S} s: ` +
        `${video.requests} video requests, ${mb(video.bytes)} read, p50 ${ms(0.5)} / p95 ${ms(0.95)} ms; ` +
        `signins visitor ${visitor}, attacker ${attacker}; ` +
        `RSS before ${mb(before)}, peak ${mb(peak)}, after ${mb(after)}; fds ${fdsBefore}/${fdsAfter}`,
    );
    return failures.length ? 1 : 0;
  } finally {
    clearTimeout(hardStop);
    await server.stop();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error('FAIL load:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
