/**
 * The real built server (dist-server/) on a free loopback port, for the browser tests
 * (e2e/global-setup.ts), the load test (scripts/test-support/load.ts) and the benchmark (scripts/bench/bench.ts);
 * and the one client that signs in over HTTP, and `signinBrowser`, a browser that keeps its
 * cookies, for those and the server tests.
 */
import { SERVER_ENTRY } from '../build/build-check';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { dirname } from 'node:path';
import { freePort } from '../ops/nginx';
import type { VideoKey } from '../../machines/session';

export interface RunningServer {
  origin: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function build(): void {
  const result = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', timeout: 5 * 60_000 });
  if (result.status !== 0) throw new Error('npm run build failed');
}

export function buildIfMissing(): void {
  if (!existsSync('dist/index.html') || !existsSync(SERVER_ENTRY)) build();
}

/**
 * Starts the server with `env` over the current environment and resolves once it answers HTTP.
 * Its log goes to `logFile` if given (the bench: under a flood it writes thousands of lines a
 * second, and reading them here would load the event loop that times the requests); otherwise
 * only its errors are shown.
 */
export async function startServer(
  env: Record<string, string>,
  /** `port`: the one a stopped server had (a restart the browser's page must not notice). */
  options: { logFile?: string; port?: number } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  let log: number | 'ignore' = 'ignore';
  if (options.logFile) {
    mkdirSync(dirname(options.logFile), { recursive: true });
    log = openSync(options.logFile, 'w');
  }
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', log, log === 'ignore' ? 'inherit' : log],
  });
  if (typeof log === 'number') closeSync(log);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 20_000;
  while (!(await send(`${origin}/`).catch(() => null))) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error('the server did not answer within 20 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { origin, process: child, stop };
}

/** A process's resident memory, in bytes (Linux). */
export function residentBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? Number.NaN) * 1024;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Bytes of the body as it came (not decompressed). */
  bytes: number;
}

/**
 * node:http, so that nothing decompresses, rewrites headers or keeps cookies for us. No answer
 * within `timeoutMs` (10 s unless told; 0: no deadline) is an error.
 */
export function send(
  url: string,
  {
    body,
    timeoutMs = 10_000,
    ...options
  }: RequestOptions & { body?: string; timeoutMs?: number } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const all = Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        resolve({ status, headers: res.headers, body: all.toString(), bytes: all.length });
      });
      res.on('error', reject);
    });
    if (timeoutMs)
      req.setTimeout(timeoutMs, () =>
        req.destroy(new Error(`${url} took more than ${timeoutMs / 1000} s`)),
      );
    req.on('error', reject);
    req.end(body);
  });
}

export const SIGNIN_PATH = '/api/users/signin';

/** The body the login screen posts. */
export const signinBody = (username: string, password: string) =>
  JSON.stringify({ form: { usuario: username, contraseña: password } });

export interface Signin extends Pick<RequestOptions, 'agent' | 'localAddress'> {
  origin: string;
  username: string;
  password: string;
  /** What a browser sends back (`name=value; …`), as `signinBrowser` keeps it. */
  cookie?: string;
  /**
   * No answer within this is an error: send's 10 s unless told; 0 none (the crowd test); the
   * bench's crowd: the app's wait.
   */
  timeoutMs?: number;
}

/** One signin, whatever its answer (the load test counts 401 and 429 too). */
export function signIn(signin: Signin) {
  const { origin, username, password, agent, localAddress, cookie, timeoutMs } = signin;
  return send(`${origin}${SIGNIN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: signinBody(username, password),
    // From another loopback address (127.0.0.x), to keep per-address limits apart.
    ...{ localAddress, agent, timeoutMs },
  });
}

/** A signin that must succeed: the session cookie (`name=value; …`) and who the visitor is. */
export async function signedIn(signin: Signin) {
  const answer = await signIn(signin);
  if (answer.status !== 200) throw new Error(`signin answered ${answer.status}`);
  const cookie = (answer.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
  if (!cookie) throw new Error('signin set no cookie');
  // videoKey: an encrypted publish's key, which the page stores with the session (auth-machine.ts).
  type Answer = { empresa: string; nombres: string; videoKey?: VideoKey };
  const { empresa, nombres, videoKey } = JSON.parse(answer.body) as Answer;
  return { cookie, empresa, nombres, videoKey };
}

type BrowserOptions = Omit<Signin, 'origin' | 'username' | 'password' | 'cookie'>;
/** A browser's presses: the cookies the server sets (the device cookie) go back with the next. */
export function signinBrowser(username: string, options: BrowserOptions = {}) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const press = async (origin: string, password: string) => {
    const answer = await signIn({ ...options, origin, username, password, cookie: cookie() });
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [name = '', value = ''] = line.split(';', 1)[0]!.split(/=(.*)/s);
      jar.set(name, value);
    }
    return answer;
  };
  // Named `__Host-dev` over HTTPS (server/device-cookie.ts).
  return { press, cookie, hasDevice: () => jar.has('dev') || jar.has('__Host-dev') };
}
