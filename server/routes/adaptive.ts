import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { basename, dirname, join } from 'node:path';
import { PUBLISHED, RUNG_DIR_PATTERN, RUNG_FILE_PATTERN } from '../../config/media-layout.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';

/** A playlist sent compressed when the browser accepts it (media.ts does the work). */
export type SendText = (
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  type: string,
) => Promise<FastifyReply>;

/**
 * The headers of a file under MEDIA_DIR's rendition folders: a segment's name never changes its
 * bytes (each publish has its own folders), so the browser keeps it for a re-watch; shared
 * caches never do. Undefined for any other file.
 */
export function renditionHeaders(
  mediaDir: string | null,
  path: string,
): Record<string, string> | undefined {
  if (!mediaDir || dirname(dirname(path)) !== mediaDir) return undefined;
  if (!RUNG_DIR_PATTERN.test(basename(dirname(path)))) return undefined;
  if (path.endsWith('.m3u8'))
    return { 'cache-control': 'private, no-cache', 'content-type': PLAYLIST_TYPE };
  if (path.endsWith('.mp4') || path.endsWith('.m4s'))
    return { 'cache-control': 'private, max-age=31536000, immutable', 'content-type': 'video/mp4' };
  return undefined;
}

/**
 * The adaptive video under /api/video/hls/: the master playlist, and each rendition's playlist,
 * init segment and media segments. Registered inside mediaRoutes, so behind its session check.
 * Without MEDIA_DIR the master answers 204 No Content: that is how the page, built once, learns
 * that there is only the single MP4 (a 404 would be logged as an error in the visitor's console
 * on every visit).
 */
export async function adaptiveRoutes(
  app: FastifyInstance,
  { mediaDir, sendText }: { mediaDir: string | null; sendText: SendText },
) {
  // The server's own 404 (JSON under /api/).
  const notFound = (reply: FastifyReply) => reply.callNotFound();

  app.get('/api/video/hls/master.m3u8', async (request, reply) =>
    mediaDir
      ? sendText(request, reply, join(mediaDir, PUBLISHED.master), PLAYLIST_TYPE)
      : reply.code(204).header('cache-control', 'private, no-cache').send(),
  );

  app.get<{ Params: { rung: string; file: string } }>(
    '/api/video/hls/:rung/:file',
    async (request, reply) => {
      const { rung, file } = request.params;
      // Names are checked, not cleaned: nothing but a published file's name reaches the disk.
      if (!mediaDir || !RUNG_DIR_PATTERN.test(rung) || !RUNG_FILE_PATTERN.test(file))
        return notFound(reply);
      if (file.endsWith('.m3u8'))
        return sendText(request, reply, join(mediaDir, rung, file), PLAYLIST_TYPE);
      return reply.sendFile(file, join(mediaDir, rung));
    },
  );
}
