import { allowed } from '../screens/video-player/quality';

/**
 * What a download stores, decided from the published files: pure, so that it is tested without
 * a browser. An adaptive site stores one rendition and a master playlist that names only it (the
 * player then has nothing to adapt and its quality menu shows what is stored); a single-MP4 site
 * stores the MP4. Both store the captions, the chapters and the poster at their own URLs.
 */

/** A rendition the visitor may download, as the master playlist describes it. */
export interface Rendition {
  /** Its playlist's URL, absolute. */
  playlist: string;
  /** The short side, as the quality menu names it ("360p"). */
  height: number;
  /** Bits per second over the whole video (AVERAGE-BANDWIDTH, else BANDWIDTH). */
  bitrate: number;
  /** The EXT-X-STREAM-INF line, kept as is for the stored master. */
  streamInf: string;
  /** The URI line as the master wrote it (relative to the master). */
  uri: string;
}

const attribute = (line: string, name: string) => new RegExp(`[:,]${name}=([^,]+)`).exec(line)?.[1];

/** The renditions of a master playlist, lowest first. */
export function parseMaster(text: string, masterUrl: string): Rendition[] {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const found: Rendition[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('#EXT-X-STREAM-INF:')) return;
    const uri = lines.slice(i + 1).find((next) => next && !next.startsWith('#'));
    const [width = 0, height = 0] = (attribute(line, 'RESOLUTION') ?? '').split('x').map(Number);
    const bitrate = Number(attribute(line, 'AVERAGE-BANDWIDTH') ?? attribute(line, 'BANDWIDTH'));
    if (!uri || !height || !Number.isFinite(bitrate)) return;
    found.push({
      playlist: new URL(uri, masterUrl).href,
      height: Math.min(width || height, height),
      bitrate,
      streamInf: line,
      uri,
    });
  });
  return found.sort((a, b) => a.bitrate - b.bitrate);
}

/**
 * The master the stored copy plays from: the original's header and one rendition, named by its
 * absolute URL, so that it still leads to the stored files when the worker answers it for a newer
 * publish's master (sw.ts).
 */
export function oneRenditionMaster(text: string, rendition: Rendition): string {
  const header = text
    .split(/\r?\n/)
    .filter((line) => /^#EXT(M3U|-X-VERSION|-X-INDEPENDENT-SEGMENTS)\b/.test(line.trim()));
  return [...header, rendition.streamInf, rendition.playlist, ''].join('\n');
}

/**
 * The files a rendition's playlist names, absolute: its init segment, an encrypted publish's key
 * (the copy plays with no signal and no session: it keeps its key for its own period, and loses
 * it with its files), then every segment.
 */
export function playlistFiles(text: string, playlistUrl: string): string[] {
  const files: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const map = /^#EXT-X-(?:MAP|KEY):.*URI="([^"]+)"/.exec(line);
    if (map?.[1]) files.push(new URL(map[1], playlistUrl).href);
    else if (line && !line.startsWith('#')) files.push(new URL(line, playlistUrl).href);
  }
  return files;
}

/** For a phone: about 360p, small enough to store and sharp enough on its screen. */
const PHONE_HEIGHT = 360;

/**
 * The rendition offered first, among `list` (lowest first): with the data saver on, the highest it
 * allows (the lowest if none is that small); otherwise the one nearest 360p (the lower of two
 * as near).
 */
export function defaultRendition<T extends { height: number }>(
  list: T[],
  dataSaver: boolean,
): T | undefined {
  // The quality menu's own rule for what the data saver allows.
  if (dataSaver) {
    const small = allowed({ quality: 'auto', dataSaver }, list);
    return small[small.length - 1];
  }
  return list.reduce<T | undefined>(
    (best, r) =>
      !best || Math.abs(r.height - PHONE_HEIGHT) < Math.abs(best.height - PHONE_HEIGHT) ? r : best,
    undefined,
  );
}

/** The size shown before a download starts, in the page's words: "≈ 11 MB". */
export const megabytes = (bytes: number) =>
  `≈ ${Math.max(1, Math.round(bytes / 1e6)).toLocaleString('es-AR')} MB`;

/** Pieces of a single MP4: each is stored as it arrives, so a lost link loses one at most. */
const MP4_PIECE_BYTES = 1024 * 1024;

/** The byte ranges of an MP4 of `size` bytes, each `[first, last]` as a Range header names it. */
export function mp4Pieces(size: number, piece = MP4_PIECE_BYTES): [number, number][] {
  const pieces: [number, number][] = [];
  for (let first = 0; first < size; first += piece)
    pieces.push([first, Math.min(first + piece, size) - 1]);
  return pieces;
}
