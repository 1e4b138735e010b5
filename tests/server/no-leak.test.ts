/**
 * What the other server tests do not already prove about leaks: the most verbose log level,
 * requests so malformed that Node answers them before Fastify, and a failing session store.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySessionStore, type SessionStore } from '../../server/sessions.js';
import {
  SIGNIN,
  USERNAME,
  cheapPasswordHash,
  exchangeRaw,
  expectNoLeak,
  listen,
  logCapture,
  rawRequest,
  sessionCookie,
  signin,
  signinBody,
  testServer,
} from './helpers.js';

const PASSWORD = 'Clave-Real-Zq9-ñandú';
/** A wrong guess long enough to be unmistakable in a log (10 KB, past the password limit). */
const LONG_GUESS = `Intento-${'Zq9x'.repeat(2560)}`;
const GUESS = 'otra-clave-Zq9-adivinada';

/** The ways a password may appear in a JSON log line: raw, JSON-escaped, or as byte values. */
function expectNotInLog(log: string, secret: string) {
  const json = JSON.stringify(secret).slice(1, -1);
  const bytes = [...Buffer.from(secret.slice(0, 24))].join(',');
  expect(log.includes(secret), `the log holds ${secret.slice(0, 24)}`).toBe(false);
  expect(log.includes(json), `the log holds ${secret.slice(0, 24)} escaped`).toBe(false);
  expect(log.includes(bytes), `the log holds ${secret.slice(0, 24)} as bytes`).toBe(false);
}

const rawExchange = async (origin: string, bytes: string) =>
  (await exchangeRaw(origin, bytes)).toString('utf8');

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe('logs at the most verbose level (trace)', () => {
  it('never hold the password nor a guess, whatever the body, its size or its type', async () => {
    const log = logCapture();
    const app = await testServer(
      {
        LOG_LEVEL: 'trace',
        PASSWORD_HASH: cheapPasswordHash(PASSWORD),
        SIGNIN_MAX_REQUESTS_PER_MINUTE: '1000',
      },
      { logStream: log.stream },
    );
    apps.push(app);
    const origin = await listen(app);
    const json = (password: string) => JSON.stringify(signinBody(password));
    const bodies: { payload: string; type?: string }[] = [
      { payload: json(PASSWORD) },
      { payload: json(GUESS) },
      { payload: json(LONG_GUESS) },
      { payload: json(`${GUESS}${'x'.repeat(70 * 1024)}`) },
      { payload: json(GUESS).slice(0, -3) },
      { payload: json(GUESS), type: 'text/plain' },
      {
        payload: `form[usuario]=${USERNAME}&form[contraseña]=${GUESS}`,
        type: 'application/x-www-form-urlencoded',
      },
      {
        payload: `--x\r\nContent-Disposition: form-data; name="contraseña"\r\n\r\n${GUESS}\r\n--x--`,
        type: 'multipart/form-data; boundary=x',
      },
      { payload: `{"form":{"usuario":"${USERNAME}","contraseña":"${GUESS}"},"__proto__":{}}` },
      { payload: `{"form":{"usuario":"${USERNAME}","contraseña":"${GUESS}","extra":1}}` },
      { payload: `{"form":{"usuario":"${USERNAME}","contraseña":["${GUESS}"]}}` },
    ];
    for (const [i, { payload, type }] of bodies.entries()) {
      const res = await rawRequest(origin, SIGNIN, {
        method: 'POST',
        headers: { 'content-type': type ?? 'application/json' },
        body: payload,
      });
      expect(res.status, `body ${i}`).toBeLessThan(500);
      const text = res.body.toString();
      expectNoLeak(text);
      for (const secret of [PASSWORD, GUESS, LONG_GUESS]) expect(text).not.toContain(secret);
    }
    // A request that Node itself cannot parse, with a password in the same packet.
    await rawExchange(
      origin,
      `POST ${SIGNIN} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(json(GUESS))}\r\n\r\n${json(GUESS)}` +
        `GET /\u0001${PASSWORD} HTTP/1.1\r\n\r\n`,
    );
    await app.close();
    const text = log.text();
    // The log really is verbose: every attempt, and a refused request, are in it.
    expect(text).toContain('"outcome":"success"');
    expect(text).toContain('"outcome":"invalid_credentials"');
    expect(text).toContain('"code":"HPE_INVALID_URL"');
    for (const secret of [PASSWORD, GUESS, LONG_GUESS]) expectNotInLog(text, secret);
  });
});

describe('a request Node cannot parse', () => {
  it('gets a 400 JSON answer with Connection: close, and the next request of a keep-alive client works', async () => {
    const app = await testServer();
    apps.push(app);
    const origin = await listen(app);
    const answer = await rawExchange(origin, 'GET /api/\u0000video HTTP/1.1\r\nHost: x\r\n\r\n');
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('\r\nConnection: close');
    expect(head).toContain('\r\nContent-Type: application/json; charset=utf-8');
    expect(JSON.parse(body)).toEqual({
      error: 'bad_request',
      message: 'La solicitud no es válida.',
    });
    // http.request keeps connections alive by default (Node 20): the bad request's socket
    // must not be reused for the next one.
    expect((await rawRequest(origin, '/api/vid\u00e9o')).status).toBe(400);
    expect((await rawRequest(origin, '/api/video')).status).toBe(401);
  });

  it('answers headers that are too large with 431 JSON', async () => {
    const app = await testServer();
    apps.push(app);
    const origin = await listen(app);
    const answer = await rawExchange(
      origin,
      `GET /api/video HTTP/1.1\r\nHost: x\r\nCookie: sid=${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(body).error).toBe('headers_too_large');
  });
});

describe('a failing session store', () => {
  /** Fails like a network store would, with internals in the message. */
  function brokenStore(): SessionStore {
    const fail = async (): Promise<never> => {
      throw new Error(
        'connect ECONNREFUSED redis://admin:hunter2@10.0.0.5:6379 at /srv/app/node_modules/redis/index.js:12:3',
      );
    };
    return { create: fail, get: fail, delete: fail, close: async () => undefined };
  }

  it('answers 500 with a generic message on the video and the signin, and the details stay in the log', async () => {
    const log = logCapture();
    const app = await testServer(
      { LOG_LEVEL: 'error', PASSWORD_HASH: cheapPasswordHash(PASSWORD) },
      { sessions: brokenStore(), logStream: log.stream },
    );
    apps.push(app);
    const video = await app.inject({
      url: '/api/video',
      headers: { cookie: `sid=${app.signCookie('x')}` },
    });
    const login = await signin(app, PASSWORD);
    for (const res of [video, login]) {
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        error: 'internal_error',
        message: 'Ocurrió un error inesperado. Intente nuevamente.',
      });
      expectNoLeak(res.body);
      expect(res.body).not.toContain('hunter2');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(log.text()).toContain('ECONNREFUSED');
    expectNotInLog(log.text(), PASSWORD);
  });

  it('does not hold the address’s signin slot after a failure: the next signin is answered', async () => {
    let broken = true;
    const real = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 10 });
    const store: SessionStore = {
      create: () => (broken ? Promise.reject(new Error('store down')) : real.create()),
      get: (token) => real.get(token),
      delete: (token) => real.delete(token),
      close: () => real.close(),
    };
    const app = await testServer(
      { PASSWORD_HASH: cheapPasswordHash(PASSWORD) },
      { sessions: store },
    );
    apps.push(app);
    expect((await signin(app, PASSWORD)).statusCode).toBe(500);
    broken = false;
    const res = await signin(app, PASSWORD);
    expect(res.statusCode).toBe(200);
    const cookie = sessionCookie(res.headers['set-cookie']);
    const video = await app.inject({ url: '/api/video', headers: { cookie, range: 'bytes=0-1' } });
    expect(video.statusCode).toBe(206);
  });
});
