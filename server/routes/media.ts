import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
import { trackFiles } from '../track-files.js';
import { adaptiveRoutes, renditionHeaders, type SendText } from './adaptive.js';

/**
 * The video, its captions and its poster, only for a live server-side session.
 * @fastify/send does the HTTP work (Range 206/416, ETag/304, Last-Modified, HEAD); this
 * plugin only decides who may ask and which file each route means.
 */
export async function mediaRoutes(
  app: FastifyInstance,
  { config, sessions }: { config: ServerConfig; sessions: SessionStore },
) {
  // Named by route, not by file extension, so that a company's own files keep the right type
  // whatever they are called. With MEDIA_DIR, the same routes serve what prepare-video made.
  const published = (name: string) => (config.mediaDir ? join(config.mediaDir, name) : undefined);
  const videoFile = published(PUBLISHED.fallback) ?? config.videoFile;
  const tracks = trackFiles(config);
  const files = [
    { url: '/api/video', path: videoFile, type: 'video/mp4' },
    { url: '/api/video/captions.vtt', path: tracks.captions, type: 'text/vtt; charset=utf-8' },
    { url: '/api/video/chapters.vtt', path: tracks.chapters, type: 'text/vtt; charset=utf-8' },
    {
      url: '/api/video/poster.jpg',
      path: published(PUBLISHED.poster) ?? config.posterFile,
      type: 'image/jpeg',
    },
  ];
  const typeByPath = new Map(files.map((file) => [file.path, file.type]));

  await app.register(fastifyStatic, {
    serve: false,
    // Gated content: a shared cache must not keep it, and the browser must ask again (a cheap
    // 304) so that signout really closes the door.
    cacheControl: false,
    dotfiles: 'allow',
    index: false,
    setHeaders: (reply, path) => {
      reply.header('cache-control', 'private, no-cache');
      const type = typeByPath.get(path);
      if (type) reply.header('content-type', type);
      reply.headers(renditionHeaders(config.mediaDir, path) ?? {});
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!(await liveSession(request, sessions))) {
      reply.header('cache-control', 'no-store');
      return reply.code(401).send(UNAUTHORIZED);
    }
  });

  // The proxy's question before it serves a file from MEDIA_DIR itself; the hook above answered
  // 401 or 503 already. The folder is the one the routes below read (the same mapping).
  app.get(ACCESS_PATH, async (_request, reply) =>
    reply
      .code(204)
      .header('cache-control', 'no-store')
      .header(MEDIA_DIR_HEADER, config.mediaDir ? '.' : '')
      .send(),
  );

  for (const file of files) {
    if (file.url.endsWith('.vtt')) continue;
    app.get(file.url, async (_request, reply) =>
      reply.sendFile(basename(file.path), dirname(file.path)),
    );
  }

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
    // Only files that exist are remembered: asking for missing names grows nothing.
    if (file) compressed.set(path, read);
    // Identity, or a file that cannot be read: @fastify/send answers (404 for a missing file).
    if (!encoding || !file) return reply.sendFile(basename(path), dirname(path));
    reply.header('cache-control', 'private, no-cache').header('content-type', type);
    return sendCompressed(request, reply, file, encoding);
  };
  // The captions and the chapters. A video published without chapters has none: 204, as the
  // master without MEDIA_DIR (a 404 would log an error in every visitor's console).
  for (const { url, path, type } of files.filter((file) => file.url.endsWith('.vtt')))
    app.get(url, async (request: FastifyRequest, reply: FastifyReply) => {
      if (config.mediaDir && url.endsWith('/chapters.vtt') && !existsSync(path))
        return reply.code(204).header('cache-control', 'private, no-cache').send();
      return sendText(request, reply, path, type);
    });

  await app.register(adaptiveRoutes, { mediaDir: config.mediaDir, sendText });
}
