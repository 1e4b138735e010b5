/**
 * A doc or a comment that names a file sends a newcomer to it: the file must exist. Checks every
 * file git knows (tracked, or new and not ignored) for paths under the project's folders
 * (`src/boot/boot.ts`, `docs/`) and for bare source names (`first-press.ts`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';

const FOLDERS = ['src', 'server', 'scripts', 'machines', 'config', 'e2e', 'tests', 'docs'];
/** Where docs and comments are written; data files (the lockfile, media) name no source. */
const TEXT = /\.(ts|tsx|js|mjs|cjs|css|md|html|ya?ml|sh)$/;
/** A path from a project folder, not part of a longer path or a URL (…/src/controller/). */
const FOLDER_PATH = new RegExp(`(?<![\\w./$@~-])((?:${FOLDERS.join('|')})/[\\w./*{}$-]*)`, 'g');
/**
 * A bare file name of our own sources. Not .js or .json: those are mostly built files and
 * answers (`sw.js`, `res.json`), which no folder holds.
 */
const SOURCE_NAME = /(?<![\w./$@~*-])([A-Za-z][\w-]*\.(?:tsx?|mjs|css))(?![\w/-])/g;
/** What an import names without its extension. */
const MODULE_EXTENSIONS = ['', '.ts', '.tsx', '.js', '.mjs'];

function projectFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
  });
  // Listed but deleted in the working tree: not there to name anything. This file's examples
  // name missing files on purpose.
  return listed
    .split('\n')
    .filter(
      (file) => file !== '' && existsSync(file) && file !== 'tests/tooling/named-paths.test.ts',
    );
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Every named path or source name that does not exist, as `file:line: name`. */
function missingNames(files: string[], read: (file: string) => string): string[] {
  const names = new Set(files.map((file) => basename(file)));
  const missing: string[] = [];
  for (const file of files.filter((name) => TEXT.test(name))) {
    const text = read(file);
    for (const match of text.matchAll(FOLDER_PATH)) {
      const path = match[1]!.replace(/\.+$/, '');
      // A glob or a template (`e2e/offline-*.spec.ts`, `src/**/*.{ts,tsx}`, `${dir}`): no one file.
      if (/[*{}$]/.test(path)) continue;
      if (!MODULE_EXTENSIONS.some((extension) => existsSync(path + extension)))
        missing.push(`${file}:${lineOf(text, match.index)}: ${path}`);
    }
    for (const match of text.matchAll(SOURCE_NAME))
      if (!names.has(match[1]!)) missing.push(`${file}:${lineOf(text, match.index)}: ${match[1]}`);
  }
  return missing;
}

describe('files named in docs and comments', () => {
  it('exist, whether named by their path or by their name alone', () => {
    expect(missingNames(projectFiles(), (file) => readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('a path or a name that is gone is reported with where it is named', () => {
    const files = ['docs/a.md', 'src/b.css', 'src/styles.css'];
    const text: Record<string, string> = {
      'docs/a.md': 'See `src/styles.css`, `src/gone.ts` and `e2e/*.spec.ts`.\nAlso docs/.',
      'src/b.css': '/* Matches Player.tsx; styles.css is here. */',
      'src/styles.css': '',
    };
    expect(missingNames(files, (file) => text[file]!)).toEqual([
      'docs/a.md:1: src/gone.ts',
      'src/b.css:1: Player.tsx',
    ]);
  });
});
