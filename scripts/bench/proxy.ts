/**
 * The video bytes through the proxy (nginx over HTTPS, scripts/ops/nginx.ts) and straight from one
 * instance (plain HTTP: the instance has no TLS of its own), in the same run: 200 simulated
 * viewers each fetching a published clip's segments at a 500 kbit/s pace; the CPU seconds the
 * serving processes spent per GB (from /proc/<pid>/stat), the login page's p99 meanwhile, and
 * failed requests.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { dirname, join } from 'node:path';
import { startProxy, workerPids } from '../ops/nginx';
import { publishTestClip } from '../test-support/test-clip';
import { signedIn } from '../test-support/test-server';
import { startBenchServer } from './load';
import { atMost, exactly, quantile, REFERENCE, type Measurement, type Site } from './measure';

const VIEWERS = 200;
const PACE_BITS_PER_S = 500_000;
const DURATION_S = 30;
const PROBE_EVERY_MS = 100;
const TICKS_PER_S = 100;

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
  const viewer = async (index: number) => {
    let next = index;
    // Spread over the first segment's time, as viewers arriving.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 6_000));
    while (Date.now() < end && !signal.aborted) {
      const started = Date.now();
      const answer = await get(segments[next % segments.length]!, path.cookie).catch(() => null);
      requests += 1;
      if (!answer || answer.status !== 200) failed += 1;
      else bytes += answer.bytes;
      next += 1;
      const due = ((answer?.bytes ?? 0) * 8 * 1000) / PACE_BITS_PER_S - (Date.now() - started);
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    }
  };
  const latencies: number[] = [];
  const probe = async () => {
    while (Date.now() < end && !signal.aborted) {
      const started = performance.now();
      const answer = await get(`${base}/login`).catch(() => null);
      if (!answer || answer.status !== 200) failed += 1;
      else latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  await Promise.all([probe(), ...Array.from({ length: VIEWERS }, (_, i) => viewer(i))]);
  const cpu = path.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0) - cpuBefore;
  agent.destroy();
  return { cpuPerGb: cpu / (bytes / 1e9), bytes, failed, requests, p99: quantile(latencies, 0.99) };
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
        // The lowest rung, inside the publish's version folder.
        const rung = manifest.rungs.at(-1)!.dir;
        const segments = readdirSync(join(dir, manifest.version, rung))
          .filter((name) => name.endsWith('.m4s'))
          .map((name) => `/api/video/hls/${rung}/${name}`);
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
            value: `${proxied.cpuPerGb.toFixed(2)} s/GB`,
            measured: proxied.cpuPerGb,
            note: `${gb(proxied.bytes)} in ${proxied.requests} requests`,
          },
          directCpu: {
            value: `${direct.cpuPerGb.toFixed(2)} s/GB`,
            measured: direct.cpuPerGb,
            note: `${gb(direct.bytes)} in ${direct.requests} requests`,
          },
          proxyPage: { value: `${proxied.p99.toFixed(0)} ms`, measured: proxied.p99 },
          directPage: { value: `${direct.p99.toFixed(0)} ms`, measured: direct.p99 },
          failed: {
            value: `${proxied.failed} | ${direct.failed}`,
            measured: proxied.failed + direct.failed,
          },
        };
      } finally {
        await stop();
      }
    },
  };
}
