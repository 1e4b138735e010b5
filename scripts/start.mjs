// `npm start`: installs when node_modules is missing, builds when the build is missing, stale
// or made with other build-time settings, then runs the server in the foreground.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

/** What the client build bakes in (scripts/client-config.ts); a change needs a new build. */
const BUILD_VARS = [
  'BASE_PATH',
  'SHARED_USERNAME',
  'API_URL',
  'VIDEO_URL',
  'CAPTIONS_URL',
  'SESSION_TIMEOUT_MS',
  'SIGNIN_TIMEOUT_MS',
  'CHUNK_TIMEOUT_MS',
  'WEB_VITALS_URL',
];
/** A dotfile: the server never serves it. */
const STAMP = join('dist', '.build-env.json');
const SOURCES = [
  'src',
  'server',
  'machines',
  'public',
  'index.html',
  'vite.config.ts',
  'package-lock.json',
];

/** The child in the foreground (install, build, then the server); signals go to it. */
let current = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (current && current.exitCode === null) current.kill(signal);
    else process.exit(1);
  });
}

function run(command, args) {
  return new Promise((resolvePromise) => {
    current = spawn(command, args, { stdio: 'inherit' });
    current.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

async function npm(args) {
  // Under `npm start`, npm_execpath is the npm that started us: same version, no PATH lookup.
  const execPath = process.env.npm_execpath;
  const [command, fullArgs] = execPath?.endsWith('.js')
    ? [process.execPath, [execPath, ...args]]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', args];
  console.log(`> npm ${args.join(' ')}`);
  const code = await run(command, fullArgs);
  if (code !== 0) {
    console.error(`npm ${args.join(' ')} failed`);
    process.exit(code);
  }
}

/** Newest modification time under a file or directory (0 when absent). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function whyBuild(buildEnv) {
  if (!existsSync(join('dist', 'index.html'))) return 'dist/index.html is missing';
  if (!existsSync(join('dist-server', 'index.js'))) return 'dist-server/index.js is missing';
  if (!existsSync(STAMP)) return 'the build has no record of its settings';
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'the build record is unreadable';
  }
  const changed = BUILD_VARS.filter((name) => recorded[name] !== buildEnv[name]);
  if (changed.length) return `build settings changed: ${changed.join(', ')}`;
  const stampTime = statSync(STAMP).mtimeMs;
  if (SOURCES.some((source) => newest(source) > stampTime))
    return 'sources changed since the build';
  return null;
}

if (!existsSync('node_modules')) await npm(['ci']);

const buildEnv = Object.fromEntries(BUILD_VARS.map((name) => [name, process.env[name] ?? null]));
const reason = whyBuild(buildEnv);
if (reason) {
  console.log(`Building (${reason})…`);
  await npm(['run', 'build']);
  // Written after the build: vite empties dist/ first.
  writeFileSync(STAMP, `${JSON.stringify(buildEnv, null, 2)}\n`);
}

process.exit(await run(process.execPath, [join('dist-server', 'index.js')]));
