import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  PUBLISHED,
  RUNG_DIR_PATTERN,
  RUNG_FILE_PATTERN,
  VERSION_DIR_PATTERN,
} from '../../config/media-layout.js';
import { keptFolder, rungParent, type Served } from '../published.js';

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
  if (!mediaDir || !RUNG_DIR_PATTERN.test(basename(dirname(path)))) return undefined;
  const parent = dirname(dirname(path));
  const inVersion = dirname(parent) === mediaDir && VERSION_DIR_PATTERN.test(basename(parent));
  if (parent !== mediaDir && !inVersion) return undefined;
  if (path.endsWith('.m3u8'))
    return { 'cache-control': 'private, no-cache', 'content-type': PLAYLIST_TYPE };
  if (path.endsWith('.mp4') || path.endsWith('.m4s'))
    return { 'cache-control': 'private, max-age=31536000, immutable', 'content-type': 'video/mp4' };
  return undefined;
}

/** A version folder's other files, by URL name: what the page's player asks for in its version. */
export const PUBLISHED_TYPES: Partial<Record<string, string>> = {
  [PUBLISHED.master]: PLAYLIST_TYPE,
  [PUBLISHED.fallback]: 'video/mp4',
  [PUBLISHED.poster]: 'image/jpeg',
  [PUBLISHED.captions]: 'text/vtt; charset=utf-8',
  [PUBLISHED.chapters]: 'text/vtt; charset=utf-8',
};

/**
 * The adaptive video under /api/video/hls/: the master playlist, and each rendition's playlist,
 * init segment and media segments. Registered inside mediaRoutes, so behind its session check.
 * `master.m3u8` and `RUNG/FILE` are the served publish (a rendition by its publish's id, so any
 * kept one); `VERSION/...` is one kept version's folder, which the page names (media-info): a
 * publish made while a visitor watches changes nothing that visitor's player asks for.
 * Without MEDIA_DIR the master answers 204 No Content: that is how the page, built once, learns
 * that there is only the single MP4 (a 404 would be logged as an error in the visitor's console
 * on every visit).
 */
export async function adaptiveRoutes(
  app: FastifyInstance,
  {
    mediaDir,
    served,
    sendText,
  }: { mediaDir: string | null; served: (() => Promise<Served>) | null; sendText: SendText },
) {
  // The server's own 404 (JSON under /api/).
  const notFound = (reply: FastifyReply) => reply.callNotFound();

  app.get('/api/video/hls/master.m3u8', async (request, reply) =>
    served
      ? sendText(request, reply, join((await served()).dir, PUBLISHED.master), PLAYLIST_TYPE)
      : reply.code(204).header('cache-control', 'private, no-cache').send(),
  );

  const sendRungFile = (request: FastifyRequest, reply: FastifyReply, parent: string) => {
    const { rung, file } = request.params as { rung: string; file: string };
    // Names are checked, not cleaned: nothing but a published file's name reaches the disk.
    if (!RUNG_DIR_PATTERN.test(rung) || !RUNG_FILE_PATTERN.test(file)) return notFound(reply);
    if (file.endsWith('.m3u8'))
      return sendText(request, reply, join(parent, rung, file), PLAYLIST_TYPE);
    return reply.sendFile(file, join(parent, rung));
  };

  app.get<{ Params: { rung: string; file: string } }>(
    '/api/video/hls/:rung/:file',
    async (request, reply) => {
      if (!mediaDir || !served) return notFound(reply);
      const { rung, file } = request.params;
      const now = await served();
      const version = keptFolder(mediaDir, now, rung);
      if (!version) return sendRungFile(request, reply, rungParent(mediaDir, now, rung));
      const type = Object.hasOwn(PUBLISHED_TYPES, file) ? PUBLISHED_TYPES[file] : undefined;
      if (!type) return notFound(reply);
      const path = join(version, file);
      if (file === PUBLISHED.chapters && !existsSync(path))
        return reply.code(204).header('cache-control', 'private, no-cache').send();
      if (file.endsWith('.m3u8') || file.endsWith('.vtt'))
        return sendText(request, reply, path, type);
      return reply.sendFile(file, version);
    },
  );

  app.get<{ Params: { version: string; rung: string; file: string } }>(
    '/api/video/hls/:version/:rung/:file',
    async (request, reply) => {
      const version =
        mediaDir && served && keptFolder(mediaDir, await served(), request.params.version);
      return version ? sendRungFile(request, reply, version) : notFound(reply);
    },
  );
}
