/**
 * The generated paths as a JSON file: written by `npm run test:paths` (and before the app and
 * browser levels run), read by those levels so that all three replay the very same paths.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allPlainPaths, type PlainPath } from './model';

export const PATHS_FILE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../reports/paths/auth-paths.json',
);

export function writePathsFile(): PlainPath[] {
  const paths = allPlainPaths();
  mkdirSync(dirname(PATHS_FILE), { recursive: true });
  writeFileSync(PATHS_FILE, `${JSON.stringify(paths, null, 2)}\n`);
  return paths;
}

export function readPathsFile(): PlainPath[] {
  try {
    return JSON.parse(readFileSync(PATHS_FILE, 'utf8')) as PlainPath[];
  } catch {
    throw new Error(`${PATHS_FILE} is missing or unreadable: run \`npm run test:paths\` first.`);
  }
}
