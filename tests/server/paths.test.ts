/**
 * Path traversal through a real port, with request targets sent byte for byte (nothing
 * normalises them on the way). The build lives in a temporary directory whose parent holds
 * decoys named like the repository's files; neither the decoys nor the real files of the
 * repository (nor the gated media) may ever come back.
 */
import type { FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, exchangeRaw, expectNoLeak, listen, rawRequest, testServer } from './helpers.js';

/** One decoy per kind of file an attacker would want, each with a unique marker. */
const DECOYS = [
  'package.json',
  '.env',
  '.git/config',
  'server/app.ts',
  'dist-server/server/index.js',
  'media/sample.mp4',
  'secret.txt',
  'etc/passwd',
];
const marker = (file: string) => `OUTSIDE-THE-BUILD:${file}`;
/** Inside the build but a dotfile: treated as absent. */
const BUILD_DOTFILE = 'DOTFILE-INSIDE-THE-BUILD';

/** Distinctive slices of the repository's own files and of the gated media. */
function repoSecrets(): { name: string; bytes: Buffer }[] {
  const slice = (file: string, start: number, length: number) => ({
    name: file,
    bytes: readFileSync(join(REPO, file)).subarray(start, start + length),
  });
  // The server's build is there only after `npm run build`; the rest is in every checkout.
  const built = existsSync(join(REPO, 'dist-server/server/index.js'));
  return [
    slice('package.json', 0, 120),
    slice('server/app.ts', 200, 120),
    slice('server/config.ts', 400, 120),
    slice('.git/config', 0, 40),
    ...(built ? [slice('dist-server/server/index.js', 100, 120)] : []),
    slice('media/sample.mp4', 4096, 256),
    slice('media/sample.es.vtt', 0, 60),
    slice('media/poster.jpg', 2048, 256),
    slice('tsconfig.json', 0, 80),
  ];
}

interface Answer {
  status: number;
  /** The whole response, headers included, as received. */
  raw: Buffer;
}

/**
 * Sends `GET <target> HTTP/1.1` over a plain socket: raw bytes (a NUL, a backslash, an overlong
 * UTF-8 sequence, an absolute URI) that an HTTP client library would refuse or rewrite.
 */
async function rawSocket(origin: string, target: Buffer | string, method = 'GET'): Promise<Answer> {
  const { hostname } = new URL(origin);
  // Not half-closed: @fastify/send drops the answer of a client that shut its side first.
  // `Connection: close` makes the server close once it has answered.
  const raw = await exchangeRaw(
    origin,
    Buffer.concat([
      Buffer.from(`${method} `),
      Buffer.from(target),
      Buffer.from(`\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`),
    ]),
  );
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw.toString('latin1'))?.[1] ?? 0);
  return { status, raw };
}

describe('path traversal through a real port', () => {
  // Made while the tests are collected: the targets below name it.
  const root = mkdtempSync(join(tmpdir(), 'paths-'));
  const dist = join(root, 'dist');
  let app: FastifyInstance;
  let origin: string;
  let secrets: { name: string; bytes: Buffer }[];

  beforeAll(async () => {
    for (const file of DECOYS) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), marker(file));
    }
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>INSIDE-THE-BUILD</title>');
    writeFileSync(join(dist, 'assets', 'app-Ab12Cd34.js'), 'console.log("INSIDE-THE-BUILD");');
    writeFileSync(join(dist, '.build-env.json'), BUILD_DOTFILE);
    writeFileSync(join(dist, 'assets', '.secret'), BUILD_DOTFILE);
    secrets = [
      ...repoSecrets(),
      ...DECOYS.map((file) => ({ name: `decoy ${file}`, bytes: Buffer.from(marker(file)) })),
      { name: 'a dotfile of the build', bytes: Buffer.from(BUILD_DOTFILE) },
    ];
    // The repository is the working directory: the video, captions and poster are its media/.
    app = await testServer({ DIST_DIR: dist });
    origin = await listen(app);
  });
  afterAll(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  function expectNothingOutside(answer: Answer, label: string) {
    expect(answer.status, label).toBeGreaterThanOrEqual(200);
    expect(answer.status, label).toBeLessThan(500);
    for (const secret of secrets) {
      expect(answer.raw.includes(secret.bytes), `${label} returned ${secret.name}`).toBe(false);
    }
    expectNoLeak(answer.raw.toString('latin1'));
  }

  const abs = (path: string) => path.replace(/^\//, '');
  /** Each target is sent with http.request (a raw path) and again over a plain socket. */
  const TARGETS = [
    // Plain and dot-dot
    '/package.json',
    '/server/app.ts',
    '/dist-server/server/index.js',
    '/.env',
    '/.git/config',
    '/capacitacion/.build-env.json',
    '/capacitacion/assets/.secret',
    '/capacitacion/../package.json',
    '/capacitacion/../../package.json',
    '/capacitacion/assets/../../secret.txt',
    '/capacitacion/assets/../.build-env.json',
    '/capacitacion/./../.env',
    // Encoded dots and slashes, once and twice
    '/capacitacion/%2e%2e/package.json',
    '/capacitacion/%2e%2e%2fpackage.json',
    '/capacitacion/%2E%2E%2F%2E%2E%2Fsecret.txt',
    '/capacitacion/.%2e/secret.txt',
    '/capacitacion/%2e./secret.txt',
    '/capacitacion/%252e%252e/package.json',
    '/capacitacion/%252e%252e%252fpackage.json',
    '/capacitacion/assets/..%2f..%2fserver/app.ts',
    '/capacitacion/assets/..%2f..%2fsecret.txt',
    '/capacitacion/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '/capacitacion/%2ebuild-env.json',
    '/capacitacion/assets/%2esecret',
    // Backslashes
    '/capacitacion/..%5c..%5cpackage.json',
    '/capacitacion/..%5csecret.txt',
    '/capacitacion/assets/..\\..\\secret.txt',
    // Double slashes and absolute paths
    '//package.json',
    '//capacitacion/../package.json',
    '/capacitacion//secret.txt',
    '/capacitacion/assets//..//..//secret.txt',
    `/capacitacion/${root}/secret.txt`,
    `/capacitacion//${abs(root)}/secret.txt`,
    `/capacitacion/${encodeURIComponent(join(root, 'secret.txt'))}`,
    `/capacitacion/assets/${encodeURIComponent(join(REPO, 'package.json'))}`,
    `/capacitacion/%2F${abs(REPO)}%2Fpackage.json`,
    `/${abs(REPO)}/package.json`,
    // Null bytes and overlong UTF-8
    '/capacitacion/%00../secret.txt',
    '/capacitacion/index.html%00.js',
    '/capacitacion/assets/app-Ab12Cd34.js%00/../../secret.txt',
    '/capacitacion/%c0%ae%c0%ae/secret.txt',
    '/capacitacion/%c0%ae%c0%ae%c0%afsecret.txt',
    '/capacitacion/%e0%80%ae%e0%80%ae/secret.txt',
    '/capacitacion/%c0%2e%c0%2e/secret.txt',
    '/capacitacion/%uff0e%uff0e/secret.txt',
    '/capacitacion/\u00c0\u00ae\u00c0\u00ae/secret.txt',
    // Query strings and matrix parameters cannot select another file
    '/capacitacion/login?file=../package.json',
    '/capacitacion/login;../../package.json',
    '/capacitacion/assets/app-Ab12Cd34.js?/../../secret.txt',
  ];

  it('never returns a file outside the build, nor a dotfile, through http.request with a raw path', async () => {
    for (const target of TARGETS) {
      const res = await rawRequest(origin, target);
      expectNothingOutside({ status: res.status, raw: res.body }, target);
      // Nothing outside the build: at most the app's own index (a page) or a redirect.
      expect([200, 302, 400, 404], target).toContain(res.status);
      if (res.status === 200) expect(res.body.toString(), target).toContain('INSIDE-THE-BUILD');
    }
  });

  it('never returns a file outside the build over a plain socket, whatever bytes the path holds', async () => {
    const targets: (string | Buffer)[] = [
      ...TARGETS,
      Buffer.from('/capacitacion/\u0000/../../secret.txt', 'latin1'),
      Buffer.from('/capacitacion/assets/app-Ab12Cd34.js\u0000', 'latin1'),
      Buffer.concat([
        Buffer.from('/capacitacion/'),
        Buffer.from([0xc0, 0xae, 0xc0, 0xae]),
        Buffer.from('/secret.txt'),
      ]),
      Buffer.concat([
        Buffer.from('/capacitacion/'),
        Buffer.from([0xe0, 0x80, 0xae]),
        Buffer.from('/secret.txt'),
      ]),
      '/capacitacion/.. /secret.txt',
      '../package.json',
      'package.json',
      `${root}/secret.txt`,
      `http://127.0.0.1/capacitacion/../../secret.txt`,
      `http://127.0.0.1/../package.json`,
      `file://${join(root, 'secret.txt')}`,
      '*',
    ];
    const statuses = new Set<number>();
    for (const target of targets) {
      const answer = await rawSocket(origin, target);
      expectNothingOutside(answer, `socket ${target.toString()}`);
      statuses.add(answer.status);
    }
    // The socket answers came from the server (not empty), and none was a file outside.
    expect([...statuses].every((status) => [200, 302, 400, 404].includes(status))).toBe(true);
  });

  const MEDIA_PATHS = [
    '/media/sample.mp4',
    '/media/sample.es.vtt',
    '/media/poster.jpg',
    '/capacitacion/media/sample.mp4',
    '/capacitacion/../media/sample.mp4',
    '/capacitacion/%2e%2e/%2e%2e/media/sample.mp4',
    `/capacitacion/${encodeURIComponent(join(REPO, 'media/sample.mp4'))}`,
    `/capacitacion//${abs(REPO)}/media/sample.mp4`,
    '/api/video',
    '/api/video/',
    '/api/video/.',
    '/api/video/..',
    '/api/video/%2e%2e',
    '/api/./video',
    '/api//video',
    '/API/VIDEO',
    '/api/Video',
    '/api/video%00',
    '/api/video;x',
    '/api/video?sid=x',
    '/api/video/captions.vtt',
    '/api/video/captions.vtt/..',
    '/api/video/poster.jpg',
    '/api/video/sample.mp4',
    '/api/video/../video',
    '/api/video/%2e%2e/video',
    '/capacitacion/..%2fapi%2fvideo',
    '/capacitacion/api/video',
    '/api/users/../video',
    '/api/users/signin/../../video',
  ];

  it('never serves the video, its captions or its poster without a session, through any path', async () => {
    for (const path of MEDIA_PATHS) {
      for (const method of ['GET', 'HEAD']) {
        const res = await rawRequest(origin, path, { method, headers: { range: 'bytes=0-' } });
        const label = `${method} ${path}`;
        expectNothingOutside({ status: res.status, raw: res.body }, label);
        expect([200, 206], label).not.toContain(res.status);
        expect(res.headers['content-range'], label).toBeUndefined();
        expect(res.headers['content-type'] ?? '', label).not.toMatch(/video|vtt|image/);
      }
    }
  });
});
