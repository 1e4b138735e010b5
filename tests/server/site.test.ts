import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeak, fakeDist, listen, rawRequest, testServer } from './helpers.js';

const CSP =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;media-src 'self' blob:;" +
  "connect-src 'self';font-src 'self';object-src 'none';base-uri 'none';frame-ancestors 'none';" +
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

  it('sends the security headers on pages, assets, API answers and redirects', async () => {
    for (const path of [LOGIN, '/capacitacion/assets/index-Ab12Cd34.js', '/api/video', '/x']) {
      const { headers } = await get(path);
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
    const app = await testServer({ DIST_DIR: dist });
    for (const url of [LOGIN, '/api/video']) {
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
    const app = await testServer();
    const csp = (await app.inject({ url: LOGIN })).headers['content-security-policy'] as string;
    expect(csp).toContain(";style-src 'self';");
    expect(csp).toContain("script-src 'self';");
    await app.close();
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
    const app = await testServer({
      API_URL: 'https://api.example.com',
      VIDEO_URL: 'https://cdn.example.net/training.mp4',
    });
    const csp = (await app.inject({ url: LOGIN })).headers['content-security-policy'] as string;
    expect(csp).toContain("img-src 'self' data: https://api.example.com;");
    expect(csp).toContain(
      "media-src 'self' blob: https://api.example.com https://cdn.example.net;",
    );
    expect(csp).toContain("connect-src 'self' https://api.example.com;");
    expect(csp).toContain("script-src 'self';");
    await app.close();
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
