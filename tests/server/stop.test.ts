/**
 * Stopping the site as a process manager does: the site started exactly as the docs say
 * (`npm start`, and the production command of docs/production.md), a signal sent to the PID a
 * manager holds (or to the start script, or to the whole process group), and then: a video
 * response that was in flight completes, the server logged "shutting down", the port is free
 * and no process of the run's process group is left. Each run is its own process group
 * (`detached`), found through /proc, never by name.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientConfig } from '../../config/settings.js';
import { whyBuild } from '../../scripts/build/build-check.js';
import { freePort } from '../../scripts/ops/nginx.js';
import { signedIn } from '../../scripts/test-support/test-server.js';
import { hashPassword } from '../../server/password.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = 'una-clave-para-parar-el-sitio';
/**
 * Several times what loopback's socket buffers hold for a reader that has paused (a few MB), so
 * the server is still writing when it stops; small enough to finish well within the drain's 10 s
 * on a loaded machine.
 */
const VIDEO_BYTES = 24 * 1024 * 1024;
/** Generous: a start took 12 to 14 s on a 2-core machine with a load average of 27. */
const BOUND_MS = 60_000;

let dir: string;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stop-'));
  const video = join(dir, 'video.mp4');
  writeFileSync(video, '');
  truncateSync(video, VIDEO_BYTES);
  env = {
    ...process.env,
    NODE_ENV: 'production',
    PASSWORD_HASH: await hashPassword(PASSWORD),
    SESSION_SECRET: 'stop-test-session-secret-0123456789-abcdefghijklmnop',
    HOST: '127.0.0.1',
    VIDEO_FILE: video,
    LOG_LEVEL: 'info',
    REDIS_URL: undefined,
    npm_config_update_notifier: 'false',
  };
  // The deploy step of docs/production.md (the project's global setup ran it before any file,
  // tests/server/global-setup.ts): current, each start below then only serves.
  const prepared = spawnSync(process.execPath, ['scripts/ops/start.mjs', '--build'], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
    timeout: 300_000,
  });
  expect(prepared.status).toBe(0);
  expect(whyBuild(ROOT, env)).toBeNull();
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const portIsFree = (port: number) =>
  new Promise<boolean>((resolveFree) => {
    const probe = createServer();
    probe.once('error', () => resolveFree(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolveFree(true)));
  });

/** Every live process whose process group is `pgid`, as `pid command line`. */
function group(pgid: number): string[] {
  const members: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command name (which may hold spaces and parentheses): state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== pgid || state === 'Z') continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      members.push(`${pid} ${cmdline}`);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return members;
}

/** Polls `check` until it holds; fails with `what` after BOUND_MS. */
async function until(what: () => string, check: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + BOUND_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${BOUND_MS} ms: ${what()}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

interface Run {
  child: ChildProcess;
  port: number;
  /** Everything the run printed so far. */
  output(): string;
  /** Resolves when the output holds `text`. */
  printed(text: string, withinMs?: number): Promise<void>;
  /** How the started process ended, and what of its group was still alive at that moment. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; left: string[] }>;
}

const runs: Run[] = [];

async function start(
  command: string,
  args: string[],
  { changes = {}, boundMs = BOUND_MS }: { changes?: typeof env; boundMs?: number } = {},
): Promise<Run> {
  const port = await freePort();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...env, ...changes, PORT: String(port) },
    // Its own process group, as under a service manager or in a container.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<Awaited<Run['exited']>>((done) =>
    child.once('exit', (code, signal) => done({ code, signal, left: group(child.pid ?? 0) })),
  );
  const printed = (wanted: string, withinMs = BOUND_MS) =>
    new Promise<void>((done, fail) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        fail(new Error(`not printed within ${withinMs} ms: ${wanted}\n${text}`));
      }, withinMs);
      function check() {
        if (!text.includes(wanted)) return;
        clearTimeout(timer);
        waiters.delete(check);
        done();
      }
      waiters.add(check);
      check();
    });
  const run = { child, port, output: () => text, printed, exited };
  runs.push(run);
  await printed(`http://127.0.0.1:${port}`, boundMs);
  return run;
}

afterEach(() => {
  // A failed test leaves nothing running either.
  for (const { child } of runs.splice(0)) {
    if (child.pid && group(child.pid).length) process.kill(-child.pid, 'SIGKILL');
  }
});

/** A GET of the whole video, paused after its first bytes: the server is mid-response. */
async function pausedVideo(origin: string) {
  const { username } = clientConfig(env);
  const { cookie } = await signedIn({ origin, username, password: PASSWORD });
  const response = await new Promise<IncomingMessage>((answer, fail) => {
    const req = request(`${origin}/api/video`, { headers: { cookie, range: 'bytes=0-' } });
    req.on('response', answer).on('error', fail).end();
  });
  let bytes = 0;
  response.on('data', (chunk: Buffer) => (bytes += chunk.length));
  response.once('data', () => response.pause());
  const ended = new Promise<number>((done, fail) => {
    response.on('end', () => done(bytes)).on('error', fail);
    const since = Date.now();
    response.on('aborted', () =>
      fail(
        new Error(
          `aborted after ${bytes} bytes, ${Date.now() - since} ms after the response began`,
        ),
      ),
    );
  });
  await until(
    () => 'the first bytes of the video',
    () => bytes > 0,
  );
  return { response, received: () => bytes, ended };
}

/** The start script's process (under npm or unshare), found in the run's process group. */
function startScript(run: Run): number {
  const line = group(run.child.pid ?? 0).find((member) =>
    /^\d+ (\S*\/)?node scripts\/ops\/start\.mjs$/.test(member),
  );
  if (!line) throw new Error(`no start script in ${group(run.child.pid ?? 0).join('\n')}`);
  return Number(line.split(' ')[0]);
}

const STARTS = {
  'npm start': ['npm', ['start']],
  // docs/production.md
  'node scripts/ops/start.mjs': [process.execPath, ['scripts/ops/start.mjs']],
} as const;

type Target = 'its PID' | 'the start script' | 'its process group';

const CASES: [keyof typeof STARTS, NodeJS.Signals, Target][] = [
  ['npm start', 'SIGTERM', 'its PID'],
  ['npm start', 'SIGINT', 'its PID'],
  ['npm start', 'SIGTERM', 'the start script'],
  ['npm start', 'SIGTERM', 'its process group'],
  ['npm start', 'SIGINT', 'its process group'],
  ['node scripts/ops/start.mjs', 'SIGTERM', 'its PID'],
  ['node scripts/ops/start.mjs', 'SIGINT', 'its PID'],
  ['node scripts/ops/start.mjs', 'SIGTERM', 'its process group'],
];

/** Starts, stops with `signal` sent to `target`, and checks the drain and what is left. */
async function stopsCleanly(
  [command, args]: readonly [string, readonly string[]],
  signal: NodeJS.Signals,
  target: Target,
) {
  const run = await start(command, [...args]);
  const pgid = run.child.pid ?? 0;
  expect(run.output()).not.toContain('Building');
  const video = await pausedVideo(`http://127.0.0.1:${run.port}`);

  if (target === 'its PID') process.kill(pgid, signal);
  else if (target === 'the start script') process.kill(startScript(run), signal);
  else process.kill(-pgid, signal);
  await run.printed('shutting down');
  // Still mid-response when the drain began.
  expect(video.received()).toBeLessThan(VIDEO_BYTES);

  video.response.resume();
  expect(await video.ended).toBe(VIDEO_BYTES);
  expect(video.response.headers['content-length']).toBe(String(VIDEO_BYTES));
  // A manager takes the end of the PID it holds for the end of the service (and may kill what
  // remains): by then the server must be gone.
  expect(await run.exited).toEqual({ code: 0, signal: null, left: [] });
  await until(
    () => `the port ${run.port} is free`,
    () => portIsFree(run.port),
  );
  await until(
    () => `no process of group ${pgid} is left: ${group(pgid).join('; ')}`,
    () => group(pgid).length === 0,
  );
}

describe('stopping the site as a process manager does', () => {
  it.each(CASES)(
    '%s, %s to %s: the video in flight completes, the port is freed, nothing is left',
    (name, signal, target) => stopsCleanly(STARTS[name], signal, target),
    180_000,
  );

  // A container's exec-form entry point: the start script is PID 1 of its PID namespace, where
  // the kernel drops any signal it has no handler for. Making the namespace needs root.
  it.runIf(process.getuid?.() === 0)(
    'node scripts/ops/start.mjs as PID 1 of a container, SIGTERM from outside: the same clean stop',
    () =>
      stopsCleanly(
        ['unshare', ['--pid', '--fork', process.execPath, 'scripts/ops/start.mjs']],
        'SIGTERM',
        'the start script',
      ),
    180_000,
  );
});

describe('npm start on the defaults (no MEDIA_DIR, no VIDEO_FILE)', () => {
  it('serves the sample as adaptive video, published once (scripts/ops/sample-publish.ts): its ladder to a signed-in visitor', async () => {
    // The first start on a fresh clone publishes the sample: a minute of ffmpeg on a busy machine.
    const run = await start('npm', ['start'], {
      changes: { VIDEO_FILE: undefined },
      boundMs: 240_000,
    });
    const origin = `http://127.0.0.1:${run.port}`;
    const { username } = clientConfig(env);
    const { cookie } = await signedIn({ origin, username, password: PASSWORD });
    const master = await fetch(`${origin}/api/video/hls/master.m3u8`, { headers: { cookie } });
    expect(master.status).toBe(200);
    expect((await master.text()).match(/#EXT-X-STREAM-INF/g)?.length).toBeGreaterThanOrEqual(2);
    process.kill(-(run.child.pid ?? 0), 'SIGTERM');
    expect((await run.exited).code).toBe(0);
  }, 300_000);
});
