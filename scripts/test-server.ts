/**
 * Starts the real built server (dist-server/) on a free loopback port, for the browser tests and
 * the benchmark. Resolves once the server has printed its address.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export interface RunningServer {
  origin: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function buildIfMissing(): void {
  if (existsSync('dist/index.html') && existsSync('dist-server/server/index.js')) return;
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist-server/server/index.js'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start in 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`the server exited with code ${code}`)));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(origin)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdout?.resume();
  return {
    origin,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
