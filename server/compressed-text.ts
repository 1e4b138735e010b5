import type { FastifyReply, FastifyRequest } from 'fastify';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

type Encoding = 'br' | 'gzip';

/** The encoding to send, br before gzip, honouring `q=0`; undefined for identity. */
export function preferredEncoding(header: string | string[] | undefined): Encoding | undefined {
  const accepted = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wildcard = accepted.get('*') ?? 0;
  return (['br', 'gzip'] as const).find((name) => (accepted.get(name) ?? wildcard) > 0);
}

/** What names one version of a text (it changes when any of its sources does), and its date. */
export interface TextVersion {
  key: string;
  mtime: Date;
}

/** A file's version: its size and mtime, as @fastify/send's ETag. Rejects if it is absent. */
export async function fileVersion(path: string): Promise<TextVersion> {
  const stats = await stat(path);
  return { key: `${stats.size.toString(16)}-${stats.mtimeMs.toString(16)}`, mtime: stats.mtime };
}

interface CompressedText {
  key: string;
  lastModified: string;
  bodies: Record<Encoding | 'identity', Buffer>;
}

/**
 * A text made and compressed once per version, kept in memory: the page and the captions are
 * asked for on every visit and are not worth remaking or compressing on every request.
 * `version` is cheap (a stat or two); `make` runs only when it changes.
 */
export function compressedText(
  version: () => Promise<TextVersion>,
  make: () => Promise<Buffer | string>,
): () => Promise<CompressedText> {
  let cached: Promise<CompressedText> | undefined;
  let cachedKey = '';
  return async () => {
    const { key, mtime } = await version();
    if (!cached || cachedKey !== key) {
      cachedKey = key;
      cached = (async () => {
        const made = await make();
        const body = typeof made === 'string' ? Buffer.from(made, 'utf8') : made;
        const [br, gz] = await Promise.all([
          promisify(brotliCompress)(body, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            },
          }),
          promisify(gzip)(body, { level: 9 }),
        ]);
        return {
          key,
          lastModified: mtime.toUTCString(),
          bodies: { identity: body, br, gzip: gz },
        };
      })();
      // A failed read (a file replaced mid-way) is not remembered.
      cached.catch(() => {
        if (cachedKey === key) cached = undefined;
      });
    }
    return cached;
  };
}

/**
 * Sends one encoding of the text (the caller has set content-type, cache-control and vary), each
 * encoding with its own ETag so that a 304 never confirms another encoding's bytes.
 */
export function sendCompressed(
  request: FastifyRequest,
  reply: FastifyReply,
  text: CompressedText,
  encoding: Encoding | undefined,
): FastifyReply {
  const etag = `W/"${text.key}-${encoding ?? 'identity'}"`;
  reply.header('etag', etag).header('last-modified', text.lastModified);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*'))
    return reply.code(304).send();
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(text.bodies[encoding ?? 'identity']);
}
