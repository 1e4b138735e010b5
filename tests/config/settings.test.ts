import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientConfig, settingsTableRows } from '../../config/settings';
import { BUILD_INPUTS, SERVER_ENTRY, recordBuild, whyBuild } from '../../scripts/build/build-check';

const REPO = join(import.meta.dirname, '../..');

/** The rows of docs/configuration.md's settings table, cells trimmed (Prettier pads them). */
function documentedRows(): string[][] {
  const doc = readFileSync(join(REPO, 'docs/configuration.md'), 'utf8');
  const section = doc.split('\n## Settings\n')[1]?.split('\n## ')[0] ?? '';
  const table = section.split('\n').filter((line) => line.startsWith('|'));
  return table.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  );
}

describe('the settings table', () => {
  it('is what docs/configuration.md shows, row for row', () => {
    const expected = settingsTableRows();
    const rendered = expected.map((row) => `| ${row.join(' | ')} |`).join('\n');
    expect(documentedRows(), `docs/configuration.md's table should be:\n${rendered}`).toEqual(
      expected,
    );
  });

  it("gives the client the signin's and the media's URLs, from API_URL unless set", () => {
    expect(clientConfig({})).toMatchObject({
      basePath: '/capacitacion',
      username: 'capacitacion',
      videoUrl: '/api/video',
      captionsUrl: '/api/video/captions.vtt',
      sessionTimeoutMs: 72_000_000,
      chunkTimeoutMs: 120_000,
    });
    const outside = clientConfig({
      API_URL: 'https://api.example.com/',
      CAPTIONS_URL: 'https://cdn.example.net/c.vtt',
    });
    expect(outside).toMatchObject({
      apiUrl: 'https://api.example.com',
      videoUrl: 'https://api.example.com/api/video',
      captionsUrl: 'https://cdn.example.net/c.vtt',
      posterUrl: 'https://api.example.com/api/video/poster.jpg',
    });
  });

  it('stops the build with every problem of the build settings at once', () => {
    expect(() =>
      clientConfig({ BASE_PATH: 'capacitacion', SESSION_TIMEOUT_MS: '0', SHARED_USERNAME: '' }),
    ).toThrow(
      /Invalid configuration:\n- BASE_PATH .*\n- SHARED_USERNAME must not be empty\n- SESSION_TIMEOUT_MS /,
    );
  });
});

describe("the README's scripts table", () => {
  it('names every npm script of package.json, and no other', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const section = readme.split('\n## Scripts\n')[1]?.split('\n## ')[0] ?? '';
    const named = [...section.matchAll(/^\| `npm (?:run )?([\w:-]+)`/gm)].map((match) => match[1]);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(named.sort()).toEqual(Object.keys(pkg.scripts).sort());
  });
});

describe("npm start's rebuild check", () => {
  function builtCopy(): string {
    const root = mkdtempSync(join(tmpdir(), 'build-check-'));
    for (const file of [
      'dist/index.html',
      SERVER_ENTRY,
      'scripts/build/prerender.ts',
      'src/main.tsx',
    ]) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), '');
    }
    const past = new Date(Date.now() - 60_000);
    for (const file of ['scripts/build/prerender.ts', 'src/main.tsx'])
      utimesSync(join(root, file), past, past);
    recordBuild(root, {});
    return root;
  }

  it('names only inputs that exist', () => {
    const missing = BUILD_INPUTS.filter((input) => {
      try {
        readFileSync(join(REPO, input));
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code !== 'EISDIR';
      }
    });
    expect(missing).toEqual([]);
  });

  it('serves the build as it is when nothing changed', () => {
    expect(whyBuild(builtCopy(), {})).toBeNull();
  });

  it('rebuilds after an edit under scripts/, which the build runs', () => {
    const root = builtCopy();
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'scripts/build/prerender.ts'), future, future);
    expect(whyBuild(root, {})).toBe('scripts changed since the build');
  });

  it('rebuilds when a build setting changes, naming it', () => {
    expect(whyBuild(builtCopy(), { BASE_PATH: '/otra' })).toBe('build settings changed: BASE_PATH');
  });

  it('ignores server-only settings, which need no new build', () => {
    expect(whyBuild(builtCopy(), { PORT: '9090', EMPRESA: 'Otra S.A.' })).toBeNull();
  });
});
