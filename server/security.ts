import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from './config.js';

/**
 * The CSP sources of the `<style>` elements the build put into index.html (the login's CSS,
 * inlined by scripts/inline-css.ts): exactly those bytes may apply, nothing else inline.
 * Read once at start: a new build means a restart. Without a build there are none.
 */
export function inlineStyleHashes(distDir: string): string[] {
  let html: string;
  try {
    html = readFileSync(join(distDir, 'index.html'), 'utf8');
  } catch {
    return [];
  }
  const hashes = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    ([, css = '']) => `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`,
  );
  return [...new Set(hashes)];
}

/**
 * The CSP the built app runs under. Vite's production build has no inline script, and its one
 * inline style (the login's) is allowed by hash (React sets styles through the DOM, which
 * style-src does not govern); no 'unsafe-inline'.
 * `upgrade-insecure-requests` is left out: over plain HTTP on a LAN it would break the site.
 */
export function cspDirectives(config: ServerConfig): Record<string, string[]> {
  const { connect, media, img } = config.outsideOrigins;
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", ...inlineStyleHashes(config.distDir)],
    imgSrc: ["'self'", 'data:', ...img],
    mediaSrc: ["'self'", ...media],
    connectSrc: ["'self'", ...connect],
    fontSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
    formAction: ["'self'"],
  };
}

const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=()';

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
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('permissions-policy', PERMISSIONS_POLICY);
  });
}
