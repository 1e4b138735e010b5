import type { FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashPassword, verifyPassword } from '../../server/password.js';
import {
  DEMO_PASSWORD,
  SIGNIN,
  SIGNOUT,
  expectNoLeak,
  fakeClock,
  logCapture,
  sessionCookie,
  signin,
  signinBody,
  testServer,
} from './helpers.js';

// Spies that keep the real implementation, so a test can tell whether a hash was computed.
vi.mock('../../server/password.js', { spy: true });

const apps: FastifyInstance[] = [];
async function server(...args: Parameters<typeof testServer>) {
  const app = await testServer(...args);
  apps.push(app);
  return app;
}
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

const WRONG_BODY = { error: 'invalid_credentials', message: 'Usuario o contraseña incorrectos.' };

describe('POST /api/users/signin', () => {
  it('answers the right password with 200, empresa and nombres', async () => {
    const app = await server({ EMPRESA: 'Cooperativa Sur', NOMBRES: 'Ana Pérez' });
    const res = await signin(app);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ empresa: 'Cooperativa Sur', nombres: 'Ana Pérez' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sets an HttpOnly, SameSite=Strict session cookie on Path=/ that lives as long as the session', async () => {
    const app = await server();
    const res = await signin(app);
    const [cookie, device] = res.headers['set-cookie'] as string[];
    // The device cookie (device-cookie.ts) outlives the session; it holds none.
    expect(device).toMatch(
      /^dev=[A-Za-z0-9_-]{22}\.[^;]+; Max-Age=15552000; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).toMatch(
      /^sid=[A-Za-z0-9_-]{43}\.[^;]+; Max-Age=7200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toMatch(/Expires|Secure|Domain/i);
  });

  it('over HTTPS (behind a trusted proxy) names the cookie __Host-sid and marks it Secure', async () => {
    const app = await server({ TRUST_PROXY: '127.0.0.1' });
    const res = await signin(app, DEMO_PASSWORD, {
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.20' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toEqual([
      expect.stringMatching(
        /^__Host-sid=[^;]+; Max-Age=7200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
      ),
      expect.stringMatching(
        /^__Host-dev=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
      ),
    ]);
  });

  it('ignores X-Forwarded-Proto from a client that is not a trusted proxy', async () => {
    const app = await server({ TRUST_PROXY: '10.0.0.1' });
    const res = await signin(app, DEMO_PASSWORD, {
      remoteAddress: '198.51.100.20',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(res.headers['set-cookie']?.[0]).toMatch(/^sid=/);
  });

  it('issues a new token at every signin and ends the session the browser had before', async () => {
    const app = await server();
    const first = sessionCookie((await signin(app)).headers['set-cookie']);
    const second = await signin(app, DEMO_PASSWORD, { headers: { cookie: first } });
    const next = sessionCookie(second.headers['set-cookie']);
    expect(next).not.toBe(first);
    expect((await app.inject({ url: '/api/video', headers: { cookie: first } })).statusCode).toBe(
      401,
    );
    expect(
      (await app.inject({ url: '/api/video', headers: { cookie: next, range: 'bytes=0-1' } }))
        .statusCode,
    ).toBe(206);
  });

  it('answers a wrong password with 401 and a generic message, and sets no cookie', async () => {
    const app = await server();
    const res = await signin(app, 'silobolsa2024');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(WRONG_BODY);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('answers a wrong username exactly like a wrong password', async () => {
    const app = await server();
    const res = await app.inject({
      method: 'POST',
      url: SIGNIN,
      payload: signinBody(DEMO_PASSWORD, 'admin'),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(WRONG_BODY);
  });

  it('checks the username against SHARED_USERNAME', async () => {
    const app = await server({ SHARED_USERNAME: 'clientes' });
    const inject = (usuario: string) =>
      app.inject({ method: 'POST', url: SIGNIN, payload: signinBody(DEMO_PASSWORD, usuario) });
    expect((await inject('capacitacion')).statusCode).toBe(401);
    expect((await inject('clientes')).statusCode).toBe(200);
  });

  describe('with a non-ASCII password configured', () => {
    const PASSWORD = 'contraseña ñ 😀';
    let env: Record<string, string>;
    beforeAll(async () => {
      env = { PASSWORD_HASH: await hashPassword(PASSWORD) };
    });

    it('logs in with it, and refuses the demo password', async () => {
      const app = await server(env);
      expect((await signin(app, PASSWORD)).statusCode).toBe(200);
      expect((await signin(app, DEMO_PASSWORD, { remoteAddress: '10.1.1.1' })).statusCode).toBe(
        401,
      );
    });
  });
});

describe('bad signin input: always a 4xx JSON answer, never a 5xx', () => {
  type Case = {
    title: string;
    payload?: string;
    contentType?: string;
    status: number;
    error: string;
  };
  const json = (value: unknown) => JSON.stringify(value);
  const cases: Case[] = [
    {
      title: 'malformed JSON',
      payload: '{"form": {"usuario": ',
      status: 400,
      error: 'invalid_json',
    },
    { title: 'an empty JSON body', payload: '', status: 400, error: 'invalid_json' },
    { title: 'no body and no content type', status: 400, error: 'invalid_request' },
    {
      title: 'a form-encoded body',
      payload: 'usuario=capacitacion&contrase%C3%B1a=x',
      contentType: 'application/x-www-form-urlencoded',
      status: 415,
      error: 'unsupported_media_type',
    },
    {
      title: 'a text/plain body',
      payload: json(signinBody(DEMO_PASSWORD)),
      contentType: 'text/plain',
      status: 415,
      error: 'unsupported_media_type',
    },
    {
      title: 'a body over the size limit (64 KB)',
      payload: json(signinBody('x'.repeat(64 * 1024))),
      status: 413,
      error: 'payload_too_large',
    },
    {
      title: 'a 10 KB password',
      payload: json(signinBody('x'.repeat(10 * 1024))),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'a password of 1025 characters',
      payload: json(signinBody('x'.repeat(1025))),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'an empty password',
      payload: json(signinBody('')),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'a number as password (never coerced to a string)',
      payload: json({ form: { usuario: 'capacitacion', contraseña: 2023 } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'null as password',
      payload: json({ form: { usuario: 'capacitacion', contraseña: null } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'an array as password',
      payload: json({ form: { usuario: 'capacitacion', contraseña: ['silobolsa2023'] } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'an object as password',
      payload: json({ form: { usuario: 'capacitacion', contraseña: { $ne: '' } } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'a missing password',
      payload: json({ form: { usuario: 'capacitacion' } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'a missing username',
      payload: json({ form: { contraseña: DEMO_PASSWORD } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'a missing form',
      payload: json({ usuario: 'capacitacion', contraseña: DEMO_PASSWORD }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'an extra field inside the form (refused, not stripped)',
      payload: json({ form: { ...signinBody(DEMO_PASSWORD).form, admin: true } }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'an extra field beside the form',
      payload: json({ ...signinBody(DEMO_PASSWORD), remember: true }),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'an array body',
      payload: json([signinBody(DEMO_PASSWORD)]),
      status: 400,
      error: 'invalid_request',
    },
    {
      title: 'a bare string body',
      payload: json('silobolsa2023'),
      status: 400,
      error: 'invalid_request',
    },
    { title: 'a JSON null body', payload: 'null', status: 400, error: 'invalid_request' },
    {
      title: 'a __proto__ key',
      payload: '{"form":{"usuario":"capacitacion","contraseña":"x"},"__proto__":{"admin":true}}',
      status: 400,
      error: 'invalid_json',
    },
    {
      title: 'a constructor.prototype key',
      payload:
        '{"form":{"usuario":"capacitacion","contraseña":"x"},"constructor":{"prototype":{"a":1}}}',
      status: 400,
      error: 'invalid_json',
    },
  ];

  let app: FastifyInstance;
  beforeAll(async () => {
    app = await testServer({ SIGNIN_MAX_REQUESTS_PER_MINUTE: '1000' });
    return () => app.close();
  });

  it.each(cases)('$title → $status $error', async ({ payload, contentType, status, error }) => {
    const headers: Record<string, string> = {};
    if (payload !== undefined) headers['content-type'] = contentType ?? 'application/json';
    const res = await app.inject({ method: 'POST', url: SIGNIN, payload, headers });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(res.json()).sort()).toEqual(['error', 'message']);
    expect(res.json().error).toBe(error);
    expect(res.headers['set-cookie']).toBeUndefined();
    expectNoLeak(res.body);
  });

  it('still serves a normal signin after all of them', async () => {
    expect((await signin(app)).statusCode).toBe(200);
  });
});

describe('signin rate limiting', () => {
  const LIMITED = { SIGNIN_FREE_FAILURES: '2', SIGNIN_BACKOFF_BASE_MS: '30000' };

  it('answers 429 with Retry-After after the free failures, before hashing anything', async () => {
    const clock = fakeClock();
    const app = await server(LIMITED, { now: clock.now });
    const attacker = { remoteAddress: '203.0.113.66' };
    vi.mocked(verifyPassword).mockClear();
    expect((await signin(app, 'guess-1', attacker)).statusCode).toBe(401);
    expect((await signin(app, 'guess-2', attacker)).statusCode).toBe(401);
    // The spy sees the route's hashing: two guesses, two hashes.
    expect(verifyPassword).toHaveBeenCalledTimes(2);
    vi.mocked(verifyPassword).mockClear();
    const limited = await signin(app, 'guess-3', attacker);
    expect(verifyPassword).toHaveBeenCalledTimes(0);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('30');
    expect(limited.json()).toMatchObject({ error: 'too_many_attempts', retryAfterS: 30 });
    expectNoLeak(limited.body);
  });

  it('refuses even the right password from the limited address until the wait is over', async () => {
    const clock = fakeClock();
    const app = await server(LIMITED, { now: clock.now });
    const attacker = { remoteAddress: '203.0.113.66' };
    await signin(app, 'guess-1', attacker);
    await signin(app, 'guess-2', attacker);
    expect((await signin(app, DEMO_PASSWORD, attacker)).statusCode).toBe(429);
    clock.advance(29_000);
    expect((await signin(app, DEMO_PASSWORD, attacker)).headers['retry-after']).toBe('1');
    clock.advance(1_000);
    expect((await signin(app, DEMO_PASSWORD, attacker)).statusCode).toBe(200);
  });

  it('lets a visitor from another address log in at once while one address is limited', async () => {
    const clock = fakeClock();
    const app = await server(LIMITED, { now: clock.now });
    const attacker = { remoteAddress: '203.0.113.66' };
    await signin(app, 'guess-1', attacker);
    await signin(app, 'guess-2', attacker);
    expect((await signin(app, 'guess-3', attacker)).statusCode).toBe(429);
    const visitor = await signin(app, DEMO_PASSWORD, { remoteAddress: '198.51.100.7' });
    expect(visitor.statusCode).toBe(200);
  });

  it('treats a whole IPv6 /64 as one address', async () => {
    const clock = fakeClock();
    const app = await server(LIMITED, { now: clock.now });
    await signin(app, 'guess-1', { remoteAddress: '2001:db8:1:2::1' });
    await signin(app, 'guess-2', { remoteAddress: '2001:db8:1:2::2' });
    expect((await signin(app, 'guess-3', { remoteAddress: '2001:db8:1:2::3' })).statusCode).toBe(
      429,
    );
  });

  it('queues signins for the hash slot and computes one hash at a time by default', async () => {
    const actual = await vi.importActual<typeof import('../../server/password.js')>(
      '../../server/password.js',
    );
    let running = 0;
    let most = 0;
    vi.mocked(verifyPassword).mockImplementation(async (...args) => {
      running += 1;
      most = Math.max(most, running);
      try {
        return await actual.verifyPassword(...args);
      } finally {
        running -= 1;
      }
    });
    try {
      const app = await server();
      const results = await Promise.all(
        ['10.0.1.1', '10.0.1.2', '10.0.1.3', '10.0.1.4'].map((remoteAddress) =>
          signin(app, remoteAddress === '10.0.1.4' ? DEMO_PASSWORD : 'guess', { remoteAddress }),
        ),
      );
      expect(results.map((res) => res.statusCode)).toEqual([401, 401, 401, 200]);
      expect(most).toBe(1);
    } finally {
      vi.mocked(verifyPassword).mockImplementation(actual.verifyPassword);
    }
  });

  it('answers "busy, retry in 1 s" beyond the hashes running and waiting', async () => {
    const app = await server({ SIGNIN_MAX_CONCURRENT_HASHES: '2', SIGNIN_MAX_WAITING_HASHES: '0' });
    const results = await Promise.all(
      ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((remoteAddress) =>
        signin(app, 'guess', { remoteAddress }),
      ),
    );
    expect(results.map((res) => res.statusCode).sort()).toEqual([401, 401, 429]);
    const busy = results.find((res) => res.statusCode === 429);
    expect(busy?.headers['retry-after']).toBe('1');
  });

  it('caps all requests to /api/users/* per address, bad bodies included, with Retry-After', async () => {
    const app = await server({ SIGNIN_MAX_REQUESTS_PER_MINUTE: '3' });
    const garbage = () =>
      app.inject({
        method: 'POST',
        url: SIGNIN,
        payload: '{',
        headers: { 'content-type': 'application/json' },
      });
    for (let i = 0; i < 3; i++) expect((await garbage()).statusCode).toBe(400);
    const res = await garbage();
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json()).toEqual({
      error: 'too_many_requests',
      message: 'Demasiadas solicitudes. Intente más tarde.',
    });
  });
});

describe('POST /api/users/signout', () => {
  it('ends the session on the server: the same cookie no longer opens the video', async () => {
    const app = await server();
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    const out = await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie } });
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    expect(out.headers['set-cookie']).toMatch(
      /^sid=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970/,
    );
    expect((await app.inject({ url: '/api/video', headers: { cookie } })).statusCode).toBe(401);
  });

  it('answers 204 without a session, and whatever body the client sends', async () => {
    const app = await server();
    for (const [payload, type] of [
      [undefined, undefined],
      ['', 'application/json'],
      ['{}', 'application/json'],
      ['bye', 'text/plain'],
    ] as const) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const res = await app.inject({ method: 'POST', url: SIGNOUT, payload, headers });
      expect(res.statusCode).toBe(204);
    }
  });

  it('refuses a large body with 413 rather than reading it', async () => {
    const app = await server();
    const res = await app.inject({
      method: 'POST',
      url: SIGNOUT,
      payload: 'x'.repeat(4096),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(413);
  });
});

describe('signin logging', () => {
  it('logs every attempt with its outcome and address, and never the password', async () => {
    const clock = fakeClock();
    const log = logCapture();
    const SECRET_GUESS = 'my-secret-guess-Zq9';
    const app = await server(
      { LOG_LEVEL: 'info', SIGNIN_FREE_FAILURES: '1', SIGNIN_BACKOFF_BASE_MS: '60000' },
      { now: clock.now, logStream: log.stream },
    );
    await signin(app, DEMO_PASSWORD, { remoteAddress: '198.51.100.7' });
    await signin(app, SECRET_GUESS, { remoteAddress: '203.0.113.66' });
    await signin(app, SECRET_GUESS, { remoteAddress: '203.0.113.66' });
    await app.inject({
      method: 'POST',
      url: SIGNIN,
      payload: `{"form":{"usuario":"capacitacion","contraseña":"${SECRET_GUESS}"`,
      headers: { 'content-type': 'application/json' },
    });
    await app.inject({
      method: 'POST',
      url: SIGNIN,
      payload: { form: { usuario: 'capacitacion', contraseña: SECRET_GUESS, extra: 1 } },
    });
    const entries = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const attempts = entries.filter((entry) => entry.msg === 'signin attempt');
    expect(attempts.map((entry) => entry.signin)).toEqual([
      { outcome: 'success', address: '198.51.100.7', device: false },
      { outcome: 'invalid_credentials', address: '203.0.113.66', device: false },
      { outcome: 'rate_limited', reason: 'backoff', address: '203.0.113.66', device: false },
    ]);
    const refused = entries.filter((entry) => entry.msg === 'request refused');
    expect(refused).toHaveLength(2);
    expect(log.text()).not.toContain(SECRET_GUESS);
    expect(log.text()).not.toContain(DEMO_PASSWORD);
  });

  it('censors a password even where code would log a request body by mistake', async () => {
    const log = logCapture();
    const app = await server({ LOG_LEVEL: 'info' }, { logStream: log.stream });
    const body = signinBody('careless-Zq9');
    app.log.info({ body }, 'mistake 1');
    app.log.info({ req: { body } }, 'mistake 2');
    app.log.info(body, 'mistake 3');
    app.log.info({ attempt: body.form }, 'mistake 4');
    expect(log.lines).toHaveLength(4);
    expect(log.text()).not.toContain('careless-Zq9');
  });
});
