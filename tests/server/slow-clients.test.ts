/**
 * Slow clients (slow-loris), against an instance and through the proxy (Debian's nginx):
 * headers, a body and an unread answer are cut by the limits, a body never reaches the proxy's
 * disk, and one address cannot hold more than its share of the proxy. The limits are made short
 * here; their defaults are in server/app.ts, scripts/ops/nginx.ts and docs/deploying.md. No
 * timing is asserted: each client dribbles for ten times longer than it is allowed, and the test
 * checks that it was cut before it finished.
 */
import type { FastifyInstance } from 'fastify';
import {
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED } from '../../config/media-layout.js';
import { startProxy, workerPids, type RunningProxy } from '../../scripts/ops/nginx.js';
import { listen, sessionCookie, signin, signinBody, testServer } from './helpers.js';

/** How long an answer through the proxy may take: a hash on a loaded machine, not a budget. */
const ANSWER_MS = 15_000;

let app: FastifyInstance;
let port: number;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slow-'));
  const video = join(dir, 'big.mp4');
  writeFileSync(video, '');
  // Sparse: it takes no disk.
  truncateSync(video, 256 * 1024 * 1024);
  app = await testServer(
    { VIDEO_FILE: video },
    { socketLimits: { headersMs: 1_000, requestMs: 2_000, idleMs: 2_000 } },
  );
  port = Number(new URL(await listen(app)).port);
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Dribbled {
  /** What the server sent before it closed the connection. */
  answer: string;
  /** Whether every byte went out before the close. */
  finished: boolean;
}

/**
 * Sends `head` at once, then `tail` one byte every `everyMs`; resolves when the server closes
 * the connection (or, when it never does, once everything was sent and answered).
 */
function dribble(open: () => Socket, head: string, tail: string, everyMs = 200): Promise<Dribbled> {
  return new Promise((resolve, reject) => {
    const socket = open();
    const chunks: Buffer[] = [];
    let sent = 0;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the server's answer is still a close.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.write(head);
    const timer = setInterval(() => {
      if (sent === tail.length || socket.destroyed) return clearInterval(timer);
      socket.write(tail[sent]!);
      sent += 1;
      // Everything sent: a server that never cut it answers now; close after its answer.
      if (sent === tail.length) socket.end();
    }, everyMs);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer: Buffer.concat(chunks).toString(), finished: sent === tail.length });
    });
  });
}

const plain = () => connect(port, '127.0.0.1');

describe('an instance and slow clients', { timeout: 60_000 }, () => {
  it('cuts a request whose headers trickle in, with the JSON 408', async () => {
    // 100 header bytes at 5 a second take 20 s: the limit is 1 s (Node's own check, every
    // 30 s by default, would let them all in).
    const { answer, finished } = await dribble(
      plain,
      'GET /livez HTTP/1.1\r\nHost: x\r\n',
      `X-Slow: ${'a'.repeat(90)}\r\n\r\n`,
    );
    expect(finished).toBe(false);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"error":"request_timeout"');
  });

  it('cuts a signin whose body trickles in, with the JSON 408, even though each byte comes in time', async () => {
    const body = JSON.stringify({ form: { usuario: 'capacitacion', contraseña: 'x'.repeat(60) } });
    const { answer, finished } = await dribble(
      plain,
      'POST /api/users/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      body,
    );
    expect(finished).toBe(false);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"error":"request_timeout"');
  });

  it('closes a connection whose client stops reading the answer', async () => {
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    const closed = new Promise<void>((resolve) =>
      app.server.once('connection', (socket: Socket) => socket.once('close', () => resolve())),
    );
    const client = plain();
    // 256 MB asked for and never read: the kernel's buffers fill, then nothing moves.
    client.write(`GET /api/video HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n\r\n`);
    client.once('data', () => client.pause());
    await closed;
    client.destroy();
  });
});

describe('the proxy and slow clients', { timeout: 60_000 }, () => {
  let instance: FastifyInstance;
  let proxy: RunningProxy;

  let mediaDir: string;
  const FALLBACK_BYTES = 256 * 1024 * 1024;

  beforeAll(async () => {
    // A flat publish whose fallback MP4 (sparse) is far larger than any socket buffer.
    mediaDir = mkdtempSync(join(tmpdir(), 'slow-media-'));
    writeFileSync(join(mediaDir, PUBLISHED.master), '#EXTM3U\n');
    writeFileSync(join(mediaDir, PUBLISHED.fallback), '');
    truncateSync(join(mediaDir, PUBLISHED.fallback), FALLBACK_BYTES);
    // The instance's whole-request limit is what cuts a slow body through the proxy.
    instance = await testServer(
      { TRUST_PROXY: '127.0.0.1', MEDIA_DIR: mediaDir },
      { socketLimits: { headersMs: 1_000, requestMs: 2_000, idleMs: 60_000 } },
    );
    proxy = await startProxy({
      upstreams: [new URL(await listen(instance)).host],
      mediaDir,
      limits: { headerS: 1, bodyStallS: 1, sendStallS: 1, perAddress: 4 },
      // HSTS on its own answers too.
      production: true,
    });
  });
  afterAll(async () => {
    await proxy?.stop();
    await instance?.close();
    if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
  });

  /** nginx unlinks a body's temporary file at once: its workers' open files show it. */
  const bodyFilesOpen = () =>
    workerPids(proxy.pid).flatMap((pid) =>
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((target) => target.includes('client_body')),
    );
  /** An HTTPS connection to the proxy (HTTP/1.1) from one loopback address. */
  const tls =
    (from = '127.0.0.1') =>
    () =>
      tlsConnect({
        socket: connect({ host: '127.0.0.1', port: proxy.port, localAddress: from }),
        rejectUnauthorized: false,
      });
  const signinHead = (length: number) =>
    'POST /api/users/signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
    `Content-Length: ${length}\r\n\r\n`;

  it('cuts a request whose headers trickle in', async () => {
    const { finished } = await dribble(
      tls(),
      'GET /capacitacion/login HTTP/1.1\r\nHost: localhost\r\n',
      `X-Slow: ${'a'.repeat(90)}\r\n\r\n`,
    );
    expect(finished).toBe(false);
  });

  it('cuts a signin whose body trickles in within the whole-request time, though each byte comes in time', async () => {
    const body = JSON.stringify(signinBody('x'.repeat(60)));
    const { answer, finished } = await dribble(tls(), signinHead(Buffer.byteLength(body)), body);
    expect(finished).toBe(false);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"error":"request_timeout"');
  });

  it('cuts a client that stops reading the video it asked for', async () => {
    // The same signed token under the name the app reads over HTTPS.
    const cookie = sessionCookie((await signin(instance)).headers['set-cookie']).replace(
      /^sid=/,
      '__Host-sid=',
    );
    const socket = tls()();
    let received = 0;
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.write(`GET /api/video HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\n\r\n`);
    socket.once('data', () => socket.pause());
    // Three times the limit without reading; then whatever was sent before the cut, and no more.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    socket.resume();
    await closed;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(FALLBACK_BYTES);
  });

  it('never writes a signin body to disk, even the largest the signin accepts', async () => {
    // 1,000 four-byte characters written as JSON escapes: 12 KB, within the signin's 12 KiB.
    const body = JSON.stringify(signinBody('\u{1F33E}'.repeat(1000))).replace(
      /[\u{10000}-\u{10FFFF}]/gu,
      (pair) => `\\u${pair.charCodeAt(0).toString(16)}\\u${pair.charCodeAt(1).toString(16)}`,
    );
    expect(body.length).toBeGreaterThan(12_000);
    const socket = tls()();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(signinHead(Buffer.byteLength(body)) + body.slice(0, 11_000));
    // What nginx does with the first 11 KB while it waits for the rest.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bodyFilesOpen()).toEqual([]);
    socket.write(body.slice(11_000));
    // Received whole and judged by the app: a wrong password.
    await expect
      .poll(() => Buffer.concat(chunks).toString(), { timeout: ANSWER_MS })
      .toMatch(/^HTTP\/1\.1 401 [^]*"error":"invalid_credentials"/);
    socket.destroy();
  });

  it('refuses a body larger than the signin needs before reading it', async () => {
    const socket = tls()();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Only the headers: the refusal comes from the announced length alone.
    socket.write(signinHead(17 * 1024));
    await expect
      .poll(() => Buffer.concat(chunks).toString(), { timeout: ANSWER_MS })
      .toMatch(/^HTTP\/1\.1 413 [^]*"error":"payload_too_large"/);
    socket.destroy();
    await closed;
    expect(bodyFilesOpen()).toEqual([]);
  });

  it('holds one address to its share of requests in progress; another address is served', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 4; i += 1) {
        const socket = tls()();
        socket.on('error', () => undefined);
        // A body announced and never sent: in progress until the instance's limit.
        socket.write(signinHead(100));
        held.push(socket);
      }
      // nginx counts a request once its headers are read: give it the four first.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const signout =
        'POST /api/users/signout HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
      const refused = await dribble(tls(), signout, '');
      expect(refused.answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(refused.answer).toMatch(/\r\nRetry-After: 2\r\n/);
      expect(refused.answer).toMatch(/\r\nStrict-Transport-Security: max-age=\d+/);
      expect(refused.answer).toContain('"error":"too_many_requests"');
      const other = await dribble(tls('127.0.0.2'), signout, '');
      expect(other.answer).toMatch(/^HTTP\/1\.1 204 /);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
