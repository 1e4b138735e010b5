/**
 * `npm test`: everything a fresh machine needs, then every check, then one summary line.
 * Installs npm packages when they are missing or stale, and Debian's Chromium when it is
 * missing and apt can be used; otherwise it stops at once and says what to install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { findChromium } from './find-chromium.mjs';

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

// 1. npm packages: install when missing, or when the lockfile changed since the last install.
const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync('package-lock.json').mtimeMs > statSync(installed).mtimeMs) {
  if (!run('npm', ['ci', '--no-audit', '--no-fund'])) fail('npm ci failed.');
}

// 2. Chromium and ffmpeg, from Debian: Playwright's own download cannot work here, and the
// video tests publish a generated clip with ffmpeg.
const hasFfmpeg = () => spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0;
for (const [pkg, found, hint] of [
  ['chromium', () => Boolean(findChromium()), ' (or set CHROMIUM_PATH)'],
  ['ffmpeg', hasFfmpeg, ''],
]) {
  if (found()) continue;
  const isRoot = process.getuid?.() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (!isRoot || !hasApt)
    fail(`${pkg} not found: install it with \`sudo apt-get install -y ${pkg}\`${hint}.`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (
    !run('apt-get', ['update', '-qq'], { env }) ||
    !run('apt-get', ['install', '-y', '-qq', pkg], { env })
  )
    fail(`Installing ${pkg} with apt-get failed.`);
  if (!found()) fail(`${pkg} still not found after apt-get install ${pkg}.`);
}

// 3. The checks, in the order that fails fastest.
const steps = [
  ['typecheck', ['run', 'typecheck']],
  ['lint', ['run', 'lint']],
  ['paths', ['run', 'test:paths', '--silent']],
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
];
for (const [name, args] of steps) {
  if (!run('npm', args)) fail(`${name} failed.`);
}

// 4. One line that says what ran.
const counts = { passed: 0, failed: 0, skipped: 0 };
const vitest = JSON.parse(readFileSync('reports/vitest.json', 'utf8'));
counts.passed += vitest.numPassedTests;
counts.failed += vitest.numFailedTests;
counts.skipped += vitest.numPendingTests + vitest.numTodoTests;
if (existsSync('reports/e2e.json')) {
  const { stats } = JSON.parse(readFileSync('reports/e2e.json', 'utf8'));
  counts.passed += stats.expected + stats.flaky;
  counts.failed += stats.unexpected;
  counts.skipped += stats.skipped;
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `\nAll checks passed in ${minutes} min (typecheck, lint, paths, unit, app, server, build, load, browser).`,
);
console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(counts.failed ? 1 : 0);
