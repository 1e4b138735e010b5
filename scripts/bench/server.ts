/**
 * The real built server for the bench, on a free loopback port, configured as in production
 * (a real password hash and secret) except for the per-address signin limits, which are made
 * generous so that the flood's signins really reach the password hashing.
 *
 * Unlike scripts/test-server.ts, the server's log goes to a file: under the flood it writes
 * thousands of lines a second, and reading them here would load the event loop that times the
 * requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { hashPassword } from '../../server/password';
import { freePort } from '../test-server';

export interface BenchServer {
  origin: string;
  pid: number;
  password: string;
  stop(): Promise<void>;
}

export const SERVER_ENV_NOTE =
  'NODE_ENV=production, own PASSWORD_HASH and SESSION_SECRET, TRUST_PROXY=127.0.0.1, per-address signin limits at their maximum, SIGNIN_MAX_CONCURRENT_HASHES and LOG_LEVEL at their defaults';

async function waitUntilUp(origin: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    const up = await fetch(`${origin}/`, { redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not answer within ${timeoutMs / 1000} s`);
}

export async function startBenchServer(
  logFile: string,
  overrides: Record<string, string> = {},
): Promise<BenchServer> {
  const password = randomBytes(12).toString('base64url');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['dist-server/server/index.js'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PASSWORD_HASH: await hashPassword(password),
      SESSION_SECRET: randomBytes(48).toString('base64'),
      // The flood claims one address per request through this (loopback) proxy.
      TRUST_PROXY: '127.0.0.1',
      SIGNIN_FREE_FAILURES: '20',
      SIGNIN_MAX_FAILURES_PER_HOUR: '100',
      SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000',
      ...overrides,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  try {
    await waitUntilUp(origin, child, 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, pid: child.pid!, password, stop };
}
