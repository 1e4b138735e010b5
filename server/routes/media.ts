import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { basename, dirname } from 'node:path';
import type { ServerConfig } from '../config.js';
import { UNAUTHORIZED } from '../errors.js';
import { liveSession } from '../session-cookie.js';
import type { SessionStore } from '../sessions.js';

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
  // whatever they are called.
  const files = [
    { url: '/api/video', path: config.videoFile, type: 'video/mp4' },
    { url: '/api/video/captions.vtt', path: config.captionsFile, type: 'text/vtt; charset=utf-8' },
    { url: '/api/video/poster.jpg', path: config.posterFile, type: 'image/jpeg' },
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
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!(await liveSession(request, sessions))) {
      reply.header('cache-control', 'no-store');
      return reply.code(401).send(UNAUTHORIZED);
    }
  });

  for (const file of files) {
    app.get(file.url, async (_request, reply) =>
      reply.sendFile(basename(file.path), dirname(file.path)),
    );
  }
}
