import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { COPY_DAYS_ATTRIBUTE, PUBLISHED, PAGE_COPY_HEADER } from '../../config/media-layout.js';
import { SCREEN_PATHS } from '../../config/paths.js';
import {
  compressedText,
  fileVersion,
  preferredEncoding,
  sendCompressed,
  type TextVersion,
} from '../compressed-text.js';
import type { ServerConfig } from '../config.js';
import { apiError, errorHandler } from '../errors.js';
import { parseMediaInfo, withMediaInfo } from '../media-info.js';
import { servedVersions } from '../published.js';
import { pageCsp } from '../security.js';
import { emptyTracks, trackFiles, withEmptyTracks } from '../track-files.js';

/** Vite names everything under assets/ by content hash: a new build means new names. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The HTML (and unhashed files) must be revalidated, or visitors keep an old build. */
const REVALIDATE = 'no-cache';

/** Crawlers ask at the origin's root, whatever the base path; the API is not for them. */
const ROBOTS = 'User-agent: *\nDisallow: /api/\n';

/** Far more than a real media.json (a few hundred bytes): a bigger file is not one. */
const MAX_MANIFEST_BYTES = 64 * 1024;

const NOT_BUILT = apiError(
  'site_not_built',
  'El sitio no está compilado: ejecute `npm run build` (o `npm start`).',
);

/**
 * The built app under the base path. The two screens are real routes that answer with
 * index.html; real files come from DIST_DIR; anything else falls through to the not-found
 * handler, which redirects to the login (errors.ts).
 */
export async function siteRoutes(app: FastifyInstance, { config }: { config: ServerConfig }) {
  const base = config.basePath;
  const loginPath = `${base}${SCREEN_PATHS.login}`;
  const indexFile = join(config.distDir, 'index.html');
  const assetsDir = join(config.distDir, 'assets') + sep;

  // @fastify/static refuses directories and non-canonical paths (`..`, `//`, `%2e`) with 403;
  // for a visitor these are just wrong addresses, sent to the login like any other.
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    if (isRead && (error.statusCode === 403 || error.statusCode === 404))
      return reply.redirect(loginPath, 302);
    return errorHandler(error, request, reply);
  });

  await app.register(fastifyStatic, {
    root: config.distDir,
    prefix: `${base}/`,
    // Directory listings and index files would only expose the build's layout.
    index: false,
    // Dotfiles (e.g. the build stamp .build-env.json) are treated as absent: redirected.
    dotfiles: 'ignore',
    preCompressed: true,
    cacheControl: false,
    // Tests build the server without a dist; the pages then say so (503).
    suppressWarning: true,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.startsWith(assetsDir) ? IMMUTABLE : REVALIDATE);
    },
  });

  // index.html is built once; what MEDIA_DIR holds, and whether the captions and chapters have
  // cues, is known only now. The page is made (and compressed) again only when index.html, the
  // served version, its media.json or a track changes.
  const served = config.mediaDir ? servedVersions(config.mediaDir) : null;
  const servedDir = async () => (served ? (await served()).dir : null);
  const pageVersion = async (): Promise<TextVersion> => {
    const index = await fileVersion(indexFile);
    const dir = await servedDir();
    const tracks = trackFiles(config, dir);
    const others = await Promise.all(
      [dir ? join(dir, PUBLISHED.manifest) : null, tracks.captions, tracks.chapters].map((file) =>
        file ? fileVersion(file).catch(() => undefined) : undefined,
      ),
    );
    return {
      key: [index.key, dir ?? '', ...others.map((other) => other?.key ?? 'none')].join('-'),
      mtime: others.reduce(
        (latest, other) => (other && other.mtime > latest ? other.mtime : latest),
        index.mtime,
      ),
    };
  };
  const readMediaInfo = async () => {
    if (!served) return null;
    // One reading of the pointer for both: the page names the version its renditions are in.
    const { dir, version } = await served();
    const manifestFile = join(dir, PUBLISHED.manifest);
    const info = await stat(manifestFile)
      .then((stats) => (stats.size <= MAX_MANIFEST_BYTES ? readFile(manifestFile, 'utf8') : ''))
      .then(parseMediaInfo, () => null);
    // The page still plays: the single MP4 (the fallback) from the video routes.
    if (!info)
      app.log.warn(
        { file: manifestFile },
        'media.json is missing or not a publish of prepare-video: the page plays the fallback MP4',
      );
    return info && version ? { version, ...info } : info;
  };
  const pageText = compressedText(pageVersion, async () => {
    const [html, info, empty] = await Promise.all([
      readFile(indexFile, 'utf8'),
      readMediaInfo(),
      servedDir().then((dir) => emptyTracks(trackFiles(config, dir))),
    ]);
    const page = withEmptyTracks(withMediaInfo(html, info), empty);
    return page.replace(
      /<html\b/,
      (tag) => `${tag} ${COPY_DAYS_ATTRIBUTE}="${config.offlineCopyDays}"`,
    );
  });

  // Made before the first visitor asks (brotli at its best costs ~15 ms on the real page), and a
  // broken media.json is reported at start. Without a build there is nothing to make yet.
  app.addHook('onReady', async () => {
    await pageText().catch(() => undefined);
  });

  const csp = pageCsp(config);
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const built = await stat(indexFile).then(
      (stats) => stats.isFile(),
      () => false,
    );
    // index.html removed between the two reads (a build under way) is not built either.
    const text = built ? await pageText().catch(() => undefined) : undefined;
    if (!text) return reply.code(503).header('cache-control', 'no-store').send(NOT_BUILT);
    return sendCompressed(
      request,
      reply
        .header('content-security-policy', await csp())
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', REVALIDATE)
        .header(PAGE_COPY_HEADER, String(config.sessionTtlS))
        .header('vary', 'Accept-Encoding'),
      text,
      preferredEncoding(request.headers['accept-encoding']),
    );
  };
  app.get(loginPath, page);
  app.get(`${base}${SCREEN_PATHS.video}`, page);

  app.get('/robots.txt', async (_request, reply) =>
    reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(ROBOTS),
  );

  const toLogin = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.redirect(loginPath, 302);
  app.get(base, toLogin);
  app.get(`${base}/`, toLogin);
}
