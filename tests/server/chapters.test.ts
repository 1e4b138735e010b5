/**
 * The chapters track (CHAPTERS_FILE) is served like the captions: only to a live session,
 * privately cached, compressed when the browser accepts it.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebVtt } from '../../machines/webvtt.js';
import { REPO, listen, rawRequest, sessionCookie, signin, testServer } from './helpers.js';

const URL_PATH = '/api/video/chapters.vtt';
const CHAPTERS = readFileSync(join(REPO, 'media/sample.chapters.vtt'));

describe('the chapters track', () => {
  let app: FastifyInstance;
  let base: string;
  let cookie: string;
  const get = (headers: Record<string, string> = {}) =>
    rawRequest(base, URL_PATH, { headers: { cookie, ...headers } });

  beforeAll(async () => {
    app = await testServer();
    base = await listen(app);
    cookie = sessionCookie((await signin(app)).headers['set-cookie']);
  });
  afterAll(() => app.close());

  it('is refused with 401, never stored, without a live session', async () => {
    for (const headers of [{}, { 'accept-encoding': 'br' }] as Record<string, string>[]) {
      const res = await rawRequest(base, URL_PATH, { headers });
      expect(res.status).toBe(401);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body.toString()).not.toContain('WEBVTT');
    }
  });

  it("is the sample's five scenes as UTF-8 WebVTT, cached privately", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/vtt; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.body.equals(CHAPTERS)).toBe(true);
    const cues = parseWebVtt(res.body.toString('utf8'));
    expect(cues?.map((cue) => [cue.startS, cue.text])).toEqual([
      [8, 'Elección y preparación del terreno'],
      [21, 'Embolsado: máquina y bolsa'],
      [34, 'Llenado y estiba del grano'],
      [47, 'Cierre de la bolsa y rotulado'],
      [60, 'Monitoreo, calado y extracción'],
    ]);
  });

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('is compressed as %s when the browser accepts it', async (encoding, decode) => {
    const res = await get({ 'accept-encoding': encoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(decode(res.body).equals(CHAPTERS)).toBe(true);
    const again = await get({
      'accept-encoding': encoding,
      'if-none-match': `${res.headers.etag}`,
    });
    expect(again.status).toBe(304);
  });

  it('comes from CHAPTERS_FILE, and is a 404 (not a 5xx) when that file is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chapters-'));
    const file = join(dir, 'capitulos.vtt');
    writeFileSync(file, 'WEBVTT\n\n00:00.000 --> 00:05.000\nUno\n');
    for (const [env, status, body] of [
      [{ CHAPTERS_FILE: file }, 200, 'Uno'],
      [{ CHAPTERS_FILE: join(dir, 'no-existe.vtt') }, 404, ''],
    ] as const) {
      const other = await testServer(env);
      const otherCookie = sessionCookie((await signin(other)).headers['set-cookie']);
      for (const encoding of ['identity', 'gzip']) {
        const res = await other.inject({
          url: URL_PATH,
          headers: { cookie: otherCookie, 'accept-encoding': encoding },
        });
        expect(res.statusCode, `${encoding} ${env.CHAPTERS_FILE}`).toBe(status);
        if (body)
          expect(
            (encoding === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload).toString(),
          ).toContain(body);
      }
      await other.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
