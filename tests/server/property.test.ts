/**
 * Generated requests (fast-check) against the signin and the video routes: whatever arrives,
 * the server answers with a 2xx/3xx or a 4xx JSON error, never a 5xx, never internals, never the
 * password, and keeps working afterwards. Reproducible: the seed is printed; rerun one with
 * FC_SEED=<seed> (and FC_RUNS=<n> for a longer run).
 */
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPO,
  SIGNIN,
  USERNAME,
  cheapPasswordHash,
  expectNoLeak,
  logCapture,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

const SEED = Number(process.env.FC_SEED ?? 20261122);
/** Runs per property; each takes a few seconds on a busy 2-core machine. */
const RUNS = Number(process.env.FC_RUNS ?? 1500);
const tried = { signin: 0, video: 0 };
/** How many answers of each status each property saw, to show what the generators reach. */
const statuses: Record<string, Record<number, number>> = { signin: {}, video: {} };
const count = (route: string, status: number) => {
  const seen = statuses[route] as Record<number, number>;
  seen[status] = (seen[status] ?? 0) + 1;
};

/** The configured password: non-ASCII, so that NFC/NFD and escaping are exercised too. */
const PASSWORD = 'Clave-Segura-ñandú-2026';
const nfc = (text: string) => text.normalize('NFC');

/** Every `error` code the server writes (server/errors.ts, routes). */
const ERROR_CODES = new Set([
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'range_not_satisfiable',
  'too_many_requests',
  'headers_too_large',
  'too_many_attempts',
  'invalid_json',
  'invalid_request',
  'invalid_credentials',
]);

/**
 * The messages seen for each error code. They are fixed texts, never built from the request:
 * one or two per code (`invalid_json`: empty or not JSON; `bad_request`: body or address).
 */
const messages = new Map<string, Set<string>>();

/**
 * A 4xx answer: JSON `{ error, message }` (plus `retryAfterS` on a signin 429), nothing else,
 * and one of a code's fixed messages (so nothing of the request is echoed back).
 */
function expectJsonError(res: LightMyRequestResponse, label: string) {
  expect(res.headers['content-type'], label).toBe('application/json; charset=utf-8');
  const body = res.json() as Record<string, unknown>;
  const error = String(body.error);
  const keys = error === 'too_many_attempts' ? ['error', 'message', 'retryAfterS'] : [];
  expect(Object.keys(body).sort(), label).toEqual(keys.length ? keys : ['error', 'message']);
  expect(ERROR_CODES.has(error), `${label}: ${error}`).toBe(true);
  expect(typeof body.message, label).toBe('string');
  // The wait is the one variable part of a message; it is a number the server computed.
  const message = String(body.message).replace(/\d+ segundos/, 'N segundos');
  const seen = messages.get(error) ?? new Set<string>();
  messages.set(error, seen.add(message));
  expect(
    seen.size,
    `${label}: "${error}" has messages ${[...seen].join(' | ')}`,
  ).toBeLessThanOrEqual(2);
}

function expectNoSecrets(text: string, label: string) {
  expectNoLeak(text);
  expect(text.includes(PASSWORD), label).toBe(false);
}

// ---------------------------------------------------------------------------------------------
// Arbitraries shared by both routes

const char = (min: number, max: number) =>
  fc.integer({ min, max }).map((code) => String.fromCharCode(code));
/** What Node lets through in a header value: visible ASCII, space, tab and obs-text. */
const headerValue = fc.string({
  unit: fc.oneof(char(0x20, 0x7e), char(0x80, 0xff), fc.constant('\t')),
  maxLength: 80,
});
const controlChars = fc.string({ unit: char(0, 0x1f), maxLength: 20 });
const loneSurrogates = fc.string({ unit: char(0xd800, 0xdfff), maxLength: 6 });
/** Long strings, most of them past the password limit (1024) and many past the body limits. */
const huge = fc
  .tuple(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }),
    fc.integer({ min: 100, max: 30_000 }),
  )
  .map(([piece, times]) => piece.repeat(times));
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  controlChars,
  loneSurrogates,
  huge,
  fc.constantFrom(
    PASSWORD,
    PASSWORD.normalize('NFD'),
    `${PASSWORD} `,
    PASSWORD.toUpperCase(),
    PASSWORD.slice(0, -1),
    USERNAME,
    '',
    ' ',
    '\u0000',
    '<script>alert(1)</script>',
    "' OR '1'='1",
    '${jndi:ldap://x}',
    '../../../etc/passwd',
  ),
);
const anyValue = fc.oneof(
  { weight: 3, arbitrary: text },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  fc.constantFrom(null, true, false, 0, -1, 2023, 1e308, [], {}),
  fc.array(text, { maxLength: 3 }),
);

// ---------------------------------------------------------------------------------------------
// Signin

/** Keys a careless or hostile client might send; a few are JavaScript's own. */
const oddKey = fc.constantFrom(
  'usuario',
  'contraseña',
  'contrasena',
  'contrasen\u0303a',
  'password',
  'Usuario',
  'usuario ',
  'form',
  'admin',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
);
const usuario = fc.oneof({ weight: 6, arbitrary: fc.constant(USERNAME) }, text, anyValue);
const contraseña = fc.oneof(
  { weight: 2, arbitrary: fc.constant(PASSWORD) },
  { weight: 4, arbitrary: text },
  anyValue,
);
/** Mostly present, sometimes missing. */
const mostly = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary }, fc.constant(undefined));
/** Mostly absent, sometimes present. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, arbitrary);
/** `{ usuario, contraseña }` with pieces missing, wrong types or extra keys. */
const form = fc
  .tuple(
    mostly(usuario),
    mostly(contraseña),
    rarely(fc.dictionary(oddKey, anyValue, { maxKeys: 2 })),
  )
  .map(([u, c, extra]) => {
    const value: Record<string, unknown> = {};
    if (u !== undefined) value.usuario = u;
    if (c !== undefined) value.contraseña = c;
    // Some of these replace `usuario`/`contraseña` by key: near misses.
    for (const [key, v] of Object.entries(extra ?? {})) {
      Object.defineProperty(value, key, { value: v, enumerable: true, writable: true });
    }
    return value;
  });
const nearMiss = fc.oneof(
  { weight: 8, arbitrary: form.map((f) => ({ form: f })) },
  fc.tuple(form, fc.dictionary(oddKey, anyValue, { minKeys: 1, maxKeys: 2 })).map(([f, extra]) => {
    const value: Record<string, unknown> = { form: f };
    for (const [key, v] of Object.entries(extra)) {
      Object.defineProperty(value, key, { value: v, enumerable: true, writable: true });
    }
    return value;
  }),
  form,
  form.map((f) => ({ form: [f] })),
  form.map((f) => ({ form: JSON.stringify(f) })),
  form.map((f) => ({ Form: f })),
  form.map((f) => ({ form: { form: f } })),
);

type Payload = string | Buffer | undefined;
/** JSON text, sometimes cut short or with trailing bytes. */
const jsonText = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(value, fc.oneof({ weight: 6, arbitrary: fc.constant('') }, fc.constant('cut'), text))
    .chain(([v, damage]) => {
      const json = JSON.stringify(v) ?? 'undefined';
      if (damage === '') return fc.constant(json);
      if (damage === 'cut') return fc.nat(json.length).map((at) => json.slice(0, at));
      return fc.constant(json + damage);
    });
const payload: fc.Arbitrary<Payload> = fc.oneof(
  { weight: 12, arbitrary: jsonText(nearMiss) },
  { weight: 2, arbitrary: jsonText(anyValue) },
  text,
  fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(undefined),
  contraseña.map(
    (c) =>
      `--x\r\nContent-Disposition: form-data; name="contraseña"\r\n\r\n${String(c)}\r\n--x--\r\n`,
  ),
  contraseña.map((c) => `form[usuario]=${USERNAME}&form[contrase%C3%B1a]=${String(c)}`),
);
const contentType = fc.option(
  fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'Application/JSON',
        'application/json;charset=UTF-8',
      ),
    },
    fc.constantFrom(
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset="utf-8"; boundary=x',
      'application/json, text/plain',
      'application/vnd.api+json',
      'application/json-patch+json',
      'text/plain',
      'text/plain; charset=utf-8',
      'text/json',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/octet-stream',
      '*/*',
      '',
      ';',
    ),
    headerValue.map((v) => `application/json; ${v}`),
    headerValue,
  ),
  { nil: undefined, freq: 6 },
);
/** Headers a client controls; the ones that frame the request are left to the injector. */
const headerName = fc.constantFrom(
  'accept',
  'accept-encoding',
  'accept-language',
  'content-encoding',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
  'x-real-ip',
  'origin',
  'referer',
  'cookie',
  'authorization',
  'user-agent',
  'x-http-method-override',
  'range',
  'if-none-match',
  'x-requested-with',
);
const headers = fc.dictionary(
  headerName,
  fc.oneof(headerValue, fc.constantFrom('gzip', 'br', 'deflate', 'identity', '127.0.0.1', 'https')),
  { maxKeys: 4 },
);
const signinRequest = fc.record({
  method: fc.oneof(
    { weight: 12, arbitrary: fc.constant('POST' as const) },
    fc.constantFrom('GET' as const, 'PUT' as const, 'DELETE' as const, 'PATCH' as const),
  ),
  query: fc.option(headerValue.map(encodeURIComponent), { nil: undefined, freq: 8 }),
  payload,
  contentType,
  headers,
  /** Most requests come from an address of their own; some share one and meet the limiter. */
  sharedAddress: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
});
type SigninRequest = typeof signinRequest extends fc.Arbitrary<infer T> ? T : never;

/** True when `payload` is exactly a signin with the right username and password. */
function isRightSignin(payload: Payload): boolean {
  if (payload === undefined) return false;
  try {
    const body = JSON.parse(payload.toString()) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const { form: f, ...rest } = body as Record<string, unknown>;
    if (Object.keys(rest).length || typeof f !== 'object' || f === null) return false;
    const { usuario: u, contraseña: c, ...extra } = f as Record<string, unknown>;
    return (
      !Object.keys(extra).length &&
      u === USERNAME &&
      typeof c === 'string' &&
      nfc(c) === nfc(PASSWORD)
    );
  } catch {
    return false;
  }
}

/** A password as pino would print it inside a JSON line. */
const asLogged = (value: string) => JSON.stringify(value).slice(1, -1);

describe('generated signin requests', () => {
  let app: FastifyInstance;
  const log = logCapture();
  let address = 0;

  beforeAll(async () => {
    app = await testServer(
      {
        PASSWORD_HASH: cheapPasswordHash(PASSWORD),
        LOG_LEVEL: 'info',
        // One address in four is shared and meets the failure limiter early (429s); the
        // per-minute cap is raised so that the other requests are not all refused.
        SIGNIN_FREE_FAILURES: '1',
        SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000',
      },
      { logStream: log.stream },
    );
  });
  afterAll(() => app.close());

  async function send(request: SigninRequest) {
    const headers: Record<string, string> = { ...request.headers };
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    address += 1;
    const remoteAddress = request.sharedAddress
      ? '203.0.113.9'
      : `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
    return app.inject({
      method: request.method,
      url: request.query === undefined ? SIGNIN : `${SIGNIN}?${request.query}`,
      payload: request.payload,
      headers,
      remoteAddress,
    });
  }

  it('never answers 5xx, always a JSON error for a 4xx, 200 only for the right password, and leaks nothing', async () => {
    const property = fc.asyncProperty(signinRequest, async (request) => {
      tried.signin += 1;
      const before = log.lines.length;
      const res = await send(request);
      count('signin', res.statusCode);
      const label = `${request.method} ${res.statusCode} ${res.body.slice(0, 120)}`;
      expect(res.statusCode, label).toBeLessThan(500);
      expect([200, 400, 401, 404, 413, 415, 429], label).toContain(res.statusCode);
      expectNoSecrets(res.body, label);
      if (res.statusCode === 200) {
        expect(isRightSignin(request.payload), label).toBe(true);
        expect(res.json()).toEqual({ empresa: 'Agro Demo S.A.', nombres: 'Visitante Demo' });
        expect(res.headers['set-cookie']?.[0]).toMatch(/^sid=/);
      } else {
        expectJsonError(res, label);
        expect(res.headers['set-cookie'], label).toBeUndefined();
      }
      if (res.statusCode === 429) expect(res.headers['retry-after'], label).toMatch(/^\d+$/);
      // The log lines of this request (written by the end of the next tick).
      await new Promise((resolve) => setImmediate(resolve));
      const logged = log.lines.slice(before).join('');
      expect(logged.includes(PASSWORD) || logged.includes(asLogged(PASSWORD)), label).toBe(false);
      const sent = request.payload?.toString() ?? '';
      const guess = /"contraseña":"((?:[^"\\]|\\.){12,})"/.exec(sent)?.[1];
      if (guess) expect(logged.includes(guess), `a guess reached the log: ${guess}`).toBe(false);
    });
    await fc.assert(property, { seed: SEED, numRuns: RUNS });
  }, 120_000);

  it('still signs the visitor in afterwards, and the log never holds the password', async () => {
    const res = await app.inject({
      method: 'POST',
      url: SIGNIN,
      payload: { form: { usuario: USERNAME, contraseña: PASSWORD } },
      remoteAddress: '198.51.100.250',
    });
    expect(res.statusCode).toBe(200);
    expect(log.text()).not.toContain(PASSWORD);
    expect(log.text()).toContain('"outcome":"success"');
  });
});

// ---------------------------------------------------------------------------------------------
// Video

/** A small stand-in for the video (the sample's first 100 KB), so whole-file answers are cheap. */
const SIZE = 100_000;
const VIDEO = readFileSync(join(REPO, 'media/sample.mp4')).subarray(0, SIZE);
/** Placeholders, replaced at run time by the live ETag and Last-Modified of the file. */
const ETAG = '<etag>';
const LAST_MODIFIED = '<last-modified>';

const position = fc.oneof(
  fc.nat(SIZE + 100),
  fc.constantFrom(0, 1, SIZE - 1, SIZE, SIZE + 1),
  fc.bigInt({ min: 0n, max: 10n ** 40n }),
);
const singleRange = fc.oneof(
  fc.tuple(position, position).map(([a, b]) => `${a}-${b}`),
  position.map((a) => `${a}-`),
  position.map((n) => `-${n}`),
  fc.tuple(fc.integer({ min: -1e9, max: -1 }), fc.integer()).map(([a, b]) => `${a}-${b}`),
  fc.constantFrom('-', '--1', '1--2', '0x10-0x20', '1.5-2.5', '1e3-2e3', ' 0 - 1 ', '-0', '0-0'),
);
const range = fc.oneof(
  { weight: 5, arbitrary: singleRange.map((spec) => `bytes=${spec}`) },
  fc
    .tuple(fc.array(singleRange, { minLength: 2, maxLength: 6 }), fc.constantFrom(',', ', ', ' ,'))
    .map(([specs, sep]) => `bytes=${specs.join(sep)}`),
  fc.constantFrom('bytes=', 'bytes', 'BYTES=0-1', ' bytes=0-1', 'bits=0-1', 'bytes=0-1;x', 'none'),
  singleRange.map((spec) => `items=${spec}`),
  headerValue.map((v) => `bytes=${v}`),
  headerValue,
);
const validator = fc.oneof(
  fc.constantFrom(ETAG, `"${ETAG}"`, `W/${ETAG}`, '*', `${ETAG}, "x"`, `"x", ${ETAG}`),
  fc.constantFrom(LAST_MODIFIED, 'Thu, 01 Jan 1970 00:00:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT'),
  headerValue,
);
type CookieKind =
  | { kind: 'none' }
  | { kind: 'valid' }
  | { kind: 'mutated'; at: number; by: string }
  | { kind: 'garbage'; header: string }
  | { kind: 'mixed'; garbage: string; validFirst: boolean };
const base64Char = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/'.split(''),
);
const cookie: fc.Arbitrary<CookieKind> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'valid' as const }) },
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('mutated' as const), at: fc.nat(200), by: base64Char }),
  fc.record({
    kind: fc.constant('garbage' as const),
    header: fc.oneof(
      headerValue,
      headerValue.map((v) => `sid=${v}`),
      headerValue.map((v) => `__Host-sid=${v}`),
      fc.constantFrom('sid', 'sid=', 'sid=.', '=', ';;;', 'sid=%', 'sid=%00', 'sid="x"'),
      fc.string({ maxLength: 4000 }).map((v) => `sid=${encodeURIComponent(v)}`),
    ),
  }),
  fc.record({
    kind: fc.constant('mixed' as const),
    garbage: headerValue.map((v) => `sid=${encodeURIComponent(v)}`),
    validFirst: fc.boolean(),
  }),
);
const videoRequest = fc.record({
  method: fc.oneof(
    { weight: 4, arbitrary: fc.constant('GET' as const) },
    fc.constant('HEAD' as const),
  ),
  path: fc.oneof(
    { weight: 6, arbitrary: fc.constant('/api/video') },
    fc.constantFrom('/api/video/captions.vtt', '/api/video/poster.jpg', '/api/video?x=1'),
  ),
  cookie,
  range: mostly(range),
  ifNoneMatch: rarely(validator),
  ifRange: rarely(validator),
  ifMatch: rarely(validator),
  ifModifiedSince: rarely(validator),
  extra: headers,
});
type VideoRequest = typeof videoRequest extends fc.Arbitrary<infer T> ? T : never;

describe('generated video requests', () => {
  let dir: string;
  let app: FastifyInstance;
  let valid: string;
  let etag: string;
  let lastModified: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'video-'));
    writeFileSync(join(dir, 'video.mp4'), VIDEO);
    app = await testServer({
      VIDEO_FILE: join(dir, 'video.mp4'),
      PASSWORD_HASH: cheapPasswordHash(PASSWORD),
    });
    valid = sessionCookie((await signin(app, PASSWORD)).headers['set-cookie']);
    const probe = await app.inject({
      method: 'HEAD',
      url: '/api/video',
      headers: { cookie: valid },
    });
    etag = String(probe.headers.etag);
    lastModified = String(probe.headers['last-modified']);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function cookieHeader(c: CookieKind): string | undefined {
    switch (c.kind) {
      case 'none':
        return undefined;
      case 'valid':
        return valid;
      case 'garbage':
        return c.header;
      case 'mixed':
        return c.validFirst ? `${valid}; ${c.garbage}` : `${c.garbage}; ${valid}`;
      case 'mutated': {
        const [name, encoded] = valid.split('=') as [string, string];
        const value = decodeURIComponent(encoded);
        const at = c.at % value.length;
        const original = value[at];
        const by = original === c.by ? (c.by === 'A' ? 'B' : 'A') : c.by;
        if (original === '.') return `${name}=${encodeURIComponent(value)}x`;
        return `${name}=${encodeURIComponent(value.slice(0, at) + by + value.slice(at + 1))}`;
      }
    }
  }

  const live = (v: string | undefined) =>
    v?.replaceAll(ETAG, etag.replace(/^W\//, '')).replaceAll(LAST_MODIFIED, lastModified);

  async function send(request: VideoRequest) {
    const headers: Record<string, string> = { ...request.extra };
    delete headers.cookie;
    const c = cookieHeader(request.cookie);
    if (c !== undefined) headers.cookie = c;
    const set = (name: string, value: string | undefined) => {
      if (value !== undefined) headers[name] = value;
    };
    set('range', request.range);
    set('if-none-match', live(request.ifNoneMatch));
    set('if-range', live(request.ifRange));
    set('if-match', live(request.ifMatch));
    set('if-modified-since', live(request.ifModifiedSince));
    return app.inject({ method: request.method, url: request.path, headers });
  }

  /** The RFC 9110 answer for a plain `bytes=a-b` / `bytes=a-` on the video, when unambiguous. */
  function expectedRange(request: VideoRequest): [number, number] | 'unsatisfiable' | null {
    if (request.path !== '/api/video' || request.cookie.kind !== 'valid') return null;
    const conditional = [
      request.ifNoneMatch,
      request.ifRange,
      request.ifMatch,
      request.ifModifiedSince,
    ];
    if (conditional.some((header) => header !== undefined)) return null;
    if (request.range === undefined || request.extra['if-none-match'] !== undefined) return null;
    const match = /^bytes=(\d{1,9})-(\d{0,9})$/.exec(request.range);
    if (!match) return null;
    const start = Number(match[1]);
    const end = match[2] === '' ? SIZE - 1 : Number(match[2]);
    if (start > end) return null;
    if (start >= SIZE) return 'unsatisfiable';
    return [start, Math.min(end, SIZE - 1)];
  }

  it('never answers 5xx; refuses without a live session; serves exactly the bytes asked for', async () => {
    const property = fc.asyncProperty(videoRequest, async (request) => {
      tried.video += 1;
      const res = await send(request);
      count('video', res.statusCode);
      const label = `${request.method} ${request.path} ${JSON.stringify(request)} → ${res.statusCode}`;
      expect(res.statusCode, label).toBeLessThan(500);
      const body = res.rawPayload;
      if (request.cookie.kind === 'none' || request.cookie.kind === 'mutated') {
        expect(res.statusCode, label).toBe(401);
      }
      if (request.cookie.kind === 'valid') expect(res.statusCode, label).not.toBe(401);
      if (res.statusCode >= 400) {
        expect([401, 412, 416], label).toContain(res.statusCode);
        expect(res.headers['content-range'] ?? '', label).toMatch(
          res.statusCode !== 416
            ? /^$/
            : request.path.startsWith('/api/video/')
              ? /^bytes \*\/\d+$/
              : new RegExp(`^bytes \\*/${SIZE}$`),
        );
        if (request.method === 'GET') {
          expectJsonError(res, label);
          expectNoSecrets(res.body, label);
        } else expect(body, label).toHaveLength(0);
        return;
      }
      expect([200, 206, 304], label).toContain(res.statusCode);
      expect(request.cookie.kind, label).not.toBe('garbage');
      const expected = expectedRange(request);
      if (expected === 'unsatisfiable') throw new Error(`expected 416: ${label}`);
      if (expected) {
        expect(res.statusCode, label).toBe(206);
        expect(res.headers['content-range'], label).toBe(
          `bytes ${expected[0]}-${expected[1]}/${SIZE}`,
        );
      }
      if (res.statusCode === 304 || request.method === 'HEAD') {
        expect(body, label).toHaveLength(0);
        return;
      }
      if (request.path.startsWith('/api/video/')) return;
      if (res.statusCode === 200) {
        expect(body.equals(VIDEO), label).toBe(true);
        return;
      }
      const [, start, end, total] = (
        /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(res.headers['content-range'])) ?? []
      ).map(Number) as [number, number, number, number];
      expect(total, label).toBe(SIZE);
      expect(start <= end && end < SIZE, label).toBe(true);
      expect(res.headers['content-length'], label).toBe(String(end - start + 1));
      expect(body.equals(VIDEO.subarray(start, end + 1)), label).toBe(true);
    });
    await fc.assert(property, { seed: SEED, numRuns: RUNS });
  }, 120_000);

  it('still answers a normal Range request afterwards', async () => {
    const res = await app.inject({
      url: '/api/video',
      headers: { cookie: valid, range: 'bytes=0-1' },
    });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.equals(VIDEO.subarray(0, 2))).toBe(true);
  });
});

afterAll(() => {
  console.log(
    `property tests (seed ${SEED}): ${tried.signin} signin and ${tried.video} video requests generated, ${tried.signin + tried.video} in all; statuses ${JSON.stringify(statuses)}`,
  );
});
