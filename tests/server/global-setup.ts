/**
 * Vitest globalSetup for the `server` project: the deploy step of docs/production.md
 * (`node scripts/ops/start.mjs --build`) once, before any file runs. stop.test.ts and
 * built-assets.test.ts serve dist/ and dist-server/; with files run side by side, a build started
 * by one of them would empty dist/ under the other.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function setup() {
  const root = resolve(import.meta.dirname, '../..');
  // The environment `npm start` gives it, not Vitest's (NODE_ENV=test, VITEST...).
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !/^VITEST/.test(name)),
  );
  const built = spawnSync(process.execPath, ['scripts/ops/start.mjs', '--build'], {
    cwd: root,
    env: { ...env, NODE_ENV: 'production', npm_config_update_notifier: 'false' },
    stdio: 'inherit',
    timeout: 300_000,
  });
  if (built.status !== 0) throw new Error('node scripts/ops/start.mjs --build failed');
}
