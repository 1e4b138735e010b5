import type { FastifyInstance } from 'fastify';
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preferredEncoding } from '../../server/compressed-text.js';
import { MemorySessionStore } from '../../server/sessions.js';
import {
  REPO,
  SIGNOUT,
  expectNoLeak,
  fakeClock,
  listen,
  rawRequest,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

const VIDEO = join(REPO, 'media/sample.mp4');
const SIZE = statSync(VIDEO).size;
const video = readFileSync(VIDEO);

describe('the video routes through a real port', () => {
  let app: FastifyInstance;
  let base: string;
  let cookie: string;
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    rawRequest(base, path, { method, headers: { cookie, ...headers } });

  beforeAll(async () => {
    app = await testServer();
    base = await listen(app);
    cookie = sessionCookie((await signin(app)).headers['set-cookie']);
  });
  afterAll(() => app.close());

  it('refuses the video, captions and poster with 401 JSON when there is no session', async () => {
    for (const path of ['/api/video', '/api/video/captions.vtt', '/api/video/poster.jpg']) {
      const res = await rawRequest(base, path, { headers: { range: 'bytes=0-1' } });
      expect(res.status, path).toBe(401);
      expect(JSON.parse(res.body.toString())).toEqual({
        error: 'unauthorized',
        message: 'Inicie sesión para continuar.',
      });
      expect(res.headers['content-range']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('serves the whole mp4 with its type, Accept-Ranges, a private cache header and an ETag', async () => {
    const res = await get('/api/video');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.etag).toMatch(/^W\/".+"$/);
    expect(res.body.equals(video)).toBe(true);
  });

  it('answers Range bytes=0-1 (the probe Safari sends first) with 206 and exactly 2 bytes', async () => {
    const res = await get('/api/video', { range: 'bytes=0-1' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-1/${SIZE}`);
    expect(res.headers['content-length']).toBe('2');
    expect(res.body.equals(video.subarray(0, 2))).toBe(true);
  });

  it('answers a suffix range (the last 500 bytes)', async () => {
    const res = await get('/api/video', { range: 'bytes=-500' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${SIZE - 500}-${SIZE - 1}/${SIZE}`);
    expect(res.body.equals(video.subarray(SIZE - 500))).toBe(true);
  });

  it('answers an open-ended range (from byte 100 to the end), as a seek does', async () => {
    const res = await get('/api/video', { range: 'bytes=100-' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 100-${SIZE - 1}/${SIZE}`);
    expect(res.body.equals(video.subarray(100))).toBe(true);
  });

  it('answers an unsatisfiable range with 416 and Content-Range: bytes */size', async () => {
    const res = await get('/api/video', { range: `bytes=${SIZE}-${SIZE + 10}` });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${SIZE}`);
    expectNoLeak(res.body.toString());
  });

  it('answers If-None-Match with the current ETag by 304 and no body', async () => {
    const { headers } = await get('/api/video', { range: 'bytes=0-1' });
    const res = await get('/api/video', { 'if-none-match': headers.etag as string });
    expect(res.status).toBe(304);
    expect(res.body).toHaveLength(0);
    expect(res.headers['cache-control']).toBe('private, no-cache');
  });

  it('answers HEAD with the length and no body', async () => {
    const res = await get('/api/video', {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(SIZE));
    expect(res.body).toHaveLength(0);
  });

  it('serves the captions as UTF-8 WebVTT and the poster as JPEG', async () => {
    const vtt = await get('/api/video/captions.vtt');
    expect(vtt.status).toBe(200);
    expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8');
    expect(vtt.body.toString('utf8')).toMatch(/^WEBVTT/);
    expect(vtt.body.toString('utf8')).toContain('silo bolsa');
    const poster = await get('/api/video/poster.jpg');
    expect(poster.status).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect(poster.headers['cache-control']).toBe('private, no-cache');
    expect(poster.body.subarray(0, 2).toString('hex')).toBe('ffd8');
  });
});

describe('the captions, compressed when the browser accepts it', () => {
  const CAPTIONS = readFileSync(join(REPO, 'media/sample.es.vtt'));
  let app: FastifyInstance;
  let base: string;
  let cookie: string;
  const get = (headers: Record<string, string> = {}, method = 'GET') =>
    rawRequest(base, '/api/video/captions.vtt', { method, headers: { cookie, ...headers } });

  beforeAll(async () => {
    app = await testServer();
    base = await listen(app);
    cookie = sessionCookie((await signin(app)).headers['set-cookie']);
  });
  afterAll(() => app.close());

  it.each([
    ['br, gzip', 'br', brotliDecompressSync],
    ['gzip, deflate, br;q=0', 'gzip', gunzipSync],
    ['gzip', 'gzip', gunzipSync],
  ] as const)(
    'accept-encoding %s: sends %s, the same text, smaller',
    async (accept, encoding, decode) => {
      const res = await get({ 'accept-encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-type']).toBe('text/vtt; charset=utf-8');
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.body.length).toBeLessThan(CAPTIONS.length);
      expect(decode(res.body).equals(CAPTIONS)).toBe(true);
    },
  );

  it('sends the plain file, with Vary, to a client that accepts no compression', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'br;q=0, gzip;q=0' },
    ]) {
      const res = await get(headers);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.body.equals(CAPTIONS)).toBe(true);
    }
  });

  it("answers 304 to its own ETag, and a full answer to another encoding's ETag", async () => {
    const br = await get({ 'accept-encoding': 'br' });
    const gz = await get({ 'accept-encoding': 'gzip' });
    const plain = await get();
    const etags = [br, gz, plain].map((res) => res.headers.etag);
    expect(new Set(etags).size).toBe(3);
    const again = await get({ 'accept-encoding': 'br', 'if-none-match': br.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body).toHaveLength(0);
    expect(again.headers['cache-control']).toBe('private, no-cache');
    const other = await get({ 'accept-encoding': 'br', 'if-none-match': gz.headers.etag! });
    expect(other.status).toBe(200);
    expect(brotliDecompressSync(other.body).equals(CAPTIONS)).toBe(true);
    const plainAgain = await get({ 'if-none-match': plain.headers.etag! });
    expect(plainAgain.status).toBe(304);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await get({ 'accept-encoding': 'br' }, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.body).toHaveLength(0);
  });

  it('compresses a changed file again (new size or mtime), with a new ETag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'captions-'));
    const file = join(dir, 'subtitulos.vtt');
    writeFileSync(file, CAPTIONS);
    const other = await testServer({ CAPTIONS_FILE: file });
    const otherCookie = sessionCookie((await signin(other)).headers['set-cookie']);
    const fetchIt = async () =>
      other.inject({
        url: '/api/video/captions.vtt',
        headers: { cookie: otherCookie, 'accept-encoding': 'gzip' },
      });
    const first = await fetchIt();
    const changed = Buffer.concat([CAPTIONS, Buffer.from('\n00:09.000 --> 00:10.000\nFin.\n')]);
    writeFileSync(file, changed);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const second = await fetchIt();
    expect(second.headers.etag).not.toBe(first.headers.etag);
    expect(gunzipSync(second.rawPayload).equals(changed)).toBe(true);
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads Accept-Encoding as browsers and proxies write it', () => {
    expect(preferredEncoding(undefined)).toBeUndefined();
    expect(preferredEncoding('')).toBeUndefined();
    expect(preferredEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(preferredEncoding('GZIP')).toBe('gzip');
    expect(preferredEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(preferredEncoding('*')).toBe('br');
    expect(preferredEncoding('*, br;q=0')).toBe('gzip');
    expect(preferredEncoding('identity, *;q=0')).toBeUndefined();
    expect(preferredEncoding(['deflate', 'gzip'])).toBe('gzip');
  });
});

describe('who may watch', () => {
  const watch = (app: FastifyInstance, cookie: string) =>
    app.inject({ url: '/api/video', headers: { cookie, range: 'bytes=0-1' } });

  it('refuses a forged cookie: a random token, a bad signature, a token without signature', async () => {
    const app = await testServer();
    const real = sessionCookie((await signin(app)).headers['set-cookie']);
    const [name, value] = real.split('=') as [string, string];
    const [token] = value.split('.') as [string];
    const forged = [
      `${name}=${'A'.repeat(43)}.${'B'.repeat(43)}`,
      `${name}=${token}.${'B'.repeat(43)}`,
      `${name}=${token}`,
      `${name}=${app.signCookie('A'.repeat(43))}`,
      `__Host-sid=${value}`,
      '',
    ];
    for (const cookie of forged) expect((await watch(app, cookie)).statusCode, cookie).toBe(401);
    expect((await watch(app, real)).statusCode).toBe(206);
    await app.close();
  });

  it('refuses an expired session (SESSION_TTL_S after signin)', async () => {
    const clock = fakeClock();
    const app = await testServer({ SESSION_TTL_S: '7200' }, { now: clock.now });
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    clock.advance(7_199_000);
    expect((await watch(app, cookie)).statusCode).toBe(206);
    clock.advance(1_000);
    expect((await watch(app, cookie)).statusCode).toBe(401);
    await app.close();
  });

  it('refuses a session from before a restart (sessions live in memory)', async () => {
    const before = await testServer();
    const cookie = sessionCookie((await signin(before)).headers['set-cookie']);
    await before.close();
    const after = await testServer();
    expect((await watch(after, cookie)).statusCode).toBe(401);
    await after.close();
  });

  it('refuses a session ended by signout', async () => {
    const sessions = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
    const app = await testServer({}, { sessions });
    const { token } = await sessions.create();
    const cookie = `sid=${app.signCookie(token)}`;
    expect((await watch(app, cookie)).statusCode).toBe(206);
    await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie } });
    expect((await watch(app, cookie)).statusCode).toBe(401);
    await app.close();
  });

  it('gives two visitors who sign in separately a token each; both stay valid, and one signout ends only its own', async () => {
    // One shared password, many customers: a signin must not end another browser's session.
    // (A browser that signs in again while sending its old cookie loses the old one: see
    // signin.test.ts.)
    const app = await testServer();
    const ana = sessionCookie((await signin(app)).headers['set-cookie']);
    const luis = sessionCookie((await signin(app)).headers['set-cookie']);
    expect(luis).not.toBe(ana);
    expect((await watch(app, ana)).statusCode).toBe(206);
    expect((await watch(app, luis)).statusCode).toBe(206);
    await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie: ana } });
    expect((await watch(app, ana)).statusCode).toBe(401);
    expect((await watch(app, luis)).statusCode).toBe(206);
    await app.close();
  });

  it('refuses a live session whose cookie was signed with another secret', async () => {
    const sessions = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
    const other = await testServer({ SESSION_SECRET: 'another-secret-of-at-least-32-characters!' });
    const app = await testServer({}, { sessions });
    const { token } = await sessions.create();
    expect((await watch(app, `sid=${app.signCookie(token)}`)).statusCode).toBe(206);
    expect((await watch(app, `sid=${other.signCookie(token)}`)).statusCode).toBe(401);
    await Promise.all([app.close(), other.close()]);
  });

  it('answers 404 JSON when the configured video file is missing', async () => {
    const sessions = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
    const app = await testServer({ VIDEO_FILE: 'media/missing.mp4' }, { sessions });
    const { token } = await sessions.create();
    const res = await watch(app, `sid=${app.signCookie(token)}`);
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ error: 'not_found', message: 'No encontrado.' });
    expectNoLeak(res.body);
    await app.close();
  });

  it('keeps the right content types for company files named differently', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-'));
    copyFileSync(VIDEO, join(dir, 'capacitacion-2023.mov'));
    copyFileSync(join(REPO, 'media/sample.es.vtt'), join(dir, 'subtitulos.txt'));
    copyFileSync(join(REPO, 'media/poster.jpg'), join(dir, 'portada'));
    const sessions = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
    const app = await testServer(
      {
        VIDEO_FILE: join(dir, 'capacitacion-2023.mov'),
        CAPTIONS_FILE: join(dir, 'subtitulos.txt'),
        POSTER_FILE: join(dir, 'portada'),
      },
      { sessions },
    );
    const cookie = `sid=${app.signCookie((await sessions.create()).token)}`;
    const type = async (url: string) =>
      (await app.inject({ url, headers: { cookie } })).headers['content-type'];
    expect(await type('/api/video')).toBe('video/mp4');
    expect(await type('/api/video/captions.vtt')).toBe('text/vtt; charset=utf-8');
    expect(await type('/api/video/poster.jpg')).toBe('image/jpeg');
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
