import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withMediaInfo } from '../../server/media-info.js';
import { expectNoLeak, fakeDist, listen, logCapture, rawRequest, testServer } from './helpers.js';

const CSP =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data: blob:;media-src 'self' blob:;" +
  "connect-src 'self' blob:;font-src 'self';object-src 'none';base-uri 'none';frame-ancestors 'none';" +
  "form-action 'self'";

const LOGIN = '/capacitacion/login';

describe('the built site through a real port', () => {
  let dist: string;
  let app: FastifyInstance;
  let base: string;
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    rawRequest(base, path, { method, headers });

  beforeAll(async () => {
    dist = fakeDist();
    app = await testServer({ DIST_DIR: dist });
    base = await listen(app);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it.each([LOGIN, '/capacitacion/VideoPlayer'])(
    '%s answers index.html, never cached without revalidation',
    async (path) => {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body.toString()).toContain('<div id="root">');
    },
  );

  it('says on each page how long a copy of it may be shown: the session lifetime', async () => {
    const other = await testServer({ DIST_DIR: dist, SESSION_TTL_S: '900' });
    try {
      const otherBase = await listen(other);
      for (const path of [LOGIN, '/capacitacion/VideoPlayer'])
        expect((await rawRequest(otherBase, path)).headers['x-page-copy-s']).toBe('900');
      expect((await get(LOGIN)).headers['x-page-copy-s']).toBe('7200');
    } finally {
      await other.close();
    }
  });

  it('answers HEAD on the login with headers and no body', async () => {
    const res = await get(LOGIN, {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toHaveLength(0);
  });

  it.each(['/capacitacion', '/capacitacion/'])('%s redirects to the login', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(LOGIN);
  });

  it('serves hashed assets as immutable for a year', async () => {
    const res = await get('/capacitacion/assets/index-Ab12Cd34.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('serves the precompressed .gz sibling to a browser that accepts gzip', async () => {
    const res = await get('/capacitacion/assets/index-Ab12Cd34.js', {
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers.vary).toContain('accept-encoding');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves other real files of the build with revalidation', async () => {
    const res = await get('/capacitacion/robots.txt');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it.each([
    '/',
    '/login',
    '/VideoPlayer',
    '/capacitacion/nope',
    '/capacitacion/Login',
    '/capacitacion/login/',
    '/capacitacion/VideoPlayer/extra',
    '/capacitacion/assets/missing.js',
    '/capacitacion/assets/',
    '/CAPACITACION/login',
    '/index.html?x=1',
  ])('redirects the unknown path %s to the login', async (path) => {
    for (const method of ['GET', 'HEAD']) {
      const res = await get(path, {}, method);
      expect(res.status, method).toBe(302);
      expect(res.headers.location).toBe(LOGIN);
    }
  });

  it.each([
    '/capacitacion/.build-env.json',
    '/.env',
    '/.git/config',
    '/package.json',
    '/server/app.ts',
    '/capacitacion/../package.json',
    '/capacitacion/assets/../../package.json',
    '/capacitacion/%2e%2e/package.json',
    '/capacitacion/assets/..%2f..%2fpackage.json',
    '/capacitacion/..%5c..%5cpackage.json',
    '/capacitacion/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '/capacitacion//etc/passwd',
    '/capacitacion/%00index.html',
  ])('never serves a file outside the build, nor a dotfile: %s', async (path) => {
    const res = await get(path);
    expect([302, 400, 404]).toContain(res.status);
    const body = res.body.toString();
    expect(body).not.toMatch(/dependencies|BASE_PATH|root:x|buildServer|\[core\]/);
    expectNoLeak(body);
  });

  it('answers unknown API paths with 404 JSON, for any method', async () => {
    for (const [method, path] of [
      ['GET', '/api'],
      ['GET', '/api/users'],
      ['POST', '/api/video'],
      ['DELETE', '/api/users/signin'],
      ['GET', '/api/users/signin'],
      ['PUT', '/api/anything?x=1'],
    ] as const) {
      const res = await get(path, {}, method);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(JSON.parse(res.body.toString())).toEqual({
        error: 'not_found',
        message: 'No encontrado.',
      });
    }
  });

  it('answers other methods on pages with 404 JSON rather than a redirect', async () => {
    const res = await rawRequest(base, LOGIN, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString()).error).toBe('not_found');
  });

  it('answers a malformed URL with 400 JSON', async () => {
    const res = await get('/capacitacion/%');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString()).error).toBe('bad_request');
  });

  it("sends a page's security headers on the pages and the service worker's script", async () => {
    for (const path of [LOGIN, '/capacitacion/sw.js']) {
      const { status, headers } = await get(path);
      expect(status, path).toBe(200);
      expect(headers['content-security-policy'], path).toBe(CSP);
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(headers['permissions-policy']).toBe('camera=(), microphone=(), geolocation=()');
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['strict-transport-security']).toBeUndefined();
      expect(headers['x-powered-by']).toBeUndefined();
    }
  });

  it("sends a file's on assets, API answers and redirects: nothing to load, framed nowhere", async () => {
    for (const path of ['/capacitacion/assets/index-Ab12Cd34.js', '/api/video', '/x']) {
      const { headers } = await get(path);
      expect(headers['content-security-policy'], path).toBe(
        "default-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      );
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(headers['x-frame-options']).toBe('DENY');
      // Read by documents only: bytes on every answer of a slow link.
      for (const name of ['permissions-policy', 'x-xss-protection', 'x-download-options'])
        expect(headers[name], `${path}: ${name}`).toBeUndefined();
      expect(headers['cross-origin-opener-policy']).toBeUndefined();
      expect(headers['origin-agent-cluster']).toBeUndefined();
      expect(headers['x-powered-by']).toBeUndefined();
    }
  });
});

describe('robots.txt at the origin root', () => {
  it('answers plain text that keeps crawlers out of the API, with or without a build', async () => {
    const dist = fakeDist();
    for (const app of [await testServer({ DIST_DIR: dist }), await testServer()]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await app.inject({ method, url: '/robots.txt' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        if (method === 'GET') expect(res.body).toBe('User-agent: *\nDisallow: /api/\n');
      }
      await app.close();
    }
    rmSync(dist, { recursive: true, force: true });
  });
});

describe('the inline style and script of the built index.html', () => {
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

  it('are allowed by their hashes, and nothing else inline is', async () => {
    const dist = fakeDist();
    const css = '.login{display:flex}:root{color:#1f2a1f}';
    const js = '(function(e){document.title=e})(`Video`);';
    writeFileSync(
      join(dist, 'index.html'),
      `<!doctype html><html lang="es"><head><style>${css}</style><script type="module" crossorigin src="/capacitacion/assets/index-x.js"></script></head>` +
        `<body><div id="root"></div><script>${js}</script></body></html>`,
    );
    writeFileSync(join(dist, 'sw.js'), '');
    const app = await testServer({ DIST_DIR: dist });
    for (const url of [LOGIN, '/capacitacion/sw.js']) {
      const csp = (await app.inject({ url })).headers['content-security-policy'] as string;
      expect(csp).toContain(`;style-src 'self' 'sha256-${sha256(css)}';`);
      expect(csp).toContain(`;script-src 'self' 'sha256-${sha256(js)}';`);
      expect(csp).not.toContain('unsafe-inline');
    }
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('follow a build made while the server runs, and leave inert JSON out', async () => {
    const dist = fakeDist();
    const indexFile = join(dist, 'index.html');
    const page = (js: string) =>
      `<!doctype html><html lang="es"><head></head><body><div id="root"></div>` +
      `<script type="application/json" id="boot-config">{"a":1}</script><script>${js}</script></body></html>`;
    writeFileSync(indexFile, page('document.title=`uno`;'));
    const app = await testServer({ DIST_DIR: dist });
    const cspOf = async (url: string) =>
      (await app.inject({ url })).headers['content-security-policy'] as string;
    expect(await cspOf(LOGIN)).toContain(
      `script-src 'self' 'sha256-${sha256('document.title=`uno`;')}';`,
    );
    expect(await cspOf(LOGIN)).not.toContain(sha256('{"a":1}'));

    writeFileSync(indexFile, page('document.title=`dos, más largo`;'));
    utimesSync(indexFile, new Date(), new Date(Date.now() + 5_000));
    const csp = await cspOf(LOGIN.replace(/login$/, 'VideoPlayer'));
    expect(csp).toContain(
      `script-src 'self' 'sha256-${sha256('document.title=`dos, más largo`;')}';`,
    );
    expect(csp).not.toContain(sha256('document.title=`uno`;'));
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('are not allowed when the build has none (style-src and script-src stay self)', async () => {
    const dist = fakeDist();
    const app = await testServer({ DIST_DIR: dist });
    const csp = (await app.inject({ url: LOGIN })).headers['content-security-policy'] as string;
    expect(csp).toContain(";style-src 'self';");
    expect(csp).toContain("script-src 'self';");
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });
});

describe('security headers by configuration', () => {
  it('sends HSTS in production only', async () => {
    const app = await testServer({
      NODE_ENV: 'production',
      PASSWORD_HASH:
        'scrypt$32768$8$3$8k1Pe5jXNAmGNz28gmKWcg==$xXbxyigxXbzwemnlrJtcDBkXkQGzkOlMEM/PbprPVUU=',
      SESSION_SECRET: 'a-real-secret-of-at-least-32-characters!!',
    });
    const res = await app.inject({ url: '/api/video' });
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    await app.close();
  });

  it('lets the browser reach an outside API and video host, and nothing else', async () => {
    const dist = fakeDist();
    const app = await testServer({
      DIST_DIR: dist,
      API_URL: 'https://api.example.com',
      VIDEO_URL: 'https://cdn.example.net/training.mp4',
    });
    const csp = (await app.inject({ url: LOGIN })).headers['content-security-policy'] as string;
    expect(csp).toContain("img-src 'self' data: blob: https://api.example.com;");
    expect(csp).toContain(
      "media-src 'self' blob: https://api.example.com https://cdn.example.net;",
    );
    expect(csp).toContain("connect-src 'self' blob: https://api.example.com;");
    expect(csp).toContain("script-src 'self';");
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });
});

describe('without a build', () => {
  it('answers the pages with 503 JSON saying how to build, and keeps the API up', async () => {
    const app = await testServer();
    for (const path of [LOGIN, '/capacitacion/VideoPlayer']) {
      const res = await app.inject({ url: path });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: 'site_not_built',
        message: 'El sitio no está compilado: ejecute `npm run build` (o `npm start`).',
      });
      expectNoLeak(res.body);
    }
    expect((await app.inject({ url: '/capacitacion/assets/x.js' })).headers.location).toBe(LOGIN);
    expect((await app.inject({ url: '/api/video' })).statusCode).toBe(401);
    await app.close();
  });
});

/** The page as the server sends it: with the copy's period on its root (7 days by default). */
const withCopyDays = (html: string, days = 7) =>
  html.replace('<html', `<html data-offline-copy-days="${days}"`);

describe('the page tells the player what MEDIA_DIR has published', () => {
  const PLACEHOLDER = '<script type="application/json" id="media-info">null</script>';
  const BOOT = 'document.title=`boot`;';
  // Long enough that both encodings are worth sending, like the real page (14 kB).
  const INDEX =
    `<!doctype html><html lang="es"><head></head><body><div id="root">${'<p>Bolsa</p>'.repeat(200)}</div>\n` +
    `${PLACEHOLDER}\n<script>${BOOT}</script></body></html>`;
  const CODECS = 'avc1.64001f,mp4a.40.2';
  // As prepare-video writes it: highest first, with fields the page does not need.
  const rung = (dir: string, width: number, height: number, peakBandwidth: number) => ({
    dir,
    width,
    height,
    averageBandwidth: Math.round(peakBandwidth * 0.8),
    peakBandwidth,
    codecs: CODECS,
    bytes: 123_456,
  });
  const MANIFEST = {
    id: 'k3f9a1c2',
    source: 'camara.mov',
    durationS: 8,
    frameRate: 30,
    rungs: [
      rung('k3f9a1c2-720p', 1280, 720, 2_400_000),
      rung('k3f9a1c2-360p', 640, 360, 640_000),
      rung('k3f9a1c2-144p', 256, 144, 98_000),
    ],
    fallback: { rung: 'k3f9a1c2-360p', bytes: 1_000_000 },
    captions: 'stub',
    chapters: 0,
  };
  const EXPECTED = {
    durationS: 8,
    rungs: [
      { dir: 'k3f9a1c2-144p', height: 144, peakBandwidth: 98_000, codecs: CODECS },
      { dir: 'k3f9a1c2-360p', height: 360, peakBandwidth: 640_000, codecs: CODECS },
      { dir: 'k3f9a1c2-720p', height: 720, peakBandwidth: 2_400_000, codecs: CODECS },
    ],
  };
  const mediaInfoOf = (html: string): unknown => {
    const text = /<script type="application\/json" id="media-info">(.*?)<\/script>/.exec(html)?.[1];
    if (text === undefined) throw new Error('no media-info element in the page');
    return JSON.parse(text);
  };

  let dist: string;
  let media: string;
  const manifestFile = () => join(media, 'media.json');
  /** Writes media.json with an mtime of its own, as a new publish would. */
  let published = 0;
  const publish = (text: string) => {
    writeFileSync(manifestFile(), text);
    const when = new Date(Date.UTC(2026, 0, 1) + ++published * 60_000);
    utimesSync(manifestFile(), when, when);
  };
  beforeEach(() => {
    dist = fakeDist();
    writeFileSync(join(dist, 'index.html'), INDEX);
    media = mkdtempSync(join(tmpdir(), 'media-'));
    writeFileSync(join(media, 'master.m3u8'), '#EXTM3U\n');
    // Written captions and chapters: the page's root is left as built (empty-tracks.test.ts).
    const cue = 'WEBVTT\n\n00:00.000 --> 00:04.000\nInicio\n';
    writeFileSync(join(media, 'captions.es.vtt'), cue);
    writeFileSync(join(media, 'chapters.vtt'), cue);
    publish(JSON.stringify(MANIFEST, null, 2));
  });
  afterEach(() => {
    rmSync(dist, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  });

  it.each([LOGIN, '/capacitacion/VideoPlayer'])(
    '%s carries the renditions lowest first, the rest of the page as built',
    async (path) => {
      const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
      const res = await app.inject({ url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(mediaInfoOf(res.body)).toEqual(EXPECTED);
      expect(res.body).toBe(
        withCopyDays(
          INDEX.replace(PLACEHOLDER, () => PLACEHOLDER.replace('null', JSON.stringify(EXPECTED))),
        ),
      );
      await app.close();
    },
  );

  it('names a portrait rendition by its short side, as the quality menu does', async () => {
    publish(JSON.stringify({ rungs: [rung('k3f9a1c2-360p', 360, 640, 700_000)] }));
    const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
    expect(mediaInfoOf((await app.inject({ url: LOGIN })).body)).toEqual({
      rungs: [{ dir: 'k3f9a1c2-360p', height: 360, peakBandwidth: 700_000, codecs: CODECS }],
    });
    await app.close();
  });

  it('leaves out codecs that are not a codecs list: the page only loses its early first frame', async () => {
    const odd = { ...rung('k3f9a1c2-360p', 640, 360, 700_000), codecs: 'avc1"><script>' };
    publish(JSON.stringify({ rungs: [odd, rung('k3f9a1c2-144p', 256, 144, 98_000)] }));
    const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
    expect(mediaInfoOf((await app.inject({ url: LOGIN })).body)).toEqual({
      rungs: [
        { dir: 'k3f9a1c2-144p', height: 144, peakBandwidth: 98_000, codecs: CODECS },
        { dir: 'k3f9a1c2-360p', height: 360, peakBandwidth: 700_000 },
      ],
    });
    await app.close();
  });

  it("leaves the page as built without MEDIA_DIR, but for the copy's period", async () => {
    const app = await testServer({ DIST_DIR: dist });
    const res = await app.inject({ url: LOGIN });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(withCopyDays(INDEX));
    expect(mediaInfoOf(res.body)).toBeNull();
    await app.close();
  });

  it('tells the page how many days a download plays with no signal (OFFLINE_COPY_DAYS)', async () => {
    const app = await testServer({ DIST_DIR: dist, OFFLINE_COPY_DAYS: '0' });
    expect((await app.inject({ url: LOGIN })).body).toBe(withCopyDays(INDEX, 0));
    await app.close();
  });

  it('keeps the CSP of the page as built: the element is data, its boot script is allowed', async () => {
    const sha256 = createHash('sha256').update(BOOT, 'utf8').digest('base64');
    const cspOf = async (env: Record<string, string>) => {
      const app = await testServer({ DIST_DIR: dist, ...env });
      const csp = (await app.inject({ url: LOGIN })).headers['content-security-policy'];
      await app.close();
      return csp;
    };
    const csp = await cspOf({ MEDIA_DIR: media });
    expect(csp).toBe(await cspOf({}));
    expect(csp).toBe(CSP.replace("script-src 'self'", `script-src 'self' 'sha256-${sha256}'`));
  });

  it.each([
    ['not JSON', '{"rungs": ['],
    ['null', 'null'],
    ['no rungs', JSON.stringify({ ...MANIFEST, rungs: [] })],
    ['a folder outside MEDIA_DIR', JSON.stringify({ rungs: [rung('../x', 640, 360, 640_000)] })],
    [
      'a folder that prepare-video never names',
      JSON.stringify({ rungs: [rung('k3f9a1c2-360p/../../x', 640, 360, 640_000)] }),
    ],
    ['a negative bandwidth', JSON.stringify({ rungs: [rung('k3f9a1c2-360p', 640, 360, -5)] })],
    ['a zero height', JSON.stringify({ rungs: [rung('k3f9a1c2-360p', 640, 0, 640_000)] })],
    ['a fractional width', JSON.stringify({ rungs: [rung('k3f9a1c2-360p', 640.5, 360, 1)] })],
    [
      'a bandwidth as text',
      JSON.stringify({ rungs: [{ ...rung('k3f9a1c2-360p', 640, 360, 1), peakBandwidth: '1' }] }),
    ],
    ['the same folder twice', JSON.stringify({ rungs: [MANIFEST.rungs[1], MANIFEST.rungs[1]] })],
    ['a thousand rungs', JSON.stringify({ rungs: Array(1000).fill(MANIFEST.rungs[1]) })],
  ])('serves the page without media info, and warns once, for %s', async (_name, text) => {
    publish(text);
    const log = logCapture();
    const app = await testServer(
      { DIST_DIR: dist, MEDIA_DIR: media, LOG_LEVEL: 'warn' },
      { logStream: log.stream },
    );
    for (const url of [LOGIN, '/capacitacion/VideoPlayer', LOGIN]) {
      const res = await app.inject({ url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(mediaInfoOf(brotliDecompressSync(res.rawPayload).toString())).toBeNull();
    }
    const warnings = log.lines.filter((line) => line.includes('media.json'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).level).toBe(40);
    await app.close();
  });

  it('serves the page without media info when media.json is missing, and again when it comes', async () => {
    rmSync(manifestFile());
    const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
    expect(mediaInfoOf((await app.inject({ url: LOGIN })).body)).toBeNull();
    publish(JSON.stringify(MANIFEST));
    expect(mediaInfoOf((await app.inject({ url: LOGIN })).body)).toEqual(EXPECTED);
    await app.close();
  });

  it('follows a new publish, and a new build, with new ETags', async () => {
    const app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
    const first = await app.inject({ url: LOGIN });
    expect((await app.inject({ url: LOGIN })).headers.etag).toBe(first.headers.etag);

    publish(JSON.stringify({ rungs: [rung('a1b2c3d4-240p', 426, 240, 300_000)] }));
    const republished = await app.inject({ url: LOGIN });
    expect(mediaInfoOf(republished.body)).toEqual({
      rungs: [{ dir: 'a1b2c3d4-240p', height: 240, peakBandwidth: 300_000, codecs: CODECS }],
    });
    expect(republished.headers.etag).not.toBe(first.headers.etag);

    const rebuilt = INDEX.replace('<head>', '<head><meta name="x">');
    writeFileSync(join(dist, 'index.html'), rebuilt);
    utimesSync(join(dist, 'index.html'), new Date(), new Date(Date.now() + 5_000));
    const res = await app.inject({ url: LOGIN });
    expect(res.body).toContain('<meta name="x">');
    expect(mediaInfoOf(res.body)).toEqual(mediaInfoOf(republished.body));
    expect(res.headers.etag).not.toBe(republished.headers.etag);
    await app.close();
  });

  describe('through a real port', () => {
    let app: FastifyInstance;
    let base: string;
    beforeEach(async () => {
      app = await testServer({ DIST_DIR: dist, MEDIA_DIR: media });
      base = await listen(app);
    });
    afterEach(() => app.close());

    it('sends the same page in brotli, gzip and identity, each with its ETag', async () => {
      const identity = await rawRequest(base, LOGIN);
      expect(mediaInfoOf(identity.body.toString())).toEqual(EXPECTED);
      expect(identity.headers['content-encoding']).toBeUndefined();
      const decode = { br: brotliDecompressSync, gzip: gunzipSync };
      const etags = new Set([identity.headers.etag]);
      for (const encoding of ['br', 'gzip'] as const) {
        const res = await rawRequest(base, LOGIN, {
          headers: { 'accept-encoding': encoding === 'br' ? 'gzip, deflate, br' : 'gzip' },
        });
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        expect(res.body.length).toBeLessThan(identity.body.length / 4);
        expect(decode[encoding](res.body).equals(identity.body)).toBe(true);
        etags.add(res.headers.etag);
      }
      expect(etags.size).toBe(3);
    });

    it('answers a revalidation with 304 for the same encoding only', async () => {
      const headers = { 'accept-encoding': 'br' };
      // Last-Modified is the later of the two sources: the build, then a newer publish.
      const built = await rawRequest(base, LOGIN, { headers });
      expect(built.headers['last-modified']).toBe(
        statSync(join(dist, 'index.html')).mtime.toUTCString(),
      );
      const later = new Date(Date.now() + 3_600_000);
      utimesSync(manifestFile(), later, later);
      const first = await rawRequest(base, LOGIN, { headers });
      expect(first.headers['last-modified']).toBe(later.toUTCString());

      const etag = first.headers.etag as string;
      const again = await rawRequest(base, LOGIN, {
        headers: { ...headers, 'if-none-match': etag },
      });
      expect(again.status).toBe(304);
      expect(again.body).toHaveLength(0);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['content-security-policy']).toBe(
        first.headers['content-security-policy'],
      );
      const gzip = await rawRequest(base, LOGIN, {
        headers: { 'accept-encoding': 'gzip', 'if-none-match': etag },
      });
      expect(gzip.status).toBe(200);
      expect(gzip.headers['content-encoding']).toBe('gzip');
    });

    it('answers HEAD with the headers and no body', async () => {
      for (const encoding of ['', 'br']) {
        const res = await rawRequest(base, '/capacitacion/VideoPlayer', {
          method: 'HEAD',
          headers: { 'accept-encoding': encoding },
        });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers.etag).toMatch(/^W\//);
        expect(res.body).toHaveLength(0);
      }
    });
  });
});

describe('the media-info element', () => {
  it('escapes < so that no value can end the element', () => {
    const html = withMediaInfo(
      '<body><script type="application/json" id="media-info">null</script></body>',
      { rungs: [{ dir: '</script><script>alert(1)</script>', height: 1, peakBandwidth: 1 }] },
    );
    expect(html).not.toContain('</script><script>alert');
    expect(html).toContain('\\u003c/script>\\u003cscript>alert(1)\\u003c/script>');
    expect(html.match(/<\/script>/g)).toHaveLength(1);
  });
});
