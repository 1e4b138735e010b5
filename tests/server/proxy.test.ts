/**
 * The proxy for real: Debian's nginx (scripts/ops/nginx.ts) over HTTPS in front of two instances on
 * one redis-server, with a published clip in MEDIA_DIR. The instances run in this process (so
 * that their metrics and logs can be read); the browser test (e2e/proxy.spec.ts) runs built ones.
 */
import type { FastifyInstance } from 'fastify';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_FILE, PUBLISHED, segmentName, type Manifest } from '../../config/media-layout.js';
import { startProxy, type RunningProxy } from '../../scripts/ops/nginx.js';
import { startRedis, type RedisServer } from '../../scripts/test-support/redis-server.js';
import { publishTestClip } from '../../scripts/test-support/test-clip.js';
import { buildServer } from '../../server/app.js';
import { createMetrics, type Metrics } from '../../server/metrics.js';
import { setEncrypted } from './encryption.js';
import { DEMO_PASSWORD, logCapture, signinBody, SIGNIN, SIGNOUT, testConfig } from './helpers.js';

/** The proxy trusts one session cookie's answer this long (PROXY_AUTH_CACHE_S). */
const CACHE_S = 2;

interface Instance {
  app: FastifyInstance;
  metrics: Metrics;
  log: ReturnType<typeof logCapture>;
  address: string;
}

let redis: RedisServer;
let proxy: RunningProxy;
let dir: string;
let rung: string;
let published: string;
let manifest: Manifest;
const instances: Instance[] = [];

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const metrics = createMetrics();
  const log = logCapture();
  const app = await buildServer(testConfig({ LOG_LEVEL: 'info', ...env }), {
    metrics,
    logStream: log.stream,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, metrics, log, address: `127.0.0.1:${port}` };
}

beforeAll(async () => {
  [redis, { dir, manifest }] = await Promise.all([startRedis(), publishTestClip(7)]);
  rung = manifest.rungs.at(-1)!.dir;
  // The publish's own folder (its version) inside MEDIA_DIR.
  published = join(dir, manifest.version);
  // A publish made before encryption, as far as the gate goes; one test encrypts it.
  setEncrypted(dir, published, false);
  const env = {
    REDIS_URL: redis.url,
    MEDIA_DIR: dir,
    TRUST_PROXY: '127.0.0.1',
    SESSION_SECRET: 'proxy-test-secret-0123456789-abcdefghijklmnop',
    SIGNIN_FREE_FAILURES: '1',
    SIGNIN_BACKOFF_BASE_MS: '60000',
  };
  instances.push(await startInstance(env), await startInstance(env));
  proxy = await startProxy({
    upstreams: instances.map((instance) => instance.address),
    mediaDir: dir,
    authCacheS: CACHE_S,
  });
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await Promise.all(instances.map((instance) => instance.app.close()));
  await redis?.stop();
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** HTTPS with the run's self-signed certificate; the path is sent exactly as given. */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port: proxy.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        rejectUnauthorized: false,
        localAddress: options.from,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Bytes no HTTP client would send, over TLS; the answer parsed. */
function rawAnswer(request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: proxy.port, rejectUnauthorized: false });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Answer['headers'] = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: Buffer.from(rest.join('\r\n\r\n')),
      });
    });
    socket.write(request);
  });
}

const signin = (password = DEMO_PASSWORD, from?: string, headers: Record<string, string> = {}) =>
  send(SIGNIN, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(signinBody(password)),
    from,
  });

async function session(from?: string): Promise<string> {
  const answer = await signin(DEMO_PASSWORD, from);
  expect(answer.status).toBe(200);
  return String(answer.headers['set-cookie']).split(';', 1)[0]!;
}

const segment = (index = 0) => `/api/video/hls/${rung}/${segmentName(index)}`;

/** The sum of a counter over both instances, for the given labels. */
async function counted(name: string, labels: Record<string, string> = {}): Promise<number> {
  let total = 0;
  for (const { metrics } of instances) {
    const metric = (await metrics.registry.getSingleMetric(name)?.get()) ?? { values: [] };
    for (const value of metric.values)
      if (Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted))
        total += value.value;
  }
  return total;
}

// Each test signs in (a real scrypt hash); on a shared, busy machine that alone can take seconds.
describe('the proxy in front of two instances', { timeout: 30_000 }, () => {
  it('signs a visitor in over HTTPS and HTTP/2: the instances see https and set the __Host- cookie', async () => {
    const answer = await signin();
    expect(answer.status).toBe(200);
    expect(String(answer.headers['set-cookie'])).toMatch(/^__Host-sid=.+; Secure/);

    const client = http2Connect(proxy.origin, { rejectUnauthorized: false });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = client.request({ ':path': '/capacitacion/login' });
        stream.on('response', (headers) => resolve(Number(headers[':status'])));
        stream.on('error', reject);
        stream.resume();
      });
      expect(client.alpnProtocol).toBe('h2');
      // No build in these tests: the page's own 503 "not built", from an instance, not nginx.
      expect(status).toBe(503);
    } finally {
      client.close();
    }
  });

  it('serves segments, the fallback MP4 (Range) and the poster itself, byte for byte, with private caching', async () => {
    const cookie = await session();
    const before = await counted('app_requests_total', { kind: 'segment' });
    const videoBefore = await counted('app_requests_total', { kind: 'video' });

    for (const index of [0, 1]) {
      const answer = await send(segment(index), { headers: { cookie } });
      expect(answer.status).toBe(200);
      expect(answer.body.equals(readFileSync(join(published, rung, segmentName(index))))).toBe(
        true,
      );
      expect(answer.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(answer.headers['content-type']).toBe('video/mp4');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    const init = await send(`/api/video/hls/${rung}/init.mp4`, { headers: { cookie } });
    expect(init.body.equals(readFileSync(join(published, rung, 'init.mp4')))).toBe(true);

    const range = await send('/api/video', { headers: { cookie, range: 'bytes=100-199' } });
    expect(range.status).toBe(206);
    expect(range.headers['content-range']).toMatch(/^bytes 100-199\/\d+$/);
    expect(
      range.body.equals(readFileSync(join(published, PUBLISHED.fallback)).subarray(100, 200)),
    ).toBe(true);
    expect(range.headers['cache-control']).toBe('private, no-cache');

    const poster = await send('/api/video/poster.jpg', { headers: { cookie } });
    expect(poster.status).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect(poster.body.equals(readFileSync(join(published, PUBLISHED.poster)))).toBe(true);

    // The playlists still come from an instance (compressed there); the bytes never did.
    expect((await send(`/api/video/hls/${rung}/index.m3u8`, { headers: { cookie } })).status).toBe(
      200,
    );
    expect(await counted('app_requests_total', { kind: 'segment' })).toBe(before);
    expect(await counted('app_requests_total', { kind: 'video' })).toBe(videoBefore);
    expect(await counted('app_requests_total', { kind: 'playlist' })).toBeGreaterThan(0);
  });

  it('asks the app once per session cookie within the cache time, not once per segment', async () => {
    const cookie = await session();
    const asked = await counted('app_requests_total', { kind: 'access' });
    for (const index of [0, 1, 0, 1]) {
      expect((await send(segment(index), { headers: { cookie } })).status).toBe(200);
    }
    expect(await counted('app_requests_total', { kind: 'access' })).toBe(asked + 1);
  });

  it('refuses without a live session with the JSON 401 of the app, and serves nothing outside the published folders', async () => {
    for (const cookie of ['', '__Host-sid=forged', 'sid=whatever']) {
      const answer = await send(segment(0), { headers: { cookie } });
      expect(answer.status, cookie).toBe(401);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ error: 'unauthorized' });
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    const cookie = await session();
    // A symbolic link placed in a rendition's folder, pointing outside it, is not followed.
    writeFileSync(join(dirname(dir), 'secret.txt'), 'not published');
    symlinkSync(join(dirname(dir), 'secret.txt'), join(published, rung, segmentName(900)));
    const linked = await send(segment(900), { headers: { cookie } });
    expect([403, 404]).toContain(linked.status);
    expect(linked.body.toString()).not.toContain('not published');
    for (const path of [
      `/api/video/hls/${rung}/../../secret.txt`,
      `/api/video/hls/${rung}/%2e%2e/%2e%2e/secret.txt`,
      `/api/video/hls/${rung}/..%2f..%2fsecret.txt`,
      '/api/video/hls/../../../etc/passwd',
    ]) {
      const answer = await send(path, { headers: { cookie } });
      expect(answer.body.toString(), path).not.toContain('not published');
      expect(answer.body.toString(), path).not.toContain('root:');
      expect(answer.status, path).not.toBe(200);
    }
  });

  it('keys its access cache by exactly the cookie the app checked: a made-up second __Host-sid gets nothing', async () => {
    const value = (await session()).slice('__Host-sid='.length);
    // nginx's pattern and the app's cookie parser may read one header differently (a space
    // before "=", a repeated name): whatever nginx keys by, the app must have judged.
    const crafted = [
      (madeUp: string) => `__Host-sid =${value}; __Host-sid=${madeUp}`,
      (madeUp: string) => `__Host-sid\t=${value}; __Host-sid=${madeUp}`,
      (madeUp: string) => `a=1;__Host-sid =${value};__Host-sid=${madeUp}`,
      (madeUp: string) => `__Host-sid=${madeUp}; __Host-sid=${value}`,
      (madeUp: string) => `__host-sid=${value}; __Host-sid=${madeUp}`,
      (madeUp: string) => `__Host-sid="${value}"; __Host-sid=${madeUp}`,
    ];
    for (const [index, header] of crafted.entries()) {
      const madeUp = `made-up-${index}-${Date.now()}`;
      await send(segment(0), { headers: { cookie: header(madeUp) } });
      const answer = await send(segment(1), { headers: { cookie: `__Host-sid=${madeUp}` } });
      expect(answer.status, `crafted header ${index}`).toBe(401);
    }
    // The real cookie alone still plays.
    expect((await send(segment(0), { headers: { cookie: `__Host-sid=${value}` } })).status).toBe(
      200,
    );
  });

  it("serves an encrypted publish's init and segments to anyone, public and cacheable, never asking the app; its playlists and key only to a session", async () => {
    const key = setEncrypted(dir, published, true)!;
    try {
      const asked = await counted('app_requests_total', { kind: 'access' });
      const served = await counted('app_requests_total', { kind: 'segment' });
      const lists = await counted('app_requests_total', { kind: 'playlist' });
      const versioned = (name: string) => `/api/video/hls/${manifest.version}/${name}`;
      for (const name of [
        `${rung}/init.mp4`,
        `${rung}/${segmentName(0)}`,
        `${rung}/${segmentName(1)}`,
      ]) {
        const answer = await send(versioned(name));
        expect(answer.status, name).toBe(200);
        expect(answer.body.equals(readFileSync(join(published, name))), name).toBe(true);
        expect(answer.headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
        expect(answer.headers['content-type'], name).toBe('video/mp4');
        expect(answer.headers['x-content-type-options'], name).toBe('nosniff');
      }
      const ranged = await send(versioned(`${rung}/${segmentName(0)}`), {
        headers: { range: 'bytes=10-19' },
      });
      expect(ranged.status).toBe(206);
      // Read from the disk by nginx: no access check, no instance.
      expect(await counted('app_requests_total', { kind: 'access' })).toBe(asked);
      expect(await counted('app_requests_total', { kind: 'segment' })).toBe(served);

      // The playlists go to an instance, which asks for a live session, as for a clear publish.
      const cookie = await session();
      const playlists = [
        versioned(`${rung}/index.m3u8`),
        versioned(PUBLISHED.master),
        `/api/video/hls/${rung}/index.m3u8`,
        `/api/video/hls/${PUBLISHED.master}`,
      ];
      for (const path of playlists) {
        const refused = await send(path, { headers: { 'accept-encoding': 'gzip' } });
        expect(refused.status, path).toBe(401);
        expect(JSON.parse(refused.body.toString()), path).toMatchObject({ error: 'unauthorized' });
        expect(refused.headers['cache-control'], path).toBe('no-store');
        const answer = await send(path, { headers: { cookie, 'accept-encoding': 'gzip' } });
        expect(answer.status, path).toBe(200);
        expect(answer.headers['cache-control'], path).toBe('private, no-cache');
        expect(answer.headers['content-type'], path).toBe('application/vnd.apple.mpegurl');
        expect(answer.headers['content-encoding'], path).toBe('gzip');
      }
      expect(await counted('app_requests_total', { kind: 'playlist' })).toBe(
        lists + 2 * playlists.length,
      );

      // By a rendition's name only, nginx cannot know its folder: the app answers, as publicly.
      const unversioned = await send(segment(1));
      expect(unversioned.status).toBe(200);
      expect(unversioned.body.equals(readFileSync(join(published, rung, segmentName(1))))).toBe(
        true,
      );
      expect(unversioned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(await counted('app_requests_total', { kind: 'segment' })).toBe(served + 1);

      // The key, the MP4 and the poster: a session's only.
      for (const path of [`/api/video/hls/${rung}/${KEY_FILE}`, versioned(`${rung}/${KEY_FILE}`)]) {
        expect((await send(path)).status, path).toBe(401);
        const answer = await send(path, { headers: { cookie } });
        expect(answer.status, path).toBe(200);
        expect(answer.body.equals(key), path).toBe(true);
        expect(answer.headers['cache-control'], path).toBe('private, no-store');
      }
      for (const path of ['/api/video', '/api/video/poster.jpg', versioned(PUBLISHED.fallback)])
        expect((await send(path)).status, path).toBe(401);
      // Nothing else of the folder, and never the keys' folder, by any spelling.
      for (const path of [
        versioned(PUBLISHED.manifest),
        `/_public/api/video/hls/${manifest.version}/${rung}/${segmentName(0)}`,
        `/_app/api/video/hls/${rung}/${segmentName(0)}`,
        `/api/video/hls/${manifest.version}/../../media.keys/${manifest.id}.key`,
      ]) {
        const answer = await send(path);
        expect(answer.status, path).not.toBe(200);
        expect(answer.body.includes(key), path).toBe(false);
      }
    } finally {
      setEncrypted(dir, published, false);
    }
    // Clear again: the same URLs are a session's only.
    for (const path of [
      `/api/video/hls/${manifest.version}/${rung}/${segmentName(0)}`,
      `/api/video/hls/${manifest.version}/${rung}/index.m3u8`,
      segment(0),
    ])
      expect((await send(path)).status, path).toBe(401);
  });

  it("answers its own refusals (400, 401, 404, 405, 413, 416) with the app's JSON shape and the security headers", async () => {
    const cookie = await session();
    const answers: [string, Answer][] = [
      ['401', await send(segment(0))],
      ['404', await send(segment(899), { headers: { cookie } })],
      ['405', await send('/api/video', { method: 'POST', headers: { cookie } })],
      [
        '413',
        await send(SIGNIN, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'x'.repeat(17 * 1024),
        }),
      ],
      ['416', await send('/api/video', { headers: { cookie, range: 'bytes=999999999-' } })],
      ['400', await rawAnswer('GET /capacitacion/login HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n')],
    ];
    for (const [status, answer] of answers) {
      expect(answer.status, status).toBe(Number(status));
      expect(answer.headers['content-type'], status).toBe('application/json; charset=utf-8');
      expect(Object.keys(JSON.parse(answer.body.toString())).sort(), status).toEqual([
        'error',
        'message',
      ]);
      expect(answer.headers['x-content-type-options'], status).toBe('nosniff');
      expect(answer.headers['content-security-policy'], status).toContain("frame-ancestors 'none'");
      expect(answer.headers['x-frame-options'], status).toBe('DENY');
      // A 416 keeps the headers of its file (and says which range exists).
      expect(answer.headers['cache-control'], status).toBe(
        status === '416' ? 'private, no-cache' : 'no-store',
      );
    }
    expect(answers.find(([status]) => status === '416')![1].headers['content-range']).toMatch(
      /^bytes \*\/\d+$/,
    );
  });

  it('keeps the health checks to the instances: through the proxy they are not found', async () => {
    for (const path of ['/livez', '/readyz']) {
      const answer = await send(path);
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.body.toString()), path).toMatchObject({ error: 'not_found' });
      expect((await instances[0]!.app.inject({ url: path })).statusCode, path).toBe(200);
    }
  });

  it('stops the next segment within the cache time after a signout', async () => {
    const cookie = await session();
    // The proxy asks the app here, and trusts its answer for CACHE_S from now.
    const asked = Date.now();
    expect((await send(segment(0), { headers: { cookie } })).status).toBe(200);
    const out = await send(SIGNOUT, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(204);
    // The cache's answer for this cookie expires CACHE_S after `asked`; the bound leaves a
    // busy machine a few seconds (not a timing test: without the expiry it would be forever).
    let status = 200;
    while (status === 200 && Date.now() - asked < (CACHE_S + 5) * 1000) {
      status = (await send(segment(1), { headers: { cookie } })).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(401);
  });

  it('passes the real client address to the signin limiter; a forged X-Forwarded-For changes nothing', async () => {
    const limited = await counted('signins_total', { outcome: 'limited' });
    const wrong = await counted('signins_total', { outcome: 'wrong_password' });
    const spoof = { 'x-forwarded-for': '203.0.113.9' };
    // One free failure, then a minute's wait for 127.0.0.2, whatever address it claims.
    expect((await signin('mal', '127.0.0.2', spoof)).status).toBe(401);
    expect((await signin('mal', '127.0.0.2', { 'x-forwarded-for': '203.0.113.10' })).status).toBe(
      429,
    );
    // Another real address is not slowed.
    expect((await signin(DEMO_PASSWORD, '127.0.0.3', spoof)).status).toBe(200);
    const lines = instances
      .flatMap(({ log }) => log.lines)
      .filter((l) => l.includes('signin attempt'));
    expect(lines.some((line) => line.includes('"address":"127.0.0.2"'))).toBe(true);
    expect(lines.some((line) => line.includes('203.0.113'))).toBe(false);
    expect(await counted('signins_total', { outcome: 'limited' })).toBe(limited + 1);
    expect(await counted('signins_total', { outcome: 'wrong_password' })).toBe(wrong + 1);
  });

  it('answers 503 with Retry-After, never 401, through the proxy while Redis is down', async () => {
    const fresh = await session('127.0.0.4');
    const storeErrors = await counted('store_errors_total');
    const unavailable = await counted('signins_total', { outcome: 'store_unavailable' });
    const versioned = (name: string) => `/api/video/hls/${manifest.version}/${name}`;
    await redis.kill();
    try {
      for (const path of [
        segment(0),
        '/api/video',
        '/api/video/poster.jpg',
        '/api/video/captions.vtt',
        versioned(`${rung}/index.m3u8`),
      ]) {
        const answer = await send(path, { headers: { cookie: fresh } });
        expect(answer.status, path).toBe(503);
        expect(answer.headers['retry-after'], path).toMatch(/^\d+$/);
      }
      // An encrypted publish's segments need no store; its playlists do.
      setEncrypted(dir, published, true);
      try {
        for (const name of [`${rung}/index.m3u8`, PUBLISHED.master])
          expect((await send(versioned(name), { headers: { cookie: fresh } })).status, name).toBe(
            503,
          );
        expect((await send(versioned(`${rung}/${segmentName(0)}`))).status).toBe(200);
      } finally {
        setEncrypted(dir, published, false);
      }
      const refused = await signin(DEMO_PASSWORD, '127.0.0.5');
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(await counted('signins_total', { outcome: 'store_unavailable' })).toBe(
        unavailable + 1,
      );
      expect(await counted('store_errors_total')).toBeGreaterThan(storeErrors);
    } finally {
      await redis.restart();
    }
    for (const { app } of instances)
      await expect.poll(async () => (await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });

  it('keeps serving through the other instance when one is gone, and answers 503 with Retry-After when none is up', async () => {
    const cookie = await session('127.0.0.6');
    const [first, second] = instances;
    await first!.app.close();
    // A signin's body goes on as it comes (not buffered): one refused connection still sends it
    // to the other instance, as nothing of it was sent yet.
    for (const from of ['127.0.0.7', '127.0.0.8'])
      expect((await signin(DEMO_PASSWORD, from)).status).toBe(200);
    for (let i = 0; i < 4; i += 1) {
      expect(
        (await send(`/api/video/hls/${rung}/index.m3u8`, { headers: { cookie } })).status,
      ).toBe(200);
    }
    await second!.app.close();
    const none = await send('/capacitacion/login');
    expect(none.status).toBe(503);
    expect(none.headers['retry-after']).toBe('2');
    const media = await send(segment(2), { headers: { cookie: `${cookie}x` } });
    expect(media.status).toBe(503);
    expect(media.headers['retry-after']).toBe('2');
  });

  it('never puts a password, a token or a cookie into the metrics', async () => {
    const text = (
      await Promise.all(instances.map(({ metrics }) => metrics.registry.metrics()))
    ).join('\n');
    expect(text).toMatch(/signins_total\{outcome="accepted"\} [1-9]/);
    expect(text).toMatch(/sessions_created_total [1-9]/);
    expect(text).toMatch(/sessions_ended_total [1-9]/);
    expect(text).not.toContain(DEMO_PASSWORD);
    expect(text).not.toMatch(/sid=|__Host|127\.0\.0\.\d/);
  });
});
