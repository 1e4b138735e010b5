/**
 * A published clip made encrypted or clear by hand, by the contract of config/media-layout.ts
 * (AES-128-CBC, IV = media sequence number, init clear, EXT-X-KEY after EXT-X-MAP, the key
 * in keysDirFor(MEDIA_DIR)): the server's tests then hold for either kind of publish, whichever
 * prepare-video makes.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  KEY_BYTES,
  KEY_FILE,
  PUBLISHED,
  RUNG_FILES,
  keyFileName,
  keysDirFor,
  type Manifest,
} from '../../config/media-layout.js';
import { segmentIv } from '../../config/segment-iv.js';

const KEY_LINE = `#EXT-X-KEY:METHOD=AES-128,URI="${KEY_FILE}"`;

/** The publish's media.json in its folder. */
const manifestOf = (folder: string) =>
  JSON.parse(readFileSync(join(folder, PUBLISHED.manifest), 'utf8')) as Manifest;

/** Where the publish in `folder` (inside `mediaDir`) keeps its key. */
export const keyPath = (mediaDir: string, folder: string) =>
  join(keysDirFor(mediaDir), keyFileName(manifestOf(folder).id));

/** Each segment of a rendition's playlist with its media sequence number. */
function segmentsOf(playlist: string): { name: string; sequence: number }[] {
  const first = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1] ?? 0);
  return playlist
    .split('\n')
    .filter((line) => line.endsWith('.m4s') && !line.startsWith('#'))
    .map((name, index) => ({ name, sequence: first + index }));
}

/** A rendition's playlist names the key: its segments are what the key decrypts. */
const underKey = (playlist: string) => playlist.includes(KEY_LINE);

/** A segment's bytes as they were encoded: decrypted when its publish is encrypted. */
export function clearSegment(mediaDir: string, folder: string, rung: string, name: string): Buffer {
  const bytes = readFileSync(join(folder, rung, name));
  const playlist = readFileSync(join(folder, rung, RUNG_FILES.playlist), 'utf8');
  if (!underKey(playlist)) return bytes;
  const { sequence } = segmentsOf(playlist).find((segment) => segment.name === name)!;
  const key = readFileSync(keyPath(mediaDir, folder));
  const decipher = createDecipheriv('aes-128-cbc', key, segmentIv(sequence));
  return Buffer.concat([decipher.update(bytes), decipher.final()]);
}

/**
 * Makes the publish in `folder` encrypted (a new key) or clear, whatever it was; returns its
 * key, or null once clear.
 */
export function setEncrypted(mediaDir: string, folder: string, encrypted: boolean): Buffer | null {
  const manifest = manifestOf(folder);
  const keyFile = keyPath(mediaDir, folder);
  // The playlists say what the segments are; media.json is written to match them.
  const first = join(folder, manifest.rungs[0]!.dir, RUNG_FILES.playlist);
  const was = underKey(readFileSync(first, 'utf8'));
  const key = was ? readFileSync(keyFile) : randomBytes(KEY_BYTES);
  for (const { dir } of was === encrypted ? [] : manifest.rungs) {
    const playlistFile = join(folder, dir, RUNG_FILES.playlist);
    const playlist = readFileSync(playlistFile, 'utf8');
    for (const { name, sequence } of segmentsOf(playlist)) {
      const file = join(folder, dir, name);
      const make = encrypted ? createCipheriv : createDecipheriv;
      const cipher = make('aes-128-cbc', key, segmentIv(sequence));
      writeFileSync(file, Buffer.concat([cipher.update(readFileSync(file)), cipher.final()]));
    }
    writeFileSync(
      playlistFile,
      encrypted
        ? playlist.replace(/^(#EXT-X-MAP:.*)$/m, `$1\n${KEY_LINE}`)
        : playlist.replace(`${KEY_LINE}\n`, ''),
    );
  }
  const written: Partial<Manifest> = { ...manifest };
  if (encrypted) written.encrypted = true;
  else delete written.encrypted;
  writeFileSync(join(folder, PUBLISHED.manifest), JSON.stringify(written, null, 2));
  if (!encrypted) {
    rmSync(keyFile, { force: true });
    return null;
  }
  mkdirSync(keysDirFor(mediaDir), { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, key, { mode: 0o600 });
  return key;
}
