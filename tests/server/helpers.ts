import type { FastifyInstance } from 'fastify';
import { randomBytes, scryptSync } from 'node:crypto';
import { connect } from 'node:net';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildServer, type ServerDeps } from '../../server/app.js';
import { DEMO_PASSWORD, loadConfig, type Env, type ServerConfig } from '../../server/config.js';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export { DEMO_PASSWORD };
export const USERNAME = 'capacitacion';
export const SIGNIN = '/api/users/signin';
export const SIGNOUT = '/api/users/signout';

/** A config as the server would read it, quiet, with the repository's sample media. */
export function testConfig(env: Env = {}): ServerConfig {
  return loadConfig({ LOG_LEVEL: 'silent', DIST_DIR: join(REPO, 'no-dist-here'), ...env }, REPO);
}

/** A clock the test moves by hand. */
export function fakeClock(start = Date.UTC(2026, 10, 22, 12)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Collects pino's JSON lines. */
export function logCapture() {
  const lines: string[] = [];
  return {
    lines,
    stream: { write: (line: string) => void lines.push(line) },
    text: () => lines.join(''),
  };
}

export async function testServer(env: Env = {}, deps: ServerDeps = {}) {
  const app = await buildServer(testConfig(env), deps);
  await app.ready();
  return app;
}

/**
 * A real scrypt hash, with the cheapest parameters the config accepts (N=2^14, r=1, p=1):
 * a few milliseconds per check instead of ~150 ms, for tests that hash hundreds of times.
 * The server verifies it with the same code path as the production parameters.
 */
export function cheapPasswordHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(Buffer.from(password.normalize('NFC'), 'utf8'), salt, 32, {
    N: 2 ** 14,
    r: 1,
    p: 1,
  });
  return `scrypt$16384$1$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

export const signinBody = (password: string, usuario = USERNAME) => ({
  form: { usuario, contraseña: password },
});

export async function signin(
  app: FastifyInstance,
  password = DEMO_PASSWORD,
  options: { remoteAddress?: string; headers?: Record<string, string> } = {},
) {
  return app.inject({
    method: 'POST',
    url: SIGNIN,
    payload: signinBody(password),
    remoteAddress: options.remoteAddress,
    headers: options.headers,
  });
}

/** The `name=value` pair of the response's session cookie, ready for a Cookie header. */
export function sessionCookie(setCookie: string | string[] | undefined): string {
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!first) throw new Error('no Set-Cookie in the response');
  return first.split(';', 1)[0] as string;
}

/**
 * What no answer may contain: a stack frame, a path on this machine, a source file name.
 * Checked on every body the tests see through `expectNoLeak`.
 */
const LEAK = /(\bat \S+ \(|node_modules|\/work\/|\/home\/|\/tmp\/|\.ts:\d+|\.js:\d+|Error:)/;
export function expectNoLeak(body: string) {
  if (LEAK.test(body) || body.includes(REPO)) throw new Error(`response leaks internals: ${body}`);
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A plain HTTP request through a real socket: Range, cookies and headers as a browser sends.
 * The path is sent exactly as given; a URL string would be normalized first ("/a/../b" →
 * "/b") and traversal tests would test nothing.
 */
export function rawRequest(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest(
      { hostname, port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolvePromise({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** A stand-in for `vite build` output: index, a hashed asset with a gzip sibling, a dotfile. */
export function fakeDist() {
  const dir = mkdtempSync(join(tmpdir(), 'dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html lang="es"><head><script type="module" src="/capacitacion/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>',
  );
  const js = 'console.log("app");\n'.repeat(200);
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), js);
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js.gz'), gzipSync(js));
  writeFileSync(join(dir, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
  writeFileSync(join(dir, 'sw.js'), 'self.addEventListener("fetch", () => {});\n');
  writeFileSync(join(dir, '.build-env.json'), '{"BASE_PATH":null}\n');
  return dir;
}

/**
 * Writes raw bytes on a plain socket (what an HTTP client library would refuse or rewrite) and
 * resolves with everything the server sent before it closed the connection.
 */
export function exchangeRaw(origin: string, bytes: Buffer | string): Promise<Buffer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.write(bytes);
  });
}
