import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { WORKER_FILE } from '../config/paths.js';
import type { ServerConfig } from './config.js';

/**
 * The CSP sources of the inline elements the build put into index.html: the login's CSS
 * (`<style>`, scripts/build/inline-css.ts) and the boot script (`<script>`, scripts/build/prerender.ts).
 * Exactly those bytes may run or apply, nothing else inline. Read once at start: a new build
 * means a restart. Without a build there are none.
 */
function inlineHashes(distDir: string): { styles: string[]; scripts: string[] } {
  let html: string;
  try {
    html = readFileSync(join(distDir, 'index.html'), 'utf8');
  } catch {
    return { styles: [], scripts: [] };
  }
  const hashes = (pattern: RegExp) => [
    ...new Set(
      [...html.matchAll(pattern)].map(
        ([, text = '']) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`,
      ),
    ),
  ];
  // Only attribute-less elements: those with a src are files, allowed by 'self'.
  return {
    styles: hashes(/<style>([\s\S]*?)<\/style>/g),
    scripts: hashes(/<script>([\s\S]*?)<\/script>/g),
  };
}

/**
 * The CSP the built app runs under: its inline script and style are allowed by hash (React sets
 * styles through the DOM, which style-src does not govern); no 'unsafe-inline'.
 * `upgrade-insecure-requests` is left out: over plain HTTP on a LAN it would break the site.
 */
function cspDirectives(
  config: ServerConfig,
  inline = inlineHashes(config.distDir),
): Record<string, string[]> {
  const { connect, media, img } = config.outsideOrigins;
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", ...inline.scripts],
    styleSrc: ["'self'", ...inline.styles],
    // blob: is the page's own: the Media Source that hls.js feeds the <video>, and the stored
    // copy's files read from the phone's storage (src/offline/copy-source.ts).
    imgSrc: ["'self'", 'data:', 'blob:', ...img],
    mediaSrc: ["'self'", 'blob:', ...media],
    connectSrc: ["'self'", 'blob:', ...connect],
    fontSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
    formAction: ["'self'"],
  };
}

/** The header as helmet writes it: `default-src 'self';script-src …`. */
const cspHeader = (directives: Record<string, string[]>) =>
  Object.entries(directives)
    .map(
      ([name, values]) =>
        `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`,
    )
    .join(';');

/**
 * The CSP for index.html itself, from the hashes of the file as it is now: a build made while
 * the server runs (or after it started without one) must not have its boot script blocked,
 * which would leave the page without its app. Recomputed only when the file changes.
 */
export function pageCsp(config: ServerConfig): () => Promise<string> {
  const indexFile = join(config.distDir, 'index.html');
  let cached: { mtimeMs: number; size: number; header: string } | undefined;
  return async () => {
    const { mtimeMs, size } = await stat(indexFile);
    if (cached?.mtimeMs !== mtimeMs || cached.size !== size)
      cached = { mtimeMs, size, header: cspHeader(cspDirectives(config)) };
    return cached.header;
  };
}

const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=()';

/**
 * What every answer but a page carries (the proxy's files too, scripts/ops/nginx.ts): it may load
 * nothing and be framed nowhere, should it be opened as a document. The page's other headers
 * (its CSP, opener, features and helmet's legacy switches) are read by documents and
 * workers only, and were most of a segment's headers, ahead of the first frame on a slow link
 * (docs/benchmarks.md, "A first frame of fewer bytes").
 */
export const FILE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  // object-src is default-src's already; said as the design lists it for every answer.
  'content-security-policy':
    "default-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
} as const;
/** Helmet's headers that a file does not need (Permissions-Policy is put on pages only). */
const PAGE_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];
/** A 304 may have no type, hence the names too. */
const isPage = (path: string, type: unknown) =>
  String(type ?? '').startsWith('text/html') ||
  path.endsWith('.html') ||
  path.endsWith(`/${WORKER_FILE}`);

export async function registerSecurityHeaders(app: FastifyInstance, config: ServerConfig) {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config) },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Browsers ignore HSTS over HTTP; in development it would pin localhost to HTTPS.
    strictTransportSecurity: config.production
      ? { maxAge: 63_072_000, includeSubDomains: true }
      : false,
    xFrameOptions: { action: 'deny' },
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (isPage(request.url.split('?')[0]!, reply.getHeader('content-type')))
      reply.header('permissions-policy', PERMISSIONS_POLICY);
    else {
      for (const name of PAGE_ONLY) reply.removeHeader(name);
      reply.headers(FILE_HEADERS);
    }
    return payload;
  });
}
