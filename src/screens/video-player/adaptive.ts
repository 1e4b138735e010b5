import type Hls from 'hls.js/light';
import type { HlsConfig } from 'hls.js/light';
import type { SessionStorage } from '../../../machines/session';
import { config } from '../../config';

/**
 * Adaptive video (HLS) for the player, from a folder published by `npm run prepare-video` and
 * served under /api/video/hls/ (MEDIA_DIR). The page is built once and MEDIA_DIR is a run-time
 * setting, so the page learns at run time: a HEAD of the master playlist, which the server
 * answers 204 No Content when it has only the single MP4. The <video> keeps its MP4 source
 * meanwhile. The answer is remembered (ADAPTIVE_KEY) so that the next visit fetches hls.js in
 * parallel with that HEAD instead of after it; the single-MP4 site never downloads hls.js.
 */
export const MASTER_URL = `${config.apiUrl}/api/video/hls/master.m3u8`;

/** '1' when this device last found adaptive video on the server. */
export const ADAPTIVE_KEY = 'videoAdaptive';

export type HlsModule = typeof import('hls.js/light');

let hlsModule: Promise<HlsModule> | undefined;

/**
 * hls.js (the light build, ~100 KB brotli) in its own chunk, asked for once: never part of the
 * login's bytes. Called as soon as the video screen is known to be next (warm-up) and again by
 * the player, which then finds it loaded.
 */
export function loadHls(): Promise<HlsModule> {
  hlsModule ??= import('hls.js/light').catch((error: unknown) => {
    hlsModule = undefined;
    throw error;
  });
  return hlsModule;
}

/** Media Source (Chromium, Firefox, Android, iPadOS, iOS 17.1+): hls.js plays there. */
export function hasMediaSource(): boolean {
  return (
    typeof window !== 'undefined' && ('MediaSource' in window || 'ManagedMediaSource' in window)
  );
}

/**
 * Native HLS only where there is no Media Source (iPhones before iOS 17.1). Chromium answers
 * "maybe" here too, and its own HLS player stays at low renditions: never ask it first.
 */
export function playsHlsNatively(video: HTMLVideoElement): boolean {
  return !hasMediaSource() && video.canPlayType('application/vnd.apple.mpegurl') !== '';
}

/** Kept for the next visit: the link's last measured speed, so that start-up picks well. */
const ESTIMATE_KEY = 'videoBandwidthEstimate';
/** hls.js's own default: a first visit starts from the 240p/360p rungs. */
const DEFAULT_ESTIMATE_BPS = 500_000;

export function readEstimate(storage: SessionStorage): number {
  const value = Number(storage.getItem(ESTIMATE_KEY));
  return Number.isFinite(value) && value >= 50_000 && value <= 100_000_000
    ? value
    : DEFAULT_ESTIMATE_BPS;
}

export function saveEstimate(storage: SessionStorage, bps: number): void {
  if (Number.isFinite(bps) && bps > 0) storage.setItem(ESTIMATE_KEY, String(Math.round(bps)));
}

/**
 * hls.js tuned for one on-demand video on slow links and cheap phones. Its defaults would keep
 * up to 10 minutes ahead and everything behind (memory, and data the visitor pays for), run the
 * low-latency live logic, and download a throw-away segment to test the link.
 */
export function hlsConfig(estimateBps: number): Partial<HlsConfig> {
  return {
    // The start position is given to startLoad once the <video> is attached.
    autoStartLoad: false,
    lowLatencyMode: false,
    // 30 s ahead at most (longer only for tiny rungs), 30 s behind for a quick look back.
    maxBufferLength: 30,
    maxMaxBufferLength: 60,
    maxBufferSize: 20 * 1000 * 1000,
    backBufferLength: 30,
    // Start from the remembered estimate instead of a test download.
    startLevel: -1,
    testBandwidth: false,
    abrEwmaDefaultEstimate: estimateBps,
    // The first segment is asked for while the Media Source opens.
    startFragPrefetch: true,
    enableWorker: false,
  };
}

/** The visitor's choice, remembered on this device. */
export interface QualityChoice {
  /** 'auto', or the height of the rendition chosen. */
  quality: 'auto' | number;
  /** Caps automatic quality at DATA_SAVER_HEIGHT. */
  dataSaver: boolean;
}

export const QUALITY_KEY = 'videoQuality';
/** Data saver: about 200 kbit/s, under 100 MB an hour. */
export const DATA_SAVER_HEIGHT = 240;
export const DEFAULT_CHOICE: QualityChoice = { quality: 'auto', dataSaver: false };

/** Parsed defensively: the stored text may be anything (another version, a hand edit). */
export function parseChoice(raw: string | null): QualityChoice {
  if (raw === null || raw.length > 200) return DEFAULT_CHOICE;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return DEFAULT_CHOICE;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return DEFAULT_CHOICE;
  const { quality, dataSaver } = value as Record<string, unknown>;
  const validHeight =
    typeof quality === 'number' && Number.isInteger(quality) && quality > 0 && quality <= 4320;
  return {
    quality: validHeight ? quality : 'auto',
    dataSaver: dataSaver === true,
  };
}

export const serializeChoice = (choice: QualityChoice) => JSON.stringify(choice);

export interface Rendition {
  /** hls.js's level index. */
  index: number;
  height: number;
  /** Bits per second, average where the playlist says it. */
  bitrate: number;
}

export function renditions(hls: Hls): Rendition[] {
  return hls.levels.map((level, index) => ({
    index,
    height: Math.min(level.height, level.width) || level.height,
    bitrate: level.averageBitrate || level.bitrate,
  }));
}

/** The highest rendition the data saver allows (the lowest one if none is small enough). */
export function dataSaverCap(list: Rendition[]): number {
  const allowed = list.filter((r) => r.height <= DATA_SAVER_HEIGHT);
  const pool = allowed.length ? allowed : list.slice(0, 1);
  return pool.reduce((best, r) => (r.height > best.height ? r : best), pool[0]!).index;
}

/**
 * The hls.js settings for a choice: auto (-1) or a fixed level, and the cap on auto. The data
 * saver wins over a fixed level above its cap.
 */
export function levelsFor(
  choice: QualityChoice,
  list: Rendition[],
): { level: number; cap: number } {
  const cap = choice.dataSaver ? dataSaverCap(list) : -1;
  if (choice.quality === 'auto') return { level: -1, cap };
  const chosen = list.find((r) => r.height === choice.quality);
  if (!chosen || (cap !== -1 && chosen.height > list[cap]!.height)) return { level: -1, cap };
  return { level: chosen.index, cap };
}

/** Megabytes that ten minutes of a rendition cost, for the menu. */
export const megabytesPer10Min = (bitrate: number) => Math.round((bitrate * 600) / 8 / 1e6);
