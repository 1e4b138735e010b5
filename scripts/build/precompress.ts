/**
 * Writes a brotli and a gzip copy beside every text file of the build, once, at build time, so
 * that the server sends compressed bytes without compressing on every request.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

const TEXT = /\.(html|js|mjs|css|svg|json|txt|vtt|webmanifest|xml)$/;
/** Below this, the headers cost more than compression saves. */
const MIN_BYTES = 512;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

function precompress(outDir: string): void {
  for (const path of files(outDir)) {
    if (!TEXT.test(path)) continue;
    const body = readFileSync(path);
    if (body.length < MIN_BYTES) continue;
    const br = brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
    const gz = gzipSync(body, { level: 9 });
    // A compressed copy that is not smaller is worse than none.
    if (br.length < body.length) writeFileSync(`${path}.br`, br);
    if (gz.length < body.length) writeFileSync(`${path}.gz`, gz);
  }
}

export function precompressPlugin(): Plugin {
  let outDir = 'dist';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    // After every other plugin's files are written: the service worker (vite-plugin-pwa) is
    // written in its own closeBundle, and must be served compressed like the rest.
    closeBundle: {
      sequential: true,
      order: 'post',
      handler() {
        precompress(outDir);
      },
    },
  };
}
