/**
 * The video bytes through the proxy (nginx over HTTPS, scripts/nginx.ts) and straight from one
 * instance (plain HTTP: the instance has no TLS of its own), in the same run: 200 simulated
 * viewers each fetching a published clip's segments at a 500 kbit/s pace; the CPU seconds the
 * serving processes spent per GB (from /proc/<pid>/stat), the login page's p99 meanwhile, and
 * failed requests.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { dirname, join } from 'node:path';
import { RUNG_FILE_PATTERN } from '../../config/media-layout';
import { startProxy, workerPids } from '../nginx';
import { publishTestClip } from '../test-clip';
import { signedIn } from '../test-server';
import { startBenchServer } from './load';
import { atMost, exactly, quantile, REFERENCE, type Measurement, type Site } from './measure';

const VIEWERS = 200;
const PACE_BITS_PER_S = 500_000;
const DURATION_S = 30;
const PROBE_EVERY_MS = 100;
const TICKS_PER_S = 100;
/** A failed segment is asked again after 1 s, doubling to 8 s: hls.js's default for fragments. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 8000;

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

type Key = 'proxyCpu' | 'directCpu' | 'proxyPage' | 'directPage' | 'failed';

export function proxyMeasurement(site: Site): Measurement<Key> {
  return {
    name: `video bytes: ${VIEWERS} viewers at 500 kbit/s through nginx (HTTPS) and straight from one instance`,
    timeoutMs: 180_000,
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
        };
      } finally {
        await stop();
      }
    },
  };
}
