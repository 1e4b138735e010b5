/**
 * `npm test`: everything a fresh machine needs, then every check, then one summary line. The one
 * ordered list of checks: `npm run validate` runs it too, with `--no-install`.
 * Installs npm packages when they are missing or stale, and Debian's Chromium, redis-server, nginx
 * and ffmpeg when they are missing and apt can be used; otherwise it stops at once and says what
 * to install.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { findChromium, findHeadlessShell } from './find-chromium.mjs';
import { findFirefox, findMiniBrowser } from './find-engines.mjs';

const onPath = (name) =>
  spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
/** Installed as Debian sees it (a library, no command to ask). */
const debianHas = (name) =>
  spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' }).stdout ===
  'install ok installed';

const started = Date.now();
const run = (command, args, options = {}) => {
  console.log(`\n▶ ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status === 0;
};
const fail = (message) => {
  console.error(`\n✖ ${message}`);
  process.exit(1);
};

const install = !process.argv.includes('--no-install');

// 1. npm packages: install when missing, or when the lockfile changed since the last install.
const installed = 'node_modules/.package-lock.json';
const stale = () =>
  !existsSync(installed) || statSync('package-lock.json').mtimeMs > statSync(installed).mtimeMs;
if (install && stale()) {
  if (!run('npm', ['ci', '--no-audit', '--no-fund'])) fail('npm ci failed.');
}

// 2. Debian packages the tests run for real (Playwright's own download cannot work here):
// each with the check that proves it is present.
const debianPackages = [
  { name: 'chromium', present: () => Boolean(findChromium()), hint: ' (or set CHROMIUM_PATH)' },
  // The auth paths' Chromium: the same engine, half the CPU (playwright.config.ts).
  { name: 'chromium-headless-shell', present: () => Boolean(findHeadlessShell()), hint: '' },
  {
    name: 'redis-server',
    present: () => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0,
    hint: '',
  },
  {
    name: 'nginx',
    present: () => spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0,
    hint: '',
  },
  {
    name: 'ffmpeg',
    present: () => spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0,
    hint: '',
  },
  // The other engines' browser tests (e2e/engines/): Firefox ESR, and WebKitGTK's MiniBrowser
  // driven by WebKitWebDriver on an Xvfb display, with GStreamer's H.264 and AAC decoders.
  { name: 'firefox-esr', present: () => Boolean(findFirefox()), hint: ' (or set FIREFOX_PATH)' },
  {
    name: 'webkit2gtk-driver',
    present: () => onPath('WebKitWebDriver') && Boolean(findMiniBrowser()),
    hint: '',
  },
  {
    name: 'gstreamer1.0-libav',
    // WebKitGTK decodes H.264 and AAC through it.
    present: () => debianHas('gstreamer1.0-libav'),
    hint: '',
  },
  { name: 'xvfb', present: () => onPath('Xvfb'), hint: '' },
];
const missing = install ? debianPackages.filter((pkg) => !pkg.present()) : [];
if (missing.length) {
  const names = missing.map((pkg) => pkg.name);
  const isRoot = process.getuid?.() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (!isRoot || !hasApt)
    fail(
      `Missing: install with \`sudo apt-get install -y ${names.join(' ')}\`${missing.map((pkg) => pkg.hint).join('')}.`,
    );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (
    !run('apt-get', ['update', '-qq'], { env }) ||
    !run('apt-get', ['install', '-y', '-qq', ...names], { env })
  )
    fail(`Installing ${names.join(', ')} with apt-get failed.`);
  const still = missing.filter((pkg) => !pkg.present()).map((pkg) => pkg.name);
  if (still.length) fail(`${still.join(', ')} still not found after apt-get install.`);
}

// 3. The checks, in the order that fails fastest. The first three only read the tree and each
// keeps one core busy: they run side by side, each one's output printed whole when it ends.
const together = [
  ['typecheck', ['run', 'typecheck']],
  ['lint', ['run', 'lint']],
  ['paths', ['run', 'test:paths', '--silent']],
];
const steps = [
  [
    'unit and app tests',
    [
      'run',
      'test:unit',
      '--',
      '--reporter=default',
      '--reporter=json',
      '--outputFile.json=reports/vitest.json',
    ],
  ],
  ['build', ['run', 'build']],
  ['load', ['run', 'test:load']],
  ['browser tests', ['run', 'test:e2e']],
  [
    'browser tests in Firefox and WebKit',
    [
      'run',
      'test:engines',
      '--',
      '--reporter=default',
      '--reporter=json',
      '--outputFile.json=reports/engines.json',
    ],
  ],
];
// Each stage's time, printed at the end: docs/testing.md keeps what they cost.
const took = [];
/** Runs a stage with its output held back; resolves with whether it passed, and prints it. */
const runHeld = (name, args) =>
  new Promise((resolve) => {
    const stageStarted = Date.now();
    const child = spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => {
      console.log(`\n▶ npm ${args.join(' ')}`);
      process.stdout.write(Buffer.concat(output));
      took.push(`${name} ${Math.round((Date.now() - stageStarted) / 1000)} s`);
      resolve(code === 0);
    });
  });
const passed = await Promise.all(together.map(([name, args]) => runHeld(name, args)));
const failedTogether = together.filter((_, index) => !passed[index]).map(([name]) => name);
if (failedTogether.length) fail(`${failedTogether.join(', ')} failed.`);
for (const [name, args] of steps) {
  const stepStarted = Date.now();
  if (!run('npm', args)) fail(`${name} failed.`);
  took.push(`${name} ${Math.round((Date.now() - stepStarted) / 1000)} s`);
}

// 4. One line that says what ran.
const counts = { passed: 0, failed: 0, skipped: 0 };
for (const file of ['reports/vitest.json', 'reports/engines.json']) {
  const vitest = JSON.parse(readFileSync(file, 'utf8'));
  counts.passed += vitest.numPassedTests;
  counts.failed += vitest.numFailedTests;
  counts.skipped += vitest.numPendingTests + vitest.numTodoTests;
}
if (existsSync('reports/e2e.json')) {
  const { stats } = JSON.parse(readFileSync('reports/e2e.json', 'utf8'));
  counts.passed += stats.expected + stats.flaky;
  counts.failed += stats.unexpected;
  counts.skipped += stats.skipped;
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nStages: ${took.join(', ')} (typecheck, lint and paths side by side).`);
console.log(
  `\nAll checks passed in ${minutes} min (typecheck, lint, paths, unit, app, server, build, load, browser in Chromium, Firefox and WebKit).`,
);
console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(counts.failed ? 1 : 0);
