/**
 * The stored copy as object URLs, read from Cache Storage by the page itself: the copy then plays
 * with no request at all, so neither a dead link, nor a link that comes back to a server that no
 * longer knows the session, nor a missing service worker can break it. A file that is missing
 * (the browser evicted the site's storage) makes the whole copy unplayable: null, never a
 * half-broken player.
 */
import { config } from '../config';
import { openDownload, type DownloadRecord } from './download-store';

export interface CopySource {
  /** What the player loads: a master playlist (hls) or the MP4. */
  url: string;
  kind: DownloadRecord['kind'];
  captions: string | null;
  poster: string | null;
  /** Frees the object URLs. */
  release(): void;
}

/**
 * The playlist's URIs (segments, the init segment's EXT-X-MAP, an encrypted publish's EXT-X-KEY)
 * replaced by `urlOf`'s.
 */
export function rewritePlaylist(text: string, base: string, urlOf: (url: string) => string) {
  return text
    .split(/\r?\n/)
    .map((line) => {
      const trimmed = line.trim();
      if (trimmed.startsWith('#EXT-X-MAP:') || trimmed.startsWith('#EXT-X-KEY:'))
        return trimmed.replace(
          /URI="([^"]+)"/,
          (_, uri: string) => `URI="${urlOf(new URL(uri, base).href)}"`,
        );
      if (!trimmed || trimmed.startsWith('#')) return line;
      return urlOf(new URL(trimmed, base).href);
    })
    .join('\n');
}

/** The copy's object URLs, or null when a file it needs is not stored. */
export async function copySource(record: DownloadRecord): Promise<CopySource | null> {
  const cache = await openDownload();
  const made: string[] = [];
  const release = () => made.forEach((url) => URL.revokeObjectURL(url));
  const objectUrl = (blob: Blob) => {
    const url = URL.createObjectURL(blob);
    made.push(url);
    return url;
  };
  const blobs = new Map<string, Blob>();
  try {
    for (const file of record.files) {
      const stored = await cache.match(file.key);
      if (stored) blobs.set(file.url, await stored.blob());
      else if (!file.optional && !file.range) throw new Error(`${file.url} is not stored`);
    }
    const optional = (url: string) => {
      const blob = blobs.get(new URL(url, location.href).href);
      return blob ? objectUrl(blob) : null;
    };
    const extras = { captions: optional(config.captionsUrl), poster: optional(config.posterUrl) };
    if (record.kind === 'mp4') {
      const whole = await cache.match(record.finish.url);
      if (!whole) throw new Error('the MP4 is not stored');
      return { url: objectUrl(await whole.blob()), kind: 'mp4', ...extras, release };
    }
    const playlistUrl = record.files[0]?.url;
    const playlist = playlistUrl && blobs.get(playlistUrl);
    if (!playlist || !record.finish.master) throw new Error('the playlist is not stored');
    const urlOf = (url: string) => {
      const blob = blobs.get(url);
      if (!blob) throw new Error(`${url} is not stored`);
      return objectUrl(blob);
    };
    const media = rewritePlaylist(await playlist.text(), playlistUrl, urlOf);
    const mediaUrl = objectUrl(new Blob([media], { type: 'application/vnd.apple.mpegurl' }));
    const master = rewritePlaylist(record.finish.master, record.finish.url, () => mediaUrl);
    return {
      url: objectUrl(new Blob([master], { type: 'application/vnd.apple.mpegurl' })),
      kind: 'hls',
      ...extras,
      release,
    };
  } catch {
    release();
    return null;
  }
}
