// `npm start`: installs when node_modules is missing, builds when the build is missing, stale
// or made with other build-time settings, publishes the sample as adaptive video on the
// defaults, then runs the server in the foreground.
// With `--build` it stops before serving: a deploy step or an image's build (docs/production.md).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
process.chdir(root);

/** The child in the foreground (install, build, then the server); signals go to it. */
let current = null;
/** Aborted by a signal while the sample is being published: its ffmpeg stops, nothing is served. */
const publishing = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (current && current.exitCode === null) current.kill(signal);
    else if (!publishing.signal.aborted) publishing.abort(signal);
    else process.exit(1);
  });
}

function run(command, args, env = process.env) {
  return new Promise((resolvePromise) => {
    current = spawn(command, args, { stdio: 'inherit', env });
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

// With dev packages even under NODE_ENV=production: the build needs them.
if (!existsSync('node_modules')) await npm(['ci', '--include=dev']);

// The build check is TypeScript, shared with the settings table: loaded once packages exist.
const { tsImport } = await import('tsx/esm/api');
const { SERVER_ENTRY, recordBuild, whyBuild } = await tsImport(
  '../build/build-check.ts',
  import.meta.url,
);
const reason = whyBuild(root, process.env);
if (reason) {
  console.log(`Building (${reason})…`);
  await npm(['run', 'build']);
  recordBuild(root, process.env);
}

if (process.argv.includes('--build')) process.exit(0);

// On the defaults, the sample as adaptive video (scripts/ops/sample-publish.ts).
const env = { ...process.env };
const { onSampleDefaults, samplePublish } = await tsImport('./sample-publish.ts', import.meta.url);
if (onSampleDefaults(env)) {
  const dir = await samplePublish(root, { signal: publishing.signal });
  if (publishing.signal.aborted) process.exit(1);
  if (dir) env.MEDIA_DIR = dir;
}
process.exit(await run(process.execPath, [SERVER_ENTRY], env));
