/**
 * Reading a WebVTT track (the captions, the chapters) as plain text cues, and finding the cue
 * that plays at a time. Pure TypeScript: the transcript and the chapters list render from it,
 * on the server as in the browser.
 */

export interface Cue {
  startS: number;
  endS: number;
  /** The cue's text without tags, its lines joined by a space. */
  text: string;
}

/** A track larger than this is not the few kilobytes of captions we expect: refused. */
export const MAX_TRACK_LENGTH = 2_000_000;

const TIMING = /^((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})(?:\s|$)/;

const seconds = (stamp: string) =>
  stamp.split(':').reduce((total, part) => total * 60 + Number(part), 0);

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  nbsp: '\u00a0',
  lrm: '\u200e',
  rlm: '\u200f',
  quot: '"',
  apos: "'",
};

const plainText = (lines: string[]) =>
  lines
    .join(' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(\w+);/g, (entity, name: string) => ENTITIES[name] ?? entity)
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The cues of a WebVTT file, in the order they start; null when `text` is not WebVTT (an HTML
 * page, an empty answer, something too large). Never throws.
 */
export function parseWebVtt(text: string): Cue[] | null {
  if (text.length > MAX_TRACK_LENGTH) return null;
  // Stryker disable next-line StringLiteral: split always gives a first part.
  const [header = '', ...blocks] = text.replace(/\r\n?/g, '\n').split(/\n{2,}/);
  if (!/^\uFEFF?WEBVTT(?:[ \t\n]|$)/.test(header)) return null;
  const cues: Cue[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    // The timing line comes first, or after the cue's identifier; NOTE, STYLE and REGION blocks
    // have none.
    // Stryker disable next-line StringLiteral: an absent line only needs to fail the test.
    const at = TIMING.test(lines[0] ?? '') ? 0 : 1;
    // Stryker disable next-line StringLiteral: as above.
    const match = TIMING.exec(lines[at] ?? '');
    if (!match) continue;
    // Stryker disable next-line StringLiteral: both groups always match.
    const [, start = '', end = ''] = match;
    const startS = seconds(start);
    const endS = seconds(end);
    const cueText = plainText(lines.slice(at + 1));
    if (endS > startS && cueText) cues.push({ startS, endS, text: cueText });
  }
  // Stable: cues that start together keep the file's order.
  return cues.sort((a, b) => a.startS - b.startS);
}

/** Array.prototype.findLastIndex, which Safari has only from 15.4 (docs/browsers.md); null for none. */
function lastIndexOf<T>(items: readonly T[], matches: (item: T) => boolean): number | null {
  for (let index = items.length - 1; index >= 0; index--) if (matches(items[index]!)) return index;
  return null;
}

/** The cue playing at `timeS` (the last one to start, should several overlap), or null. */
export function cueAt(cues: readonly Cue[], timeS: number): number | null {
  return lastIndexOf(cues, (cue) => cue.startS <= timeS && timeS < cue.endS);
}

/**
 * The chapter playing at `timeS`: the last to start at or before it, whatever its end (a
 * chapter lasts until the next one). Null before the first.
 */
export function chapterAt(chapters: readonly { startS: number }[], timeS: number): number | null {
  return lastIndexOf(chapters, (chapter) => chapter.startS <= timeS);
}

/** Lower case, without accents: "Presión" and "presion" are the same word to a searcher. */
export const foldForSearch = (text: string) =>
  text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The indexes of the cues holding every word of `query` (all of them when it is blank). */
export function searchCues(cues: readonly Cue[], query: string): number[] {
  const words = foldForSearch(query).match(/\S+/g) ?? [];
  const matches: number[] = [];
  cues.forEach((cue, index) => {
    const text = foldForSearch(cue.text);
    if (words.every((word) => text.includes(word))) matches.push(index);
  });
  return matches;
}

/** 65 → "1:05", 3725 → "1:02:05": how the video's controls show a time. */
export function formatClock(timeS: number): string {
  const s = Math.max(0, Math.floor(timeS));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const secs = String(s % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${secs}` : `${minutes}:${secs}`;
}

/** The machine-readable duration for `<time dateTime>`, e.g. "PT1M5S". */
export const isoDuration = (timeS: number) => {
  const s = Math.max(0, Math.floor(timeS));
  return `PT${Math.floor(s / 3600)}H${Math.floor((s % 3600) / 60)}M${s % 60}S`;
};
