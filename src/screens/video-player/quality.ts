import type { MediaInfo } from '../../../config/media-layout';
import { SEGMENT_S } from '../../../config/media-layout';
import type { SessionStorage } from '../../../machines/session';
import type { Levels, LinkHint, Rendition } from '../../video-start/contract';

/**
 * The visitor's say over the adaptive video and the start's choice of a rendition: pure, so that
 * the boot script and the Player decide alike. A new choice in the quality menu is a field of
 * QualityChoice, its line in parseChoice and in allowed(), and its control in quality-menu.tsx.
 */

/** The visitor's choice, remembered on this device. */
export interface QualityChoice {
  /** 'auto', or the height of the rendition chosen. */
  quality: 'auto' | number;
  /** Caps automatic quality at DATA_SAVER_HEIGHT. */
  dataSaver: boolean;
}

const QUALITY_KEY = 'videoQuality';
/** Data saver: about 200 kbit/s, under 100 MB an hour. */
const DATA_SAVER_HEIGHT = 240;
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

/** The one place the choice is read from and written to this device. */
export const readChoice = (storage: SessionStorage) => parseChoice(storage.getItem(QUALITY_KEY));
export const saveChoice = (storage: SessionStorage, choice: QualityChoice) =>
  storage.setItem(QUALITY_KEY, serializeChoice(choice));

/**
 * The one rule for the renditions a choice allows, among `list` (lowest first): the data saver
 * keeps those at DATA_SAVER_HEIGHT or less (the lowest one if none is that small).
 */
export function allowed<T extends { height: number }>(choice: QualityChoice, list: T[]): T[] {
  if (!choice.dataSaver) return list;
  const small = list.filter((r) => r.height <= DATA_SAVER_HEIGHT);
  return small.length ? small : list.slice(0, 1);
}

/** The highest rendition the data saver allows. */
export function dataSaverCap(list: Rendition[]): number {
  const pool = allowed({ ...DEFAULT_CHOICE, dataSaver: true }, list);
  return pool.reduce((best, r) => (r.height > best.height ? r : best), pool[0]!).index;
}

/**
 * The hls.js settings for a choice: auto (-1) or a fixed level, and the cap on auto. A fixed
 * level the choice does not allow (the data saver's cap) is automatic instead.
 */
export function levelsFor(choice: QualityChoice, list: Rendition[]): Levels {
  const cap = choice.dataSaver ? dataSaverCap(list) : -1;
  const chosen = allowed(choice, list).find((r) => r.height === choice.quality);
  return { level: chosen ? chosen.index : -1, cap };
}

/** Megabytes that ten minutes of a rendition cost, for the menu. */
export const megabytesPer10Min = (bitrate: number) => Math.round((bitrate * 600) / 8 / 1e6);

/** Kept for the next visit: the link's last measured speed (hls.js's own estimate). */
const ESTIMATE_KEY = 'videoBandwidthEstimate';
/** hls.js's own default, when nothing better is known. */
const DEFAULT_ESTIMATE_BPS = 500_000;

/**
 * The link's speed, best guess first: this device's last measurement on this site, else the
 * browser's own estimate of the link, else hls.js's default.
 */
export function readEstimate(storage: SessionStorage, hint?: LinkHint): number {
  const stored = Number(storage.getItem(ESTIMATE_KEY));
  if (Number.isFinite(stored) && stored >= 50_000 && stored <= 100_000_000) return stored;
  const downlink = (hint?.downlink ?? 0) * 1e6;
  return downlink >= 50_000 ? downlink : DEFAULT_ESTIMATE_BPS;
}

export function saveEstimate(storage: SessionStorage, bps: number): void {
  if (Number.isFinite(bps) && bps > 0) storage.setItem(ESTIMATE_KEY, String(Math.round(bps)));
}

/**
 * How long the first segment may take at the estimated speed. The first frame waits for its first
 * fragment and playback for the rest, so the start is a rendition the link brings in a second;
 * hls.js climbs from there once it has measured the link.
 */
const START_SEGMENT_S = 1;

type Rung = MediaInfo['rungs'][number];

/**
 * The rendition to start with, among `rungs` (lowest first): the visitor's fixed choice if it is
 * allowed, else the highest whose first segment comes within START_SEGMENT_S (the lowest if none
 * does).
 */
export function startRung(rungs: Rung[], choice: QualityChoice, estimateBps: number): Rung {
  const pool = allowed(choice, rungs);
  const fixed = pool.find((r) => r.height === choice.quality);
  if (fixed) return fixed;
  const quick = pool.filter((r) => (r.peakBandwidth * SEGMENT_S) / estimateBps <= START_SEGMENT_S);
  return quick[quick.length - 1] ?? pool[0]!;
}
