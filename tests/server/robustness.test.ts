import type { FastifyInstance } from 'fastify';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../server/app.js';
import {
  SIGNIN,
  logCapture,
  testConfig,
  expectNoLeak,
  fakeDist,
  listen,
  rawRequest,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

describe('odd requests never get a 5xx, a stack or a file path', () => {
  let dist: string;
  let app: FastifyInstance;
  let base: string;
  let cookie: string;

  beforeAll(async () => {
    dist = fakeDist();
    app = await testServer({ DIST_DIR: dist, SIGNIN_MAX_REQUESTS_PER_MINUTE: '1000' });
    base = await listen(app);
    cookie = sessionCookie((await signin(app)).headers['set-cookie']);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const ranges = [
    'bytes=abc',
    'bytes=5-1',
    'bytes=0-1,5-6',
    'items=0-1',
    'bytes=-0',
    'bytes=99999999999999999999-',
    'bytes=0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1, 0-1',
    '',
  ];
  it.each(ranges)('the video with Range "%s" answers 200, 206 or 416', async (range) => {
    const res = await rawRequest(base, '/api/video', { headers: { cookie, range } });
    expect([200, 206, 416]).toContain(res.status);
    if (res.status === 416) expectNoLeak(res.body.toString());
  });

  it('answers odd methods, headers and bodies with 4xx JSON', async () => {
    const requests: Parameters<typeof rawRequest>[2][] = [
      { method: 'OPTIONS' },
      { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' },
      {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=latin1' },
        body: '{',
      },
      { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' },
      {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        body: '--x--',
      },
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: '{}',
      },
      { method: 'POST', headers: { 'content-type': '' }, body: '{}' },
    ];
    for (const options of requests) {
      for (const path of [SIGNIN, '/api/video', '/capacitacion/login', '/nowhere']) {
        const res = await rawRequest(base, path, {
          ...options,
          headers: { cookie, ...options?.headers },
        });
        const label = `${options?.method} ${path} ${JSON.stringify(options?.headers)}`;
        expect(res.status, label).toBeGreaterThanOrEqual(200);
        expect(res.status, label).toBeLessThan(500);
        expectNoLeak(res.body.toString());
      }
    }
  });

  it('still signs a visitor in and streams the video afterwards', async () => {
    expect((await signin(app, undefined, { remoteAddress: '198.51.100.99' })).statusCode).toBe(200);
    const res = await rawRequest(base, '/api/video', { headers: { cookie, range: 'bytes=0-1' } });
    expect(res.status).toBe(206);
  });
});

describe('a real bug in a handler', () => {
  it('answers 500 with a generic message, and keeps the details in the log only', async () => {
    const log = logCapture();
    const app = await buildServer(testConfig({ LOG_LEVEL: 'error' }), { logStream: log.stream });
    app.get('/api/boom', async () => {
      throw new Error('boom at /srv/app/server/secret.ts:12');
    });
    const res = await app.inject({ url: '/api/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: 'internal_error',
      message: 'Ocurrió un error inesperado. Intente nuevamente.',
    });
    expectNoLeak(res.body);
    expect(log.text()).toContain('boom at /srv/app/server/secret.ts:12');
    await app.close();
  });
});
