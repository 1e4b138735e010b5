/**
 * A private redis-server (Debian's package) for the tests and the bench: its own temporary
 * directory, a Unix socket there and no TCP port (so it never meets a system Redis on 6379 and
 * never races for a port). `persistent` turns the append-only file on (fsync on every write),
 * so that a killed server comes back with its data.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  /** What REDIS_URL takes: the socket's absolute path. */
  url: string;
  /** SIGKILL, as a crash: nothing is flushed beyond what the append-only file already has. */
  kill(): Promise<void>;
  /** Starts it again on the same socket and directory (after kill). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/** Whether the server answers PING on the socket now. */
const pong = (socket: string) =>
  new Promise<boolean>((resolve) => {
    const connection = connect(socket);
    connection.once('error', () => resolve(false));
    connection.once('data', (data) => {
      connection.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    connection.write('PING\r\n');
  });

/** Resolves once the server answers PING on the socket. */
async function waitForPong(socket: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    if (await pong(socket)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Once more past the deadline: a caller that blocked the event loop meanwhile (a synchronous
  // ffmpeg beside the start, tests/server/proxy.test.ts) used up the wait, not redis-server.
  if (child.exitCode === null && (await pong(socket))) return;
  throw new Error(`redis-server did not answer within ${START_TIMEOUT_MS / 1000} s`);
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });

export async function startRedis({ persistent = false } = {}): Promise<RedisServer> {
  if (!redisServerInstalled())
    throw new Error('redis-server not found: install it with `apt-get install -y redis-server`');
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  const socket = join(dir, 'redis.sock');
  const args = [
    ['--port', '0'],
    ['--unixsocket', socket],
    ['--unixsocketperm', '700'],
    ['--dir', dir],
    ['--save', ''],
    ['--appendonly', persistent ? 'yes' : 'no'],
    ['--appendfsync', 'always'],
    ['--maxmemory-policy', 'noeviction'],
  ].flat();
  let child: ChildProcess;
  const start = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPong(socket, child);
  };
  await start();
  const signal = async (name: NodeJS.Signals) => {
    const done = exited(child);
    child.kill(name);
    await done;
  };
  return {
    url: socket,
    kill: () => signal('SIGKILL'),
    restart: start,
    stop: async () => {
      await signal('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
