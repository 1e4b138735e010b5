/**
 * Whether `npm start` must build before serving: the build is missing, was made with other
 * build-time settings (the table's build settings, config/settings.ts), or is older than
 * something it is made from.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_SETTINGS, type Env } from '../../config/settings';

/** Everything `npm run build` reads: a newer file under any of them makes the build stale. */
export const BUILD_INPUTS = [
  'src',
  'machines',
  'config',
  'server',
  'scripts',
  'index.html',
  'vite.config.ts',
  'tsconfig.json',
  'tsconfig.server.json',
  'package-lock.json',
];

/** The server's entry in the build. */
export const SERVER_ENTRY = join('dist-server', 'server', 'index.js');

/** A dotfile in dist/: the server never serves it. */
const STAMP = join('dist', '.build-env.json');

/** Newest modification time under a file or directory (0 when absent). */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** The build settings as this environment sets them (unset stays null: the default). */
const buildEnv = (env: Env) =>
  Object.fromEntries(BUILD_SETTINGS.map((name) => [name, env[name] ?? null]));

/** Why the build in `root` must be made again, or null when it is current. */
export function whyBuild(root: string, env: Env): string | null {
  if (!existsSync(join(root, 'dist', 'index.html'))) return 'dist/index.html is missing';
  if (!existsSync(join(root, SERVER_ENTRY))) return `${SERVER_ENTRY} is missing`;
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return 'the build has no record of its settings';
  let recorded: Record<string, unknown>;
  try {
    recorded = JSON.parse(readFileSync(stamp, 'utf8')) as Record<string, unknown>;
  } catch {
    return 'the build record is unreadable';
  }
  const wanted = buildEnv(env);
  const changed = BUILD_SETTINGS.filter((name) => recorded[name] !== wanted[name]);
  if (changed.length) return `build settings changed: ${changed.join(', ')}`;
  const built = statSync(stamp).mtimeMs;
  const newer = BUILD_INPUTS.find((input) => newest(join(root, input)) > built);
  return newer ? `${newer} changed since the build` : null;
}

/** Written after a build (vite empties dist/ first). */
export function recordBuild(root: string, env: Env): void {
  writeFileSync(join(root, STAMP), `${JSON.stringify(buildEnv(env), null, 2)}\n`);
}
