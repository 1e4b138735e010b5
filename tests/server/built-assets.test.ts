/**
 * The built site as a browser gets it from the built server (dist/ and dist-server/, built if
 * missing): the build precompresses its text files and the server must send those copies, and
 * hashed assets must be cacheable for a year. Deterministic, so a test rather than a bench figure.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfig } from '../../config/settings.js';
import {
  buildIfMissing,
  send,
  signedIn,
  startServer,
  type RunningServer,
} from '../../scripts/test-support/test-server.js';
import { DEMO_PASSWORD, USERNAME } from './helpers.js';

const DIST = 'dist';
const TEXT = /\.(html|js|mjs|css|svg|vtt|json|txt|webmanifest|xml)$/;
/** The build skips smaller files on purpose (scripts/build/precompress.ts): headers cost more. */
const TINY_BYTES = 512;
const AS_A_BROWSER = { 'accept-encoding': 'br, gzip' };
const { basePath } = clientConfig(process.env);

let server: RunningServer;

beforeAll(async () => {
  buildIfMissing();
  server = await startServer({ NODE_ENV: 'development' });
}, 300_000);

afterAll(() => server?.stop());

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    // Dotfiles (the build stamp) are not served.
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** The build's files, by the URL a visitor uses: index.html is served as the login page. */
function builtFiles() {
  return [...walk(DIST)].map((path) => {
    const rel = relative(DIST, path).split(sep).join('/');
    const url = `${basePath}/${rel === 'index.html' ? 'login' : rel}`;
    return { rel, url, size: statSync(path).size };
  });
}

const encodingOf = (answer: { headers: Record<string, unknown> }) =>
  String(answer.headers['content-encoding'] ?? 'none');

describe('the built site', () => {
  it('sends every text file of the build compressed to a browser that accepts br or gzip', async () => {
    const text = builtFiles().filter((file) => TEXT.test(file.rel) && file.size >= TINY_BYTES);
    expect(text.length).toBeGreaterThan(3);
    const answers = await Promise.all(
      text.map(async ({ rel, url }) => {
        const answer = await send(`${server.origin}${url}`, { headers: AS_A_BROWSER });
        return `${rel}: ${answer.status} ${encodingOf(answer)}`;
      }),
    );
    expect(answers).toEqual(
      text.map(({ rel }) => expect.stringMatching(`^${rel}: 200 (br|gzip)$`)),
    );
  });

  it('sends the captions compressed to a signed-in visitor', async () => {
    const { cookie } = await signedIn({
      origin: server.origin,
      username: USERNAME,
      password: DEMO_PASSWORD,
    });
    const answer = await send(`${server.origin}/api/video/captions.vtt`, {
      headers: { ...AS_A_BROWSER, cookie },
    });
    expect(answer.status).toBe(200);
    expect(encodingOf(answer)).toMatch(/^(br|gzip)$/);
  });

  it('lets a browser keep every hashed asset for a year without asking again', async () => {
    // The .br and .gz copies are the server's to pick, never asked for by name.
    const hashed = builtFiles().filter(
      (file) => file.rel.startsWith('assets/') && !/\.(br|gz)$/.test(file.rel),
    );
    expect(hashed.length).toBeGreaterThan(0);
    const answers = await Promise.all(
      hashed.map(async ({ rel, url }) => {
        const answer = await send(`${server.origin}${url}`, { headers: AS_A_BROWSER });
        return `${rel}: ${answer.status} ${String(answer.headers['cache-control'])}`;
      }),
    );
    expect(answers).toEqual(
      hashed.map(({ rel }) => `${rel}: 200 public, max-age=31536000, immutable`),
    );
  });
});
