/**
 * An encrypted publish through a real port: its init and media segments public and cacheable,
 * its playlists and its key only for a live session (under every URL shape), the signin handing
 * the served key over; a clear publish gated as before.
 */
import type { FastifyInstance } from 'fastify';
import { createDecipheriv } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KEY_FILE,
  PUBLISHED,
  keyFileName,
  keysDirFor,
  segmentName,
  type Manifest,
} from '../../config/media-layout.js';
import { segmentIv } from '../../config/segment-iv.js';
import { publishTestClip } from '../../scripts/test-support/test-clip.js';
import { inStore } from '../../server/redis.js';
import { MemorySessionStore, type SessionStore } from '../../server/sessions.js';
import { clearSegment, keyPath, setEncrypted } from './encryption.js';
import {
  SIGNOUT,
  listen,
  logCapture,
  rawRequest,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

let dir: string;
let served: string;
let manifest: Manifest;
let rung: string;
let key: Buffer;
let app: FastifyInstance;
let base: string;
let cookie: string;
const log = logCapture();

beforeAll(async () => {
  ({ dir, manifest } = await publishTestClip(4));
  served = join(dir, manifest.version);
  rung = manifest.rungs[0]!.dir;
  key = setEncrypted(dir, served, true)!;
  app = await testServer({ MEDIA_DIR: dir, LOG_LEVEL: 'warn' }, { logStream: log.stream });
  base = await listen(app);
  cookie = sessionCookie((await signin(app)).headers['set-cookie']);
}, 60_000);
afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
  rmSync(keysDirFor(dir), { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  rawRequest(base, path, { headers });
const withSession = (path: string, headers: Record<string, string> = {}) =>
  get(path, { cookie, ...headers });

/** A rendition's file under both URL shapes: the served publish's, and the page's version. */
const shapes = (file: string, of = rung, version = manifest.version) => [
  `/api/video/hls/${of}/${file}`,
  `/api/video/hls/${version}/${of}/${file}`,
];

describe('the key of an encrypted publish', () => {
  it('is its 16 bytes for a live session, never stored, under both URL shapes', async () => {
    for (const path of shapes(KEY_FILE)) {
      const res = await withSession(path);
      expect(res.status, path).toBe(200);
      expect(res.body.equals(key), path).toBe(true);
      expect(res.headers['content-type'], path).toBe('application/octet-stream');
      expect(res.headers['cache-control'], path).toBe('private, no-store');
    }
  });

  it('is refused without a session (401, no-store), and once the session has ended', async () => {
    const own = sessionCookie((await signin(app)).headers['set-cookie']);
    expect((await get(shapes(KEY_FILE)[0]!, { cookie: own })).status).toBe(200);
    await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie: own } });
    for (const path of shapes(KEY_FILE))
      for (const headers of [{}, { cookie: own }, { cookie: 'sid=forged' }] as Record<
        string,
        string
      >[]) {
        const res = await get(path, headers);
        expect(res.status, path).toBe(401);
        expect(JSON.parse(res.body.toString()).error).toBe('unauthorized');
        expect(res.headers['cache-control']).toBe('no-store');
      }
  });

  it('is not found for a rendition no kept publish has, even with its key file on the disk', async () => {
    // A publish current.json does not list, complete with its key: nothing of it is served.
    const other = 'zzzzzzzz';
    const version = `v20200101000000-${other}`;
    const folder = join(dir, version);
    const otherRung = `${other}-${rung.split('-')[1]}`;
    cpSync(served, folder, { recursive: true });
    renameSync(join(folder, rung), join(folder, otherRung));
    writeFileSync(
      join(folder, PUBLISHED.manifest),
      JSON.stringify({ ...manifest, id: other, version, encrypted: true }),
    );
    writeFileSync(join(keysDirFor(dir), keyFileName(other)), key);
    for (const path of [
      ...shapes(KEY_FILE, otherRung, version),
      ...shapes(KEY_FILE, `${manifest.id}-9999p`),
      `/api/video/hls/${version}/${rung}/${KEY_FILE}`,
      `/api/video/hls/${manifest.version}/${KEY_FILE}`,
      `/api/video/hls/${rung}/${KEY_FILE}.bak`,
    ]) {
      const res = await withSession(path);
      expect(res.status, path).toBe(404);
      expect(res.body.equals(key), path).toBe(false);
    }
    // Nor are its segments, session or not.
    for (const path of shapes(segmentName(0), otherRung, version))
      expect((await get(path)).status, path).not.toBe(200);
  });

  it('is not found, with a line in the log, when its file is missing or not 16 bytes', async () => {
    const file = keyPath(dir, served);
    try {
      for (const bytes of [null, key.subarray(0, 15), Buffer.concat([key, key])]) {
        if (bytes) writeFileSync(file, bytes);
        else rmSync(file);
        const before = log.lines.length;
        for (const path of shapes(KEY_FILE)) {
          const res = await withSession(path);
          expect(res.status, path).toBe(404);
          expect(JSON.parse(res.body.toString()).error).toBe('not_found');
        }
        const lines = log.lines.slice(before).join('');
        expect(lines).toContain('video key missing');
        expect(lines).toContain(manifest.id);
        expect(lines).not.toContain(key.toString('base64'));
      }
    } finally {
      writeFileSync(file, key);
    }
  });
});

describe('the media of an encrypted publish', () => {
  const segments = () => [
    ...shapes('init.mp4'),
    ...shapes(segmentName(0)),
    ...shapes(segmentName(1)),
  ];
  const playlists = () => [
    '/api/video/hls/master.m3u8',
    `/api/video/hls/${manifest.version}/master.m3u8`,
    ...shapes('index.m3u8'),
  ];

  it('serves init and media segments to anyone, whatever the cookie, kept a year by any cache', async () => {
    for (const path of segments())
      for (const headers of [{}, { cookie: 'sid=forged' }] as Record<string, string>[]) {
        const res = await get(path, headers);
        expect(res.status, path).toBe(200);
        expect(res.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
        expect(res.headers['content-type'], path).toBe('video/mp4');
      }
  });

  it("keeps its playlists behind the session as a clear publish's: 401 without one, private and revalidated with one", async () => {
    const own = sessionCookie((await signin(app)).headers['set-cookie']);
    expect((await get(playlists()[0]!, { cookie: own })).status).toBe(200);
    await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie: own } });
    for (const path of playlists()) {
      for (const headers of [{}, { cookie: own }, { cookie: 'sid=forged' }] as Record<
        string,
        string
      >[]) {
        const res = await get(path, { 'accept-encoding': 'gzip', ...headers });
        expect(res.status, path).toBe(401);
        expect(JSON.parse(res.body.toString()).error, path).toBe('unauthorized');
        expect(res.headers['cache-control'], path).toBe('no-store');
      }
      for (const encoding of ['gzip', 'identity']) {
        const res = await withSession(path, { 'accept-encoding': encoding });
        expect(res.status, path).toBe(200);
        expect(res.headers['cache-control'], path).toBe('private, no-cache');
        expect(res.headers['content-type'], path).toBe('application/vnd.apple.mpegurl');
        expect(res.headers['content-encoding'], path).toBe(
          encoding === 'gzip' ? 'gzip' : undefined,
        );
      }
    }
  });

  it('refuses its playlists 503, never 401, while the session store is down; its segments keep coming', async () => {
    const real = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
    let down = false;
    const sessions: SessionStore = {
      create: () => real.create(),
      get: (token) =>
        inStore(async () => {
          if (down) throw new Error('connect ECONNREFUSED');
          return real.get(token);
        }),
      delete: (token) => real.delete(token),
      close: () => real.close(),
    };
    const other = await testServer({ MEDIA_DIR: dir }, { sessions });
    try {
      const own = sessionCookie((await signin(other)).headers['set-cookie']);
      down = true;
      for (const path of playlists()) {
        const res = await other.inject({ url: path, headers: { cookie: own } });
        expect(res.statusCode, path).toBe(503);
        expect(res.headers['retry-after'], path).toMatch(/^\d+$/);
        expect(res.headers['cache-control'], path).toBe('no-store');
      }
      for (const path of segments())
        expect((await other.inject({ url: path })).statusCode, path).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('holds no clear byte: each segment decrypts with the key the session got, IV = its sequence number', async () => {
    const playlist = (await withSession(shapes('index.m3u8')[0]!)).body.toString();
    expect(playlist).toMatch(
      /#EXT-X-MAP:URI="init.mp4"\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin"\n/,
    );
    const fetched = (await withSession(shapes(KEY_FILE)[1]!)).body;
    for (const index of [0, 1]) {
      const res = await get(shapes(segmentName(index))[1]!);
      expect(res.body.includes(Buffer.from('moof')), `segment ${index}`).toBe(false);
      const decipher = createDecipheriv('aes-128-cbc', fetched, segmentIv(index));
      const clear = Buffer.concat([decipher.update(res.body), decipher.final()]);
      expect(clear.equals(clearSegment(dir, served, rung, segmentName(index)))).toBe(true);
      expect(clear.subarray(4, 8).toString()).toMatch(/^(styp|moof)$/);
    }
  });

  it('keeps Range on public segments', async () => {
    const whole = readFileSync(join(served, rung, segmentName(0)));
    const res = await get(shapes(segmentName(0))[0]!, { range: 'bytes=0-99' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-99/${whole.length}`);
    expect(res.body.equals(whole.subarray(0, 100))).toBe(true);
  });

  it('keeps everything else behind the session: the fallback MP4, poster, captions, chapters', async () => {
    for (const path of [
      '/api/video',
      '/api/video/poster.jpg',
      '/api/video/captions.vtt',
      '/api/video/chapters.vtt',
      `/api/video/hls/${manifest.version}/${PUBLISHED.fallback}`,
      `/api/video/hls/${manifest.version}/${PUBLISHED.poster}`,
      `/api/video/hls/${manifest.version}/${PUBLISHED.captions}`,
      `/api/video/hls/${manifest.version}/${PUBLISHED.chapters}`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(401);
      expect(res.headers['cache-control'], path).toBe('no-store');
      expect([200, 204], path).toContain((await withSession(path)).status);
      expect((await withSession(path)).headers['cache-control'], path).toMatch(/^private, /);
    }
  });

  it('answers names outside the published files 401 without a session, 404 with one', async () => {
    for (const path of [
      `/api/video/hls/${rung}/seg99999.m4s`,
      `/api/video/hls/${rung}/..%2f${PUBLISHED.manifest}`,
      `/api/video/hls/${manifest.version}/${PUBLISHED.manifest}`,
      '/api/video/hls/aaaaaaaa-360p/index.m3u8',
    ]) {
      const missing = path.includes('seg99999');
      // A missing segment of a public publish is just missing; anything else is the session's.
      expect((await get(path)).status, path).toBe(missing ? 404 : 401);
      expect((await withSession(path)).status, path).toBe(404);
    }
  });
});

describe('a clear publish (published before encryption)', () => {
  beforeAll(() => setEncrypted(dir, served, false));
  afterAll(() => {
    key = setEncrypted(dir, served, true)!;
  });

  it('keeps every media file behind the session, kept by the browser only, and has no key', async () => {
    for (const path of [
      '/api/video/hls/master.m3u8',
      `/api/video/hls/${manifest.version}/master.m3u8`,
      ...shapes('index.m3u8'),
      ...shapes('init.mp4'),
      ...shapes(segmentName(0)),
    ]) {
      const refused = await get(path, { range: 'bytes=0-1' });
      expect(refused.status, path).toBe(401);
      expect(refused.headers['cache-control'], path).toBe('no-store');
      const res = await withSession(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toMatch(/^private, /);
    }
    for (const path of shapes(KEY_FILE)) expect((await withSession(path)).status, path).toBe(404);
  });

  it('signs in with no videoKey in the answer', async () => {
    const res = await signin(app);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['empresa', 'nombres']);
  });
});

describe('the signin of an encrypted publish', () => {
  it('hands over the served publish key (base64 of the key file) with the session', async () => {
    const res = await signin(app);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.videoKey).toEqual({ id: manifest.id, key: key.toString('base64') });
    expect(
      Buffer.from(body.videoKey.key, 'base64').equals(readFileSync(keyPath(dir, served))),
    ).toBe(true);
    expect(Object.keys(body).sort()).toEqual(['empresa', 'nombres', 'videoKey']);
  });

  it('still signs in, with no videoKey and a line in the log, when the key cannot be read', async () => {
    const file = keyPath(dir, served);
    rmSync(file);
    try {
      const before = log.lines.length;
      const res = await signin(app);
      expect(res.statusCode).toBe(200);
      expect(res.json().videoKey).toBeUndefined();
      expect(log.lines.slice(before).join('')).toContain('video key missing');
    } finally {
      writeFileSync(file, key);
    }
  });

  it('has no videoKey without MEDIA_DIR, and nothing changes for a wrong password', async () => {
    const single = await testServer();
    try {
      expect(Object.keys((await signin(single)).json()).sort()).toEqual(['empresa', 'nombres']);
    } finally {
      await single.close();
    }
    const wrong = await signin(app, 'mal');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('videoKey');
  });

  it('reads MEDIA_KEYS_DIR when set, beside the media folder', async () => {
    const elsewhere = join(dirname(dir), 'claves');
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, keyFileName(manifest.id)), Buffer.alloc(16, 7));
    const other = await testServer({ MEDIA_DIR: dir, MEDIA_KEYS_DIR: elsewhere });
    try {
      const res = await signin(other);
      expect(res.json().videoKey.key).toBe(Buffer.alloc(16, 7).toString('base64'));
      const own = sessionCookie(res.headers['set-cookie']);
      const fetched = await other.inject({ url: shapes(KEY_FILE)[0]!, headers: { cookie: own } });
      expect(fetched.rawPayload.equals(Buffer.alloc(16, 7))).toBe(true);
    } finally {
      await other.close();
    }
  });
});
