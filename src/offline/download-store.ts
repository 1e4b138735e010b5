/**
 * The download as it sits in Cache Storage: each file at its own URL (the service worker answers
 * the player from there when the network does not), and a record of what it is and how far it
 * got. Every function survives a browser without Cache Storage (an old one, a private window):
 * there is then simply no download.
 */
import type { MediaInfo } from '../../config/media-layout';
import { config } from '../config';
import { DOWNLOAD_RECORD, downloadCache } from './offline-names';

export interface DownloadRecord {
  kind: 'hls' | 'mp4';
  /** The publish it is a copy of: media-info's version, or the MP4's validator. */
  publish: string;
  /** The rendition's height, null for the MP4. */
  height: number | null;
  /** The size announced before it started (an estimate for a rendition). */
  totalBytes: number;
  storedBytes: number;
  /** What to fetch, in order, each stored under `key` (its own URL, or an MP4 piece's). */
  files: { url: string; key: string; range?: [number, number]; optional?: boolean }[];
  /** Written last: the one-rendition master (hls) or the whole MP4 (mp4), at the player's URL. */
  finish: { url: string; master?: string; contentType: string };
  done: boolean;
  /** OFFLINE_COPY_DAYS when it was planned: the copy's period counts from its end. */
  days?: number;
  /** Set when done: until when it plays with no signal (ms since the epoch); null: with the session. */
  until?: number | null;
}

/** A rendition's publish as a record names it: the media-info version and its folder. */
export const publishOf = (info: MediaInfo, dir: string) => `${info.version ?? ''}/${dir}`;

const cacheName = downloadCache(config.basePath);
const recordUrl = () => new URL(`${config.basePath}/${DOWNLOAD_RECORD}`, location.href).href;
const hasCaches = () => typeof caches !== 'undefined';

export const openDownload = () => caches.open(cacheName);

export async function readRecord(): Promise<DownloadRecord | null> {
  if (!hasCaches()) return null;
  try {
    const stored = await caches.match(recordUrl(), { cacheName });
    return stored ? ((await stored.json()) as DownloadRecord) : null;
  } catch {
    return null;
  }
}

export const writeRecord = (cache: Cache, record: DownloadRecord) =>
  cache.put(
    recordUrl(),
    new Response(JSON.stringify(record), { headers: { 'content-type': 'application/json' } }),
  );

/** Removes the whole download (files and record) at once. Never throws. */
export async function deleteDownload(): Promise<void> {
  if (!hasCaches()) return;
  await caches.delete(cacheName).catch(() => false);
}
