/** Segments via nginx and straight; the Redis flood via nginx, one killed: docs/benchmarks.md. */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { RUNG_FILE_PATTERN } from '../../config/media-layout';
import { startProxy, workerPids } from '../ops/nginx';
import { publishTestClip } from '../test-support/test-clip';
import { SIGNIN_PATH, send, signedIn } from '../test-support/test-server';
import { benchSite, bothInstances, floodBoth, twoInstancesOnRedis } from './load';
import { atEnd, atMost, exactly, figure, p99Of, reading, sleep, section } from './measure';
import type { Site } from './measure';

const [VIEWERS, PACE_BITS_PER_S, DURATION_S, KILL_AFTER_MS] = [200, 500_000, 30, 3_000];
const FAILOVER_LOG = 'reports/bench-proxy-failover-access.log';

/** The 36 s test clip behind a bench server and nginx; `segments`: its top rendition's URLs. */
export async function clipBehindProxy(site: Site, name: string, signal: AbortSignal) {
  const { dir, manifest } = await publishTestClip(36);
  const env = { MEDIA_DIR: dir, DIST_DIR: site.distDir };
  const server = await benchSite(site, `server-${name}`, signal, env);
  const upstreams = [new URL(server.origin).host];
  const proxy = await startProxy({ upstreams, mediaDir: dir, workers: 'auto' });
  atEnd(signal, async () => {
    await proxy.stop();
    rmSync(dirname(dir), { recursive: true, force: true });
  });
  const rung = manifest.rungs.reduce((top, each) => (each.height > top.height ? each : top));
  const segments = readdirSync(join(dir, manifest.version, rung.dir))
    .filter((name) => RUNG_FILE_PATTERN.test(name) && name.endsWith('.m4s'))
    .map((name) => `/api/video/hls/${manifest.version}/${rung.dir}/${name}`);
  return { dir, server, proxy, segments };
}

/** GETs over keep-alive (nginx's certificate is self-signed); status 0: no answer in time. */
export function client(origin: string, maxSockets: number) {
  const options = { keepAlive: true, maxSockets, rejectUnauthorized: false };
  const agent = origin.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
  const get = (path: string, headers = {}) =>
    send(`${origin}${path}`, { agent, headers }).catch(() => ({ status: 0, bytes: 0 }));
  const timed = async (into: number[], path: string, headers = {}) => {
    const started = performance.now();
    const answer = await get(path, headers);
    if (answer.status === 200) into.push(performance.now() - started);
    return answer;
  };
  return { agent, get, timed };
}

/** utime + stime of the processes, in seconds (a process that is gone counts 0). */
const cpuSeconds = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return sum + (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return sum;
    }
  }, 0);

type Watched = { origin: string; cookie: string; pids: () => number[] } & Paths;
type Paths = { login: string; segments: string[] };
// Viewers arriving over 6 s fetch `segments` in turn at PACE_BITS_PER_S (a failure again a second
// later), the login every 100 ms, for DURATION_S: the CPU of `pids` per GB served, login p99.
async function watch({ origin, cookie, pids, login, segments }: Watched) {
  const { agent, get, timed } = client(origin, VIEWERS + 4);
  const [cpuBefore, end] = [cpuSeconds(pids()), Date.now() + DURATION_S * 1000];
  const latencies: number[] = [];
  let [bytes, failed] = [0, 0];
  const viewer = async (next: number) => {
    for (await sleep(Math.random() * 6_000); Date.now() < end;) {
      const started = Date.now();
      const answer = await get(segments[next % segments.length]!, { cookie });
      if (answer.status !== 200) failed += 1;
      else [bytes, next] = [bytes + answer.bytes, next + 1];
      const paced = (answer.bytes * 8 * 1000) / PACE_BITS_PER_S - (Date.now() - started);
      await sleep(answer.status === 200 ? paced : 1000);
    }
  };
  const probe = async () => {
    for (; Date.now() < end; await sleep(100))
      if ((await timed(latencies, login)).status !== 200) failed += 1;
  };
  await Promise.all([probe(), ...Array.from({ length: VIEWERS }, (_, i) => viewer(i))]);
  const perGb = bytes ? (cpuSeconds(pids()) - cpuBefore) / (bytes / 1e9) : null;
  agent.destroy();
  const cpu = reading(perGb === null ? 'no bytes' : `${perGb.toFixed(2)} s/GB`, perGb);
  return { failed, cpu, page: p99Of(latencies) };
}

// nginx's access log: requests passed on, and signins failed (but 401, 429 and 499, the client's).
function readAccessLog(file: string) {
  const answers = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /"(\S+ \S+) [^"]*" (\d{3}) .* upstream=(.*)$/.exec(line))
    .filter((answer) => answer !== null);
  const failedSignin = ([, request, status]: string[]) =>
    request === `POST ${SIGNIN_PATH}` && Number(status) >= 400 && !/401|429|499/.test(status!);
  const retried = answers.filter((answer) => answer[3]!.includes(',')).length;
  return { total: answers.length, retried, failedSignins: answers.filter(failedSignin).length };
}

/** load's two-instance floods on Redis, via nginx (as deployed), the second one SIGKILLed: rows. */
async function floodAndKill(site: Site, mediaDir: string, signal: AbortSignal) {
  const env = { MEDIA_DIR: mediaDir, DIST_DIR: site.distDir };
  const sites = await twoInstancesOnRedis(site, 'failover', signal, env);
  rmSync(FAILOVER_LOG, { force: true }); // nginx appends to it, from its own prefix if relative
  const upstreams = sites.map((each) => new URL(each.origin).host);
  const accessLog = resolve(FAILOVER_LOG);
  const proxy = await startProxy({ upstreams, mediaDir, workers: 'auto', accessLog });
  const agent = new HttpsAgent({ rejectUnauthorized: false });
  atEnd(signal, async () => void agent.destroy());
  atEnd(signal, () => proxy.stop());
  const viaProxy = { ...sites[0]!, origin: proxy.origin, agent };
  let killed: Promise<string> | undefined;
  const floodStarted: number[] = [];
  const onFlood = () => {
    if (floodStarted.push(Date.now()) < 2) return;
    killed = sleep(KILL_AFTER_MS).then(() => {
      process.kill(sites[1]!.pid, 'SIGKILL');
      const after = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
      return `instance ${upstreams[1]} killed ${after(floodStarted[0]!)} after flood A's process started, ${after(floodStarted[1]!)} after B's`;
    });
  };
  const [first, second] = await floodBoth([viaProxy, viaProxy], signal, onFlood);
  await proxy.stop();
  const [log, gone] = [readAccessLog(FAILOVER_LOG), await killed];
  const errors = Number(first.errors.measured) + Number(second.errors.measured);
  const both = `A ${first.errors.value}, B ${second.errors.value}`;
  const note = `${gone ?? 'not killed'}; nginx's log (${FAILOVER_LOG}): ${log.total} requests, ${log.retried} passed on to the other instance`;
  return {
    failoverFailed: reading(gone ? both : 'no instance was killed', gone ? errors : null, note),
    failoverSignins: reading(String(log.failedSignins), log.failedSignins),
    failoverPage: bothInstances(first.page, second.page),
  };
}

const p99 = atMost(200, (ms) => `${ms} ms`);
const FIGURES = {
  proxyCpu: figure('CPU s per GB of segments, nginx over HTTPS'),
  directCpu: figure('CPU s per GB of segments, one instance (HTTP)'),
  proxyPage: figure('Login page p99 during the viewers, through nginx', p99),
  directPage: figure('Login page p99 during the viewers, straight', p99),
  failed: figure('Failed requests, nginx | straight', exactly(0)),
  failoverFailed: figure('Page+video errors, 2-instance flood via nginx, one killed', exactly(0)),
  failoverSignins: figure('Signins lost with the killed instance (POST, not retried)'),
  failoverPage: figure('Login page p99 under that flood, via nginx'),
};

const NAME = `video bytes: ${VIEWERS} viewers at 500 kbit/s through nginx (HTTPS) and straight from one instance`;
export const proxyMeasurement = section(NAME, 300_000, FIGURES, async (site, signal) => {
  const { dir, server, proxy, segments } = await clipBehindProxy(site, 'proxy', signal);
  const login = () => signedIn(server).catch(() => signedIn(server));
  const paths = { login: `${site.base}/login`, segments };
  // Signed in over HTTP: the same signed value under the name the app reads over HTTPS.
  const cookie = (await login()).cookie.replace(/^sid=/, '__Host-sid=');
  const pids = () => [proxy.pid, ...workerPids(proxy.pid)];
  const proxied = await watch({ ...paths, origin: proxy.origin, cookie, pids });
  const straight = { ...paths, ...(await login()), origin: server.origin };
  const direct = await watch({ ...straight, pids: () => [server.pid] });
  return {
    ...{ proxyCpu: proxied.cpu, directCpu: direct.cpu },
    ...{ proxyPage: proxied.page, directPage: direct.page },
    failed: reading(`${proxied.failed} | ${direct.failed}`, proxied.failed + direct.failed),
    ...(await floodAndKill(site, dir, signal)),
  };
});
