import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import {
  compressedText,
  fileVersion,
  preferredEncoding,
  sendCompressed,
} from '../compressed-text.js';
import type { ServerConfig } from '../config.js';
import { UNAUTHORIZED } from '../errors.js';
import { ACCESS_PATH, MEDIA_DIR_HEADER, PUBLISHED } from '../../config/media-layout.js';
import { liveSession } from '../session-cookie.js';
import type { SessionStore } from '../sessions.js';
import type { Publishes } from '../published.js';
import {
  HLS_ROUTES,
  PUBLISHED_TYPES,
  adaptiveRoutes,
  renditionHeaders,
  type Refused,
  type SendFile,
  type SendText,
} from './adaptive.js';

/**
 * The video, its captions and its poster, only for a live server-side session (an encrypted
 * publish's init and media segments excepted: adaptive.ts).
 * @fastify/send does the HTTP work (Range 206/416, ETag/304, Last-Modified, HEAD); this
 * plugin only decides who may ask and which file each route means.
 */
export async function mediaRoutes(
  app: FastifyInstance,
  {
    config,
    sessions,
    media,
  }: { config: ServerConfig; sessions: SessionStore; media: Publishes | null },
) {
  // Named by route, not by file extension, so that a company's own files keep the right type
  // whatever they are called. With MEDIA_DIR, the same routes serve the publish served now.
  const { mediaDir } = config;
  const served = media?.served ?? null;
  // The answers of files anyone may keep (adaptive.ts decides which).
  const open = new WeakSet<FastifyReply>();
  const published = (name: string, single: string) => async () =>
    served ? join((await served()).dir, name) : single;
  const files = [
    { url: '/api/video', path: published(PUBLISHED.fallback, config.videoFile) },
    { url: '/api/video/captions.vtt', path: published(PUBLISHED.captions, config.captionsFile) },
    { url: '/api/video/chapters.vtt', path: published(PUBLISHED.chapters, config.chaptersFile) },
    { url: '/api/video/poster.jpg', path: published(PUBLISHED.poster, config.posterFile) },
  ];
  const typeByPath = new Map([
    [config.videoFile, 'video/mp4'],
    [config.captionsFile, 'text/vtt; charset=utf-8'],
    [config.chaptersFile, 'text/vtt; charset=utf-8'],
    [config.posterFile, 'image/jpeg'],
  ]);

  await app.register(fastifyStatic, {
    serve: false,
    // Gated content: a shared cache must not keep it, and the browser must ask again (a cheap
    // 304) so that signout really closes the door.
    cacheControl: false,
    dotfiles: 'allow',
    index: false,
    setHeaders: (reply, path) => {
      reply.header('cache-control', 'private, no-cache');
      const type =
        typeByPath.get(path) ??
        (mediaDir && path.startsWith(mediaDir + sep) ? PUBLISHED_TYPES[basename(path)] : undefined);
      if (type) reply.header('content-type', type);
      reply.headers(renditionHeaders(mediaDir, path, open.has(reply)) ?? {});
    },
  });

  const refused: Refused = async (request, reply) => {
    if (await liveSession(request, sessions)) return false;
    reply.header('cache-control', 'no-store').code(401).send(UNAUTHORIZED);
    return true;
  };
  // The adaptive routes ask it themselves, once they know whether the publish is encrypted.
  app.addHook('onRequest', async (request, reply) => {
    if (!HLS_ROUTES.has(request.routeOptions.url ?? '') && (await refused(request, reply)))
      return reply;
  });

  // The proxy's question before it serves a file from MEDIA_DIR itself; the hook above answered
  // 401 or 503 already. The folder is the one the routes below read (the same mapping).
  app.get(ACCESS_PATH, async (_request, reply) =>
    reply
      .code(204)
      .header('cache-control', 'no-store')
      .header(MEDIA_DIR_HEADER, served ? relative(mediaDir!, (await served()).dir) || '.' : '')
      .send(),
  );

  for (const file of files) {
    if (file.url.endsWith('.vtt')) continue;
    app.get(file.url, async (_request, reply) => {
      const path = await file.path();
      return reply.sendFile(basename(path), dirname(path));
    });
  }

  const sendFile: SendFile = (reply, path, anyone) => {
    if (anyone) open.add(reply);
    return reply.sendFile(basename(path), dirname(path));
  };

  // Text (captions, playlists): compressed when the browser accepts it (compressed-text.ts).
  const compressed = new Map<string, ReturnType<typeof compressedText>>();
  const sendText: SendText = async (request, reply, path, type) => {
    reply.header('vary', 'Accept-Encoding');
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    const read =
      compressed.get(path) ??
      compressedText(
        () => fileVersion(path),
        () => readFile(path),
      );
    const file = encoding ? await read().catch(() => undefined) : undefined;
    // Only files that exist are remembered: asking for missing names grows nothing, and a
    // removed version's files are forgotten.
    if (file) compressed.set(path, read);
    else compressed.delete(path);
    // Identity, or a file that cannot be read: @fastify/send answers (404 for a missing file).
    if (!encoding || !file) return sendFile(reply, path, false);
    reply.header('cache-control', 'private, no-cache').header('content-type', type);
    return sendCompressed(request, reply, file, encoding);
  };
  // The captions and the chapters. A video published without chapters has none: 204, as the
  // master without MEDIA_DIR (a 404 would log an error in every visitor's console).
  for (const file of files.filter(({ url }) => url.endsWith('.vtt')))
    app.get(file.url, async (request: FastifyRequest, reply: FastifyReply) => {
      const path = await file.path();
      if (mediaDir && file.url.endsWith('/chapters.vtt') && !existsSync(path))
        return reply.code(204).header('cache-control', 'private, no-cache').send();
      return sendText(request, reply, path, 'text/vtt; charset=utf-8');
    });

  await app.register(adaptiveRoutes, { media, sendText, sendFile, refused });
}
