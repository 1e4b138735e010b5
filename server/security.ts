import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from './config.js';

/**
 * The CSP the built app runs under. Vite's production build has no inline script or style
 * (React sets styles through the DOM, which style-src does not govern), so 'self' suffices.
 * `upgrade-insecure-requests` is left out: over plain HTTP on a LAN it would break the site.
 */
export function cspDirectives(config: ServerConfig): Record<string, string[]> {
  const { connect, media, img } = config.outsideOrigins;
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
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
