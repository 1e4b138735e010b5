/**
 * Publishing safely (issue 29), with the real ffmpeg and the real server on a loopback port: a
 * damaged source changes nothing, a page keeps the version it started with through a republish,
 * an interrupted publish leaves the served one as it was, and retired versions go when no
 * session can still play them.
 */
import type { FastifyInstance } from 'fastify';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CURRENT_FILE,
  MEDIA_INFO_ELEMENT,
  PUBLISHED,
  ROOT_VERSION,
  parsePointer,
} from '../../config/media-layout.js';
import {
  PrepareError,
  cleanMediaDir,
  describe as summary,
  prepareVideo,
} from '../../scripts/ops/prepare-video.js';
import type { Manifest } from '../../config/media-layout.js';
import { makeClip } from '../../scripts/test-support/test-clip.js';
import {
  REPO,
  fakeDist,
  listen,
  rawRequest,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

const SAMPLE = join(REPO, 'media', 'sample.mp4');
const fast = { preset: 'ultrafast' } as const;

/** Every file under `dir` with its SHA-256; `skipDot` leaves out the dot-named (never served). */
function hashes(dir: string, skipDot = false, prefix = ''): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    if (skipDot && name.startsWith('.')) continue;
    const path = join(prefix, name);
    if (statSync(join(dir, path)).isDirectory()) Object.assign(result, hashes(dir, skipDot, path));
    else
      result[path] = createHash('sha256')
        .update(readFileSync(join(dir, path)))
        .digest('hex');
  }
  return result;
}

const pointerOf = (dir: string) => parsePointer(readFileSync(join(dir, CURRENT_FILE), 'utf8'))!;

/** The seconds a rendition's playlist holds. */
const playlistSeconds = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('#EXTINF:'))
    .reduce((sum, line) => sum + Number.parseFloat(line.slice(8)), 0);

let work: string;
let clipA: string;
let clipB: string;
let half: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'publish-'));
  clipA = join(work, 'a.mp4');
  clipB = join(work, 'b.mp4');
  makeClip(clipA, 8);
  makeClip(clipB, 12, { tone: 660 });
  // What a copy cut off halfway leaves: the header whole, half the data missing.
  const bytes = readFileSync(SAMPLE);
  half = join(work, 'sample-half.mp4');
  writeFileSync(half, bytes.subarray(0, Math.floor(bytes.length / 2)));
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a damaged source', () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(work, 'damaged');
    await prepareVideo(clipA, dir, fast);
  }, 60_000);

  it('is refused, saying what is wrong and how much of it plays, and no byte of the folder changes', async () => {
    const before = hashes(dir);
    const attempt = prepareVideo(half, dir, fast);
    await expect(attempt).rejects.toThrow(PrepareError);
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toMatch(/header says 73\.0 s but only 3\d\.\d s decodes/);
    expect(message).toMatch(/decoding error/);
    expect(message).toMatch(
      /Only 0 min 3\d s of its 1 min 13 s would play\. Nothing was changed\./,
    );
    expect(message).toMatch(/--accept-truncated/);
    expect(hashes(dir)).toEqual(before);
  }, 60_000);

  it('is published on purpose with --accept-truncated: the published length, and the summary says what was cut', async () => {
    const manifest = await prepareVideo(half, dir, { ...fast, acceptTruncated: true });
    expect(manifest.durationS).toBeGreaterThan(35);
    expect(manifest.durationS).toBeLessThan(39);
    const served = join(dir, manifest.version);
    for (const rung of manifest.rungs)
      expect(
        Math.abs(playlistSeconds(join(served, rung.dir, 'index.m3u8')) - manifest.durationS),
      ).toBeLessThan(1);
    expect(JSON.parse(readFileSync(join(served, PUBLISHED.manifest), 'utf8')).durationS).toBe(
      manifest.durationS,
    );
    const text = summary(manifest, dir);
    expect(text).toMatch(/^Published sample-half\.mp4 \(0 min 3\d s\)/);
    expect(text).toMatch(
      /\n {2}cut {7}0 min 3\d s of its 1 min 13 s did not decode and is not published \(its header says 73\.0 s/,
    );
  }, 120_000);
});

describe('a republish while pages play', () => {
  let dir: string;
  let dist: string;
  let app: FastifyInstance;
  let base: string;
  let cookie: string;
  let first: Manifest;
  const get = async (path: string) => rawRequest(base, path, { headers: { cookie } });
  const mediaInfo = async () => {
    const page = await rawRequest(base, '/capacitacion/login');
    const json = /id="media-info">(.*?)<\/script>/.exec(page.body.toString())?.[1];
    return JSON.parse(json ?? 'null') as { version?: string; rungs: { dir: string }[] };
  };
  /** Every URL a player of `version` asks for, with the bytes on disk they must answer. */
  const versionFiles = (manifest: Manifest) => {
    const rung = manifest.rungs.at(-1)!.dir;
    const names: string[] = [PUBLISHED.master, PUBLISHED.fallback, PUBLISHED.poster];
    return names
      .concat([
        PUBLISHED.captions,
        `${rung}/index.m3u8`,
        `${rung}/init.mp4`,
        `${rung}/seg00000.m4s`,
      ])
      .map((name) => ({
        url: `/api/video/hls/${manifest.version}/${name}`,
        bytes: readFileSync(join(dir, manifest.version, name)),
      }));
  };

  beforeAll(async () => {
    dir = join(work, 'served');
    first = await prepareVideo(clipA, dir, fast);
    dist = fakeDist();
    writeFileSync(join(dist, 'index.html'), `<!doctype html>${MEDIA_INFO_ELEMENT}`);
    app = await testServer({ MEDIA_DIR: dir, DIST_DIR: dist });
    base = await listen(app);
    cookie = sessionCookie((await signin(app)).headers['set-cookie']);
  }, 60_000);
  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves every file of the version the page names, before and after the next publish, and new pages get the new one', async () => {
    const info = await mediaInfo();
    expect(info.version).toBe(first.version);
    expect(info.rungs.map((r) => r.dir).sort()).toEqual(first.rungs.map((r) => r.dir).sort());
    const files = versionFiles(first);
    for (const { url, bytes } of files) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.body.equals(bytes), url).toBe(true);
    }

    const second = await prepareVideo(clipB, dir, fast);
    expect(second.version).not.toBe(first.version);
    expect((await mediaInfo()).version).toBe(second.version);
    // The page already playing: every one of its URLs answers the same bytes.
    for (const { url, bytes } of files) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.body.equals(bytes), url).toBe(true);
    }
    // Its renditions by their own names too (a player given the unversioned master).
    const oldRung = first.rungs[0]!.dir;
    expect((await get(`/api/video/hls/${oldRung}/index.m3u8`)).status).toBe(200);
    // The unversioned routes are the new publish, all of them.
    const master = await get('/api/video/hls/master.m3u8');
    expect(master.body.toString()).toBe(
      readFileSync(join(dir, second.version, PUBLISHED.master), 'utf8'),
    );
    const fallback = await get('/api/video');
    expect(fallback.body.equals(readFileSync(join(dir, second.version, PUBLISHED.fallback)))).toBe(
      true,
    );
  }, 120_000);

  it('serves nothing a publish does not name: unknown versions, a folder current.json does not list, dot-folders', async () => {
    const orphan = 'v20260101000000-orphan01';
    cpSync(join(dir, first.version), join(dir, orphan), { recursive: true });
    for (const path of [
      `/api/video/hls/${orphan}/${PUBLISHED.master}`,
      '/api/video/hls/v20000101000000-aaaaaaaa/master.m3u8',
      `/api/video/hls/${first.version}/${PUBLISHED.manifest}`,
      `/api/video/hls/${first.version}/..%2f${CURRENT_FILE}`,
      `/api/video/hls/.prepare-abc/${PUBLISHED.master}`,
    ])
      expect((await get(path)).status, path).toBe(404);
    // The next run takes it for what it is: a leftover.
    expect(cleanMediaDir(dir, { keepOldS: 3600 })).toContain(orphan);
    expect(existsSync(join(dir, orphan))).toBe(false);
  });

  it('removes a replaced version once the time kept has passed since it was replaced, not before: by default two session lifetimes', async () => {
    const pointer = pointerOf(dir);
    const retired = pointer.retired.find((r) => r.version === first.version)!;
    const replacedAt = Date.parse(retired.until);
    const at = (s: number) => new Date(replacedAt + s * 1000);
    // A copy of the page naming it may be shown for one (SESSION_TTL_S, 7200 s by default), and
    // a session begun from that copy lasts one more.
    expect(cleanMediaDir(dir, { now: at(2 * 7200 - 1) })).toEqual([]);
    expect(cleanMediaDir(dir, { keepOldS: 3600, now: at(3599) })).toEqual([]);
    expect((await get(`/api/video/hls/${first.version}/${PUBLISHED.master}`)).status).toBe(200);
    expect(cleanMediaDir(dir, { keepOldS: 3600, now: at(3600) })).toEqual([first.version]);
    expect(existsSync(join(dir, first.version))).toBe(false);
    expect(pointerOf(dir).retired).toEqual([]);
    expect((await get(`/api/video/hls/${first.version}/${PUBLISHED.master}`)).status).toBe(404);
    expect((await get('/api/video/hls/master.m3u8')).status).toBe(200);
  });

  it('a publish with no time to keep removes the replaced version at once; the clean-up command says what it removed', async () => {
    const before = pointerOf(dir).version;
    await prepareVideo(clipA, dir, { ...fast, keepOldS: 0 });
    expect(existsSync(join(dir, before))).toBe(false);
    const third = pointerOf(dir).version;
    await prepareVideo(clipB, dir, { ...fast, keepOldS: 3600 });
    expect(existsSync(join(dir, third))).toBe(true);
    const cli = await runCli(['--clean', dir, '--keep-old', '0']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`Removed from ${dir}: ${third}`);
    expect(readdirSync(dir).sort()).toEqual([CURRENT_FILE, pointerOf(dir).version]);
  }, 120_000);
});

/** prepare-video as the operator runs it (one node process: the signals reach it). */
function startCli(args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/ops/prepare-video.ts', ...args],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: string | null }>((resolvePromise) =>
    child.on('close', (code, signal) => resolvePromise({ code, signal })),
  );
  return { child, done, output: () => ({ stdout, stderr }) };
}

async function runCli(args: string[]) {
  const run = startCli(args);
  const { code } = await run.done;
  return { code, ...run.output() };
}

/** Resolves once ffmpeg has written a segment into a publish's work folder: inside the encoding. */
async function encoding(dir: string) {
  for (let i = 0; i < 600; i++) {
    const stage = readdirSync(dir).find((name) => name.startsWith('.prepare-'));
    if (stage) {
      const rungs = readdirSync(join(dir, stage)).filter((name) => /^v\d$/.test(name));
      if (rungs.some((rung) => readdirSync(join(dir, stage, rung)).some((f) => f.endsWith('.m4s'))))
        return stage;
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
  }
  throw new Error('the publish never reached the encoding');
}

/** The processes `pid` started (ffmpeg), read from /proc. */
const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);

describe('an interrupted publish', () => {
  it('killed with SIGTERM, then with SIGKILL, inside the encoding: the served publish stays as it was, and the next publish succeeds and tidies up', async () => {
    const dir = join(work, 'interrupted');
    const first = await prepareVideo(clipA, dir, fast);
    const served = () => hashes(dir, true);
    const before = served();

    const stopped = startCli([SAMPLE, '--out', dir, '--preset', 'ultrafast']);
    await encoding(dir);
    stopped.child.kill('SIGTERM');
    const { code } = await stopped.done;
    expect(code, stopped.output().stderr).toBe(143);
    expect(stopped.output().stderr).toMatch(/stopped \(SIGTERM\): the served publish is as it was/);
    expect(hashes(dir)).toEqual(before);

    const killed = startCli([SAMPLE, '--out', dir, '--preset', 'ultrafast']);
    const stage = await encoding(dir);
    const ffmpeg = childrenOf(killed.child.pid!);
    killed.child.kill('SIGKILL');
    await killed.done;
    // Left half-done, but under a name nothing serves or takes for a publish.
    expect(existsSync(join(dir, stage))).toBe(true);
    expect(served()).toEqual(before);
    const app = await testServer({ MEDIA_DIR: dir });
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    const master = await app.inject({ url: '/api/video/hls/master.m3u8', headers: { cookie } });
    expect(master.body).toBe(readFileSync(join(dir, first.version, PUBLISHED.master), 'utf8'));
    await app.close();
    // The orphaned ffmpeg would go on writing into the removed folder; this test started it.
    for (const pid of ffmpeg)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }

    const next = await prepareVideo(clipB, dir, fast);
    const names = readdirSync(dir);
    expect(names.filter((name) => name.startsWith('.'))).toEqual([]);
    expect(pointerOf(dir).version).toBe(next.version);
    expect(names.sort()).toEqual([CURRENT_FILE, first.version, next.version].sort());
  }, 240_000);
});

describe('a media folder in the flat layout (published before versions)', () => {
  it('is served as it is, and its first versioned publish keeps it for pages still playing it until its time is up', async () => {
    const made = join(work, 'made');
    const manifest = await prepareVideo(clipA, made, fast);
    const dir = join(work, 'flat');
    cpSync(join(made, manifest.version), dir, { recursive: true });
    const app = await testServer({ MEDIA_DIR: dir });
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    const get = (url: string) => app.inject({ url, headers: { cookie } });
    const rung = `/api/video/hls/${manifest.rungs[0]!.dir}/index.m3u8`;
    expect((await get('/api/video/hls/master.m3u8')).statusCode).toBe(200);
    expect((await get(rung)).statusCode).toBe(200);

    const next = await prepareVideo(clipB, dir, fast);
    expect(pointerOf(dir).retired.map((r) => r.version)).toEqual([ROOT_VERSION]);
    expect((await get(rung)).statusCode).toBe(200);
    expect((await get('/api/video/hls/master.m3u8')).body).toBe(
      readFileSync(join(dir, next.version, PUBLISHED.master), 'utf8'),
    );
    expect(cleanMediaDir(dir, { keepOldS: 0 })).toEqual([ROOT_VERSION]);
    expect(readdirSync(dir).sort()).toEqual([CURRENT_FILE, next.version]);
    expect((await get(rung)).statusCode).toBe(404);
    expect((await get('/api/video')).statusCode).toBe(200);
    await app.close();
  }, 120_000);
});
