/**
 * A publish's encryption (config/media-layout.ts, docs/publishing.md): each media segment
 * AES-128-CBC under the publish's key, IV = its media sequence number, the init segment clear.
 * ffmpeg 5.1 refuses to encrypt fMP4, so prepare-video encrypts the files it wrote, and rekey
 * re-encrypts them under a new key without encoding anything again.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import {
  KEY_BYTES,
  KEY_FILE,
  RUNG_FILES,
  RUNG_FILE_PATTERN,
  keyFileName,
  keysDirFor,
  type Manifest,
} from '../../config/media-layout.js';
import { segmentIv } from '../../config/segment-iv.js';

export class KeyError extends Error {}

/** The line each rendition playlist carries after EXT-X-MAP: no IV, so IV = sequence number. */
const KEY_LINE = `#EXT-X-KEY:METHOD=AES-128,URI="${KEY_FILE}"`;

export const newKey = () => randomBytes(KEY_BYTES);

/**
 * Refuses a keys folder inside the media folder: whatever serves the media folder as static
 * files (nginx, a CDN) would serve the keys with it.
 */
export function checkKeysDir(mediaDir: string, keysDir: string): void {
  const inside = relative(mediaDir, keysDir);
  const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  if (!outside)
    throw new KeyError(
      `the keys folder ${keysDir} is inside the media folder ${mediaDir}, which is served: choose one beside it.`,
    );
}

/** Writes the publish's key (16 raw bytes, 0600, in a 0700 folder); returns its path. */
export function writeKey(keysDir: string, id: string, key: Buffer): string {
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const path = join(keysDir, keyFileName(id));
  // 'wx': ids are random, so an existing file is not ours to overwrite.
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, key);
    // The pointer may name the publish right after: its key must be on the disk first.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** The key of publish `id`, or a KeyError saying which file is missing or wrong. */
export function readKey(keysDir: string, id: string): Buffer {
  const path = join(keysDir, keyFileName(id));
  let key: Buffer;
  try {
    key = readFileSync(path);
  } catch (error) {
    throw new KeyError(
      `the key ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  if (key.length !== KEY_BYTES)
    throw new KeyError(`the key ${path} has ${key.length} bytes, not ${KEY_BYTES}.`);
  return key;
}

const cipher = (decrypt: boolean, bytes: Buffer, key: Buffer, sequence: number) => {
  const make = decrypt ? createDecipheriv : createCipheriv;
  const c = make('aes-128-cbc', key, segmentIv(sequence));
  return Buffer.concat([c.update(bytes), c.final()]);
};

const encryptSegment = (clear: Buffer, key: Buffer, sequence: number) =>
  cipher(false, clear, key, sequence);

/** Throws (Node's "bad decrypt") when `key` is not the one the segment was encrypted with. */
const decryptSegment = (encrypted: Buffer, key: Buffer, sequence: number) =>
  cipher(true, encrypted, key, sequence);

/** A rendition playlist's segments, each with its media sequence number (its IV). */
function playlistSegments(playlist: string): { name: string; sequence: number }[] {
  const lines = playlist.split('\n').map((line) => line.trim());
  const first = Number(/^#EXT-X-MEDIA-SEQUENCE:(\d+)$/m.exec(lines.join('\n'))?.[1] ?? '0');
  const names = lines.filter((line) => line && !line.startsWith('#'));
  return names.map((name, index) => {
    // Only the names prepare-video writes: a playlist edited to name ../ files reads nothing.
    if (!RUNG_FILE_PATTERN.test(name) || !name.endsWith('.m4s'))
      throw new KeyError(`the playlist names ${name}, which is not a segment prepare-video makes.`);
    return { name, sequence: first + index };
  });
}

/** The playlist with one KEY_LINE, right after EXT-X-MAP, so that the init stays clear. */
function withKeyLine(playlist: string): string {
  const lines = playlist.split('\n').filter((line) => !line.startsWith('#EXT-X-KEY'));
  const map = lines.findIndex((line) => line.startsWith('#EXT-X-MAP'));
  if (map < 0) throw new KeyError('the playlist has no #EXT-X-MAP: not an fMP4 rendition.');
  lines.splice(map + 1, 0, KEY_LINE);
  return lines.join('\n');
}

/**
 * Writes rendition `from`'s segments into `to` encrypted under `key` (in place when they are the
 * same folder), and its playlist with the key line. `previousKey`: the segments are encrypted
 * under it and are decrypted first. The init segment is left to the caller (it never changes).
 * Returns the number of segments.
 */
export function encryptRung(
  from: string,
  to: string,
  key: Buffer,
  previousKey: Buffer | null = null,
): number {
  const playlist = readFileSync(join(from, RUNG_FILES.playlist), 'utf8');
  const segments = playlistSegments(playlist);
  for (const { name, sequence } of segments) {
    // One segment at a time: an hour's rendition does not fit in memory whole.
    const stored = readFileSync(join(from, name));
    let clear = stored;
    if (previousKey) {
      try {
        clear = decryptSegment(stored, previousKey, sequence);
      } catch {
        throw new KeyError(`${join(from, name)} does not decrypt with the served publish's key.`);
      }
    }
    writeFileSync(join(to, name), encryptSegment(clear, key, sequence));
  }
  writeFileSync(join(to, RUNG_FILES.playlist), withKeyLine(playlist));
  return segments.length;
}

/** A published segment's clear bytes, from its version folder (its keys beside the media folder). */
export function clearSegment(
  version: string,
  manifest: Pick<Manifest, 'id' | 'encrypted'>,
  file: string,
  sequence: number,
): Buffer {
  const stored = readFileSync(join(version, file));
  if (!manifest.encrypted) return stored;
  return decryptSegment(stored, readKey(keysDirFor(dirname(version)), manifest.id), sequence);
}
