/**
 * Where the start and hls.js find an encrypted publish's key (docs/publishing.md): stored with
 * the session from the signin's answer (the auth machine writes and removes it), else asked of
 * the server like any media request, which answers it to a live session only.
 */
import { KEY_BYTES, KEY_FILE } from '../../config/media-layout';
import { VIDEO_KEY_KEY, type SessionStorage, type VideoKey } from '../../machines/session';

/** The publish a rendition's folder belongs to (`<id>-360p`). */
export const publishIdOf = (dir: string) => dir.slice(0, dir.indexOf('-'));

/** The publish whose key `url` asks for (a rendition's KEY_FILE), or null for any other URL. */
export function keyUrlPublish(url: string): string | null {
  const path = new URL(url, location.href).pathname;
  const match = new RegExp(`/([a-z0-9]{8})-\\d{2,4}p/${KEY_FILE.replace('.', '\\.')}$`).exec(path);
  return match?.[1] ?? null;
}

/**
 * The key's 16 bytes when it is publish `id`'s: the signin's answer's (`given`, before the
 * machine has stored it), else the stored one; null otherwise, never a throw.
 */
export function knownVideoKey(
  storage: SessionStorage,
  id: string,
  given?: VideoKey,
): Uint8Array<ArrayBuffer> | null {
  try {
    const value = (given ??
      JSON.parse(storage.getItem(VIDEO_KEY_KEY) ?? 'null')) as Partial<VideoKey> | null;
    if (value?.id !== id || typeof value.key !== 'string') return null;
    const bytes = Uint8Array.from(atob(value.key), (char) => char.charCodeAt(0));
    return bytes.byteLength === KEY_BYTES ? bytes : null;
  } catch {
    return null;
  }
}
