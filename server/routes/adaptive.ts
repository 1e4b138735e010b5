import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  KEY_FILE,
  PUBLISHED,
  RUNG_DIR_PATTERN,
  RUNG_FILE_PATTERN,
  VERSION_DIR_PATTERN,
} from '../../config/media-layout.js';
import { keptFolder, rungFolder, rungId, type Publishes } from '../published.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';

/** A playlist sent compressed when the browser accepts it (media.ts does the work). */
export type SendText = (
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  type: string,
) => Promise<FastifyReply>;

/** A file sent by @fastify/send, with public headers when `open`. */
export type SendFile = (reply: FastifyReply, path: string, open: boolean) => FastifyReply;

/** Answers 401 (or throws the store's 503) and says true when there is no live session. */
export type Refused = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/** The routes that check the session themselves: an encrypted publish's segments need none. */
export const HLS_ROUTES = new Set([
  '/api/video/hls/:rung/:file',
  '/api/video/hls/:version/:rung/:file',
]);

/**
 * The headers of a file under MEDIA_DIR's rendition folders: a segment's name never changes its
 * bytes (each publish has its own folders), so it is kept for a year; shared caches keep it only
 * when it is `open` (encrypted, useless without the key). Undefined for any other file.
 */
export function renditionHeaders(
  mediaDir: string | null,
  path: string,
  open = false,
): Record<string, string> | undefined {
  if (!mediaDir || !RUNG_DIR_PATTERN.test(basename(dirname(path)))) return undefined;
  const parent = dirname(dirname(path));
  const inVersion = dirname(parent) === mediaDir && VERSION_DIR_PATTERN.test(basename(parent));
  if (parent !== mediaDir && !inVersion) return undefined;
  if (path.endsWith('.m3u8'))
    return { 'cache-control': 'private, no-cache', 'content-type': PLAYLIST_TYPE };
  if (path.endsWith('.mp4') || path.endsWith('.m4s'))
    return {
      'cache-control': `${open ? 'public' : 'private'}, max-age=31536000, immutable`,
      'content-type': 'video/mp4',
    };
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
 * init segment, media segments and key. `master.m3u8` and `RUNG/FILE` are the served publish (a
 * rendition by its publish's id, so any kept one); `VERSION/...` is one kept version's folder,
 * which the page names (media-info): a publish made while a visitor watches changes nothing that
 * visitor's player asks for.
 * An encrypted publish's init and media segments are public: without its key they are noise, so
 * shared caches and CDNs may keep them and no session is asked per segment. Its playlists, its
 * key, and every file of a clear publish, need a live session (`refused`), asked before anything
 * else.
 * Without MEDIA_DIR the master answers 204 No Content: that is how the page, built once, learns
 * that there is only the single MP4 (a 404 would be logged as an error in the visitor's console
 * on every visit).
 */
export async function adaptiveRoutes(
  app: FastifyInstance,
  {
    media,
    sendText,
    sendFile,
    refused,
  }: { media: Publishes | null; sendText: SendText; sendFile: SendFile; refused: Refused },
) {
  // The server's own 404 (JSON under /api/).
  const notFound = (reply: FastifyReply) => reply.callNotFound();

  app.get('/api/video/hls/master.m3u8', async (request, reply) => {
    const dir = media && (await media.served()).dir;
    return dir
      ? sendText(request, reply, join(dir, PUBLISHED.master), PLAYLIST_TYPE)
      : reply.code(204).header('cache-control', 'private, no-cache').send();
  });

  const sendKey = async (request: FastifyRequest, reply: FastifyReply, publish: string) => {
    const read = await media!.key(publish);
    if ('problem' in read) {
      // Never a 500: the player reads a 404 as this rendition failing, and may try another.
      request.log.warn({ videoKey: { id: publish, problem: read.problem } }, 'video key missing');
      return notFound(reply);
    }
    return reply
      .header('content-type', 'application/octet-stream')
      .header('cache-control', 'private, no-store')
      .send(read.key);
  };

  /** A rendition's file, from `folder` (undefined: no kept publish has that rendition). */
  const sendRungFile = async (
    request: FastifyRequest,
    reply: FastifyReply,
    folder: string | undefined,
  ) => {
    const { rung, file } = request.params as { rung: string; file: string };
    // Names are checked, not cleaned: nothing but a published file's name reaches the disk.
    const named =
      RUNG_DIR_PATTERN.test(rung) && (file === KEY_FILE || RUNG_FILE_PATTERN.test(file));
    const publish = named && folder ? await media!.rungPublish(folder, rung) : null;
    // No playlist: the one request still asking the server, so an ended session shows the login.
    const open = publish?.encrypted === true && file !== KEY_FILE && !file.endsWith('.m3u8');
    if (!open && (await refused(request, reply))) return reply;
    if (!publish || !folder) return notFound(reply);
    if (file === KEY_FILE) return sendKey(request, reply, rungId(rung));
    const path = join(folder, rung, file);
    if (file.endsWith('.m3u8')) return sendText(request, reply, path, PLAYLIST_TYPE);
    return sendFile(reply, path, open);
  };

  app.get<{ Params: { rung: string; file: string } }>(
    '/api/video/hls/:rung/:file',
    async (request, reply) => {
      if (!media) return (await refused(request, reply)) ? reply : notFound(reply);
      const { rung, file } = request.params;
      const now = await media.served();
      const version = keptFolder(media.mediaDir, now, rung);
      if (!version) return sendRungFile(request, reply, rungFolder(media.mediaDir, now, rung));
      if (await refused(request, reply)) return reply;
      const type = Object.hasOwn(PUBLISHED_TYPES, file) ? PUBLISHED_TYPES[file] : undefined;
      if (!type) return notFound(reply);
      const path = join(version, file);
      if (file === PUBLISHED.chapters && !existsSync(path))
        return reply.code(204).header('cache-control', 'private, no-cache').send();
      if (file.endsWith('.m3u8') || file.endsWith('.vtt'))
        return sendText(request, reply, path, type);
      return sendFile(reply, path, false);
    },
  );

  app.get<{ Params: { version: string; rung: string; file: string } }>(
    '/api/video/hls/:version/:rung/:file',
    async (request, reply) => {
      const version =
        media && keptFolder(media.mediaDir, await media.served(), request.params.version);
      return sendRungFile(request, reply, version ?? undefined);
    },
  );
}
