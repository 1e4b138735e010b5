/**
 * The video bytes through the proxy (nginx over HTTPS, scripts/ops/nginx.ts) and straight from one
 * instance (plain HTTP: the instance has no TLS of its own), in the same run: 200 simulated
 * viewers each fetching a published clip's segments at a 500 kbit/s pace; the CPU seconds the
 * serving processes spent per GB (from /proc/<pid>/stat), the login page's p99 meanwhile, and
 * failed requests. Then the Redis section's two-instance flood (redis.ts: load.ts's flood and
 * probes, as they are) through nginx over HTTPS, with one instance killed (SIGKILL) while both
 * floods run: the probes' errors (target 0, as there), and the signins that failed because the
 * instance holding them died (a POST it received is never retried on the other), counted apart.
 * Through nginx the flood's claimed addresses are replaced by the real one (127.0.0.1): its
 * signins queue behind one address rather than reach the hashing as in the Redis section.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { RUNG_FILE_PATTERN } from '../../config/media-layout';
import { startProxy, workerPids } from '../ops/nginx';
import { startRedis, type RedisServer } from '../test-support/redis-server';
import { publishTestClip } from '../test-support/test-clip';
import { SIGNIN_PATH, signedIn, type RunningServer } from '../test-support/test-server';
import { loadMeasurement, startBenchServer } from './load';
import { atMost, exactly, quantile, REFERENCE, type Measurement, type Site } from './measure';
import { STAGGER_MS, bothInstances } from './redis';

const VIEWERS = 200;
const PACE_BITS_PER_S = 500_000;
const DURATION_S = 30;
const PROBE_EVERY_MS = 100;
const TICKS_PER_S = 100;
/** A failed segment is asked again after 1 s, doubling to 8 s: hls.js's default for fragments. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 8000;
/** Once both floods run, this long before one instance is killed: the middle of both. */
const KILL_AFTER_MS = 3_000;
/** The failover's access log (method, path, status, the instances asked; never a cookie). */
const FAILOVER_LOG = 'reports/bench-proxy-failover-access.log';

/** utime + stime of a process, in seconds (0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

interface Path {
  origin: string;
  cookie: string;
  pids: () => number[];
}

/** The viewers and the login probe for DURATION_S on one path. */
async function watch(path: Path, segments: string[], base: string, signal: AbortSignal) {
  const https = path.origin.startsWith('https:');
  const agent = https
    ? new HttpsAgent({ keepAlive: true, rejectUnauthorized: false, maxSockets: VIEWERS + 4 })
    : new HttpAgent({ keepAlive: true, maxSockets: VIEWERS + 4 });
  const get = (url: string, cookie = '') =>
    new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(
        `${path.origin}${url}`,
        { agent, headers: { cookie } },
        (response) => {
          let bytes = 0;
          response.on('data', (chunk: Buffer) => (bytes += chunk.length));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
          response.on('error', reject);
        },
      );
      request.setTimeout(10_000, () => request.destroy(new Error('timeout')));
      request.on('error', reject);
      request.end();
    });
  const cpuBefore = path.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const end = Date.now() + DURATION_S * 1000;
  let bytes = 0;
  let failed = 0;
  let requests = 0;
  /** What the failed requests got: a status, or the client's error. */
  const failures = new Map<string, number>();
  const fail = (what: string) => {
    failed += 1;
    failures.set(what, (failures.get(what) ?? 0) + 1);
  };
  const viewer = async (index: number) => {
    let next = index;
    let retryMs = RETRY_FIRST_MS;
    // Spread over the first segment's time, as viewers arriving.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 6_000));
    while (Date.now() < end && !signal.aborted) {
      const started = Date.now();
      const answer = await get(segments[next % segments.length]!, path.cookie).catch(
        (error: Error) => error,
      );
      requests += 1;
      let due: number;
      if (answer instanceof Error || answer.status !== 200) {
        // Counted, and asked again later: a failing viewer must not spin.
        fail(answer instanceof Error ? answer.message : String(answer.status));
        due = retryMs;
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      } else {
        bytes += answer.bytes;
        next += 1;
        retryMs = RETRY_FIRST_MS;
        due = (answer.bytes * 8 * 1000) / PACE_BITS_PER_S - (Date.now() - started);
      }
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    }
  };
  const latencies: number[] = [];
  const probe = async () => {
    while (Date.now() < end && !signal.aborted) {
      const started = performance.now();
      const answer = await get(`${base}/login`).catch((error: Error) => error);
      if (answer instanceof Error) fail(`login: ${answer.message}`);
      else if (answer.status !== 200) fail(`login: ${answer.status}`);
      else latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  await Promise.all([probe(), ...Array.from({ length: VIEWERS }, (_, i) => viewer(i))]);
  const cpu = path.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0) - cpuBefore;
  agent.destroy();
  return {
    cpuPerGb: bytes ? cpu / (bytes / 1e9) : null,
    bytes,
    failed,
    failures: [...failures].map(([what, count]) => `${what} ×${count}`).join(', '),
    requests,
    p99: quantile(latencies, 0.99),
    probes: latencies.length,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many of load.ts's floods (flood.ts, forked by this process) are running now. */
function floodsRunning(): number {
  return workerPids(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('flood.ts');
    } catch {
      return false;
    }
  }).length;
}

/**
 * What the proxy answered, from its access log: answers that are failures (any status from 400
 * on, except a signin's 401 and 429) by method, path and status, and how many requests nginx
 * passed on to the other instance. 499 is the client's own: autocannon drops the requests still
 * in flight when its duration ends.
 */
function readAccessLog(file: string) {
  const failures = new Map<string, number>();
  let total = 0;
  let retried = 0;
  let failedSignins = 0;
  let failedOthers = 0;
  let dropped = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /"(\S+) (\S+) [^"]*" (\d{3}) .* upstream=(.*)$/.exec(line);
    if (!match) continue;
    const [, method, path, status, upstream] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    total += 1;
    if (upstream.includes(',')) retried += 1;
    const signin = method === 'POST' && path === SIGNIN_PATH;
    if (Number(status) < 400 || (signin && (status === '401' || status === '429'))) continue;
    if (status === '499') dropped += 1;
    else if (signin) failedSignins += 1;
    else failedOthers += 1;
    const what = `${method} ${signin ? 'signin' : path} ${status}`;
    failures.set(what, (failures.get(what) ?? 0) + 1);
  }
  return {
    total,
    retried,
    failedSignins,
    failedOthers,
    dropped,
    failures: [...failures].map(([what, count]) => `${what} ×${count}`).join(', ') || 'none',
  };
}

/**
 * The Redis section's flood on two instances sharing one redis-server, through nginx over HTTPS
 * (the video from MEDIA_DIR by nginx, as deployed); the second instance is killed with SIGKILL
 * KILL_AFTER_MS after both floods have started.
 */
async function floodAndKill(site: Site, mediaDir: string, signal: AbortSignal) {
  let redis: RedisServer | null = null;
  let proxy: Awaited<ReturnType<typeof startProxy>> | null = null;
  const servers: RunningServer[] = [];
  const stopAll = async () => {
    await proxy?.stop();
    proxy = null;
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await redis?.stop();
    redis = null;
  };
  signal.addEventListener('abort', () => void stopAll(), { once: true });
  try {
    redis = await startRedis();
    const password = randomBytes(12).toString('base64url');
    const env = {
      REDIS_URL: redis.url,
      SESSION_SECRET: randomBytes(48).toString('base64'),
      MEDIA_DIR: mediaDir,
      DIST_DIR: site.distDir,
    };
    for (const name of ['a', 'b'])
      servers.push(
        await startBenchServer(password, {
          env,
          logFile: `reports/bench-server-failover-${name}.log`,
        }),
      );
    const [a, b] = servers as [RunningServer, RunningServer];
    // nginx appends: this run's requests only.
    rmSync(FAILOVER_LOG, { force: true });
    proxy = await startProxy({
      upstreams: servers.map((server) => new URL(server.origin).host),
      mediaDir,
      workers: 'auto',
      // Absolute: nginx reads a relative path from its own prefix.
      accessLog: resolve(FAILOVER_LOG),
    });
    // signedIn (test-server.ts) speaks node:http, which speaks TLS through an HTTPS agent.
    const agent = new HttpsAgent({ rejectUnauthorized: false });
    const viaProxy = { ...site, origin: proxy.origin, pid: a.process.pid!, password, agent };
    let running = true;
    let killed = null as string | null;
    const killer = (async () => {
      let firstSeen: number | null = null;
      for (let floods = 0; floods < 2; floods = floodsRunning()) {
        if (!running || signal.aborted) return;
        if (floods === 1) firstSeen ??= Date.now();
        await sleep(50);
      }
      const secondSeen = Date.now();
      await sleep(KILL_AFTER_MS);
      if (!running || signal.aborted) return;
      b.process.kill('SIGKILL');
      // A and B in the rows are the two floods (B 2 s after A), both through nginx.
      const after = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
      killed = `instance ${new URL(b.origin).host} killed ${after(firstSeen ?? secondSeen)} after flood A's process started, ${after(secondSeen)} after B's`;
    })();
    const [first, second] = await Promise.all(
      [0, 1].map(async (index) => {
        await sleep(index * STAGGER_MS);
        return loadMeasurement(viaProxy).run(signal);
      }),
    ).finally(() => (running = false));
    await killer;
    agent.destroy();
    await stopAll();
    if (!first || !second) throw new Error('two floods were expected');
    return { first, second, killed, log: readAccessLog(FAILOVER_LOG) };
  } finally {
    await stopAll();
  }
}

type Key =
  | 'proxyCpu'
  | 'directCpu'
  | 'proxyPage'
  | 'directPage'
  | 'failed'
  | 'failoverFailed'
  | 'failoverSignins'
  | 'failoverPage';

export function proxyMeasurement(site: Site): Measurement<Key> {
  return {
    name: `video bytes: ${VIEWERS} viewers at 500 kbit/s through nginx (HTTPS) and straight from one instance`,
    timeoutMs: 300_000,
    figures: {
      proxyCpu: { figure: 'CPU s per GB of segments, nginx over HTTPS', target: REFERENCE },
      directCpu: { figure: 'CPU s per GB of segments, one instance (HTTP)', target: REFERENCE },
      proxyPage: {
        figure: 'Login page p99 during the viewers, through nginx',
        target: atMost(200, (ms) => `${ms} ms`),
      },
      directPage: {
        figure: 'Login page p99 during the viewers, straight',
        target: atMost(200, (ms) => `${ms} ms`),
      },
      failed: { figure: 'Failed requests, nginx | straight', target: exactly(0) },
      failoverFailed: {
        figure: 'Page+video errors, 2-instance flood via nginx, one killed',
        target: exactly(0),
      },
      failoverSignins: {
        figure: 'Signins lost with the killed instance (POST, not retried)',
        target: REFERENCE,
      },
      failoverPage: {
        figure: 'Login page p99 under that flood, via nginx',
        target: REFERENCE,
      },
    },
    async run(signal) {
      const { dir, manifest } = await publishTestClip(36);
      const server = await startBenchServer(site.password, {
        env: { MEDIA_DIR: dir, DIST_DIR: site.distDir },
        logFile: 'reports/bench-server-proxy.log',
      });
      const proxy = await startProxy({
        upstreams: [new URL(server.origin).host],
        mediaDir: dir,
        workers: 'auto',
      });
      const stop = async () => {
        await proxy.stop();
        await server.stop();
        rmSync(dirname(dir), { recursive: true, force: true });
      };
      signal.addEventListener('abort', () => void stop(), { once: true });
      try {
        // The top rendition of the published version, by the URLs a page asks for
        // (docs/publishing.md): /api/video/hls/{version}/{rung}/seg….m4s.
        const rung = manifest.rungs.reduce((top, each) => (each.height > top.height ? each : top));
        const segments = readdirSync(join(dir, manifest.version, rung.dir))
          .filter((name) => RUNG_FILE_PATTERN.test(name) && name.endsWith('.m4s'))
          .map((name) => `/api/video/hls/${manifest.version}/${rung.dir}/${name}`);
        if (!segments.length)
          throw new Error(`no segments in ${join(dir, manifest.version, rung.dir)}`);
        const login = (origin: string) =>
          signedIn({ origin, username: site.username, password: site.password }).catch(() =>
            signedIn({ origin, username: site.username, password: site.password }),
          );
        const proxied = await watch(
          {
            origin: proxy.origin,
            // Signed in over HTTP: the same signed value under the name the app reads over HTTPS.
            cookie: (await login(server.origin)).cookie.replace(/^sid=/, '__Host-sid='),
            pids: () => [proxy.pid, ...workerPids(proxy.pid)],
          },
          segments,
          site.base,
          signal,
        );
        const direct = await watch(
          {
            origin: server.origin,
            cookie: (await login(server.origin)).cookie,
            pids: () => [server.process.pid!],
          },
          segments,
          site.base,
          signal,
        );
        const failover = await floodAndKill(site, dir, signal);
        const { first, second, log } = failover;
        const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;
        return {
          proxyCpu: {
            value:
              proxied.cpuPerGb === null ? 'no bytes served' : `${proxied.cpuPerGb.toFixed(2)} s/GB`,
            measured: proxied.cpuPerGb,
            note: `${gb(proxied.bytes)} in ${proxied.requests} requests`,
          },
          directCpu: {
            value:
              direct.cpuPerGb === null ? 'no bytes served' : `${direct.cpuPerGb.toFixed(2)} s/GB`,
            measured: direct.cpuPerGb,
            note: `${gb(direct.bytes)} in ${direct.requests} requests`,
          },
          proxyPage: {
            value: `${proxied.p99.toFixed(0)} ms`,
            measured: proxied.p99,
            note: `${proxied.probes} answers`,
          },
          directPage: {
            value: `${direct.p99.toFixed(0)} ms`,
            measured: direct.p99,
            note: `${direct.probes} answers`,
          },
          failed: {
            value: `${proxied.failed} | ${direct.failed}`,
            measured: proxied.failed + direct.failed,
            note:
              proxied.failed + direct.failed
                ? `nginx: ${proxied.failures || 'none'}; straight: ${direct.failures || 'none'}`
                : undefined,
          },
          failoverFailed: {
            value: failover.killed
              ? `A ${first.errors.value}, B ${second.errors.value}`
              : 'no instance was killed',
            measured: failover.killed
              ? Number(first.errors.measured ?? 0) + Number(second.errors.measured ?? 0)
              : null,
            note: `${failover.killed ?? 'not killed'}; A: ${first.errors.note ?? ''} | B: ${second.errors.note ?? ''}; nginx's log: ${log.total} requests, ${log.retried} passed on to the other instance, failed answers: ${log.failures}`,
          },
          failoverSignins: {
            value: `${log.failedSignins}`,
            measured: log.failedSignins,
            // nginx replaces the flood's X-Forwarded-For with the real address: every signin comes
            // from 127.0.0.1 and waits its turn in that address's queue, on either instance.
            note: `signins the killed instance held, answered 503 by nginx (a POST an instance received is not passed on), from nginx's log (${FAILOVER_LOG}); through nginx every flood signin is from 127.0.0.1 and waits in that address's queue; other failed answers ${log.failedOthers}; 499 (the client's own, at its end) ${log.dropped}`,
          },
          failoverPage: bothInstances(first.page, second.page),
        };
      } finally {
        await stop();
      }
    },
  };
}
