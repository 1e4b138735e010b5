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
  const blocks = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/);
  if (!/^WEBVTT(?:[ \t\n]|$)/.test(blocks[0] ?? '')) return null;
  const cues: Cue[] = [];
  for (const block of blocks.slice(1)) {
    const lines = block.split('\n');
    // An optional identifier line, then the timing line; NOTE, STYLE and REGION have none.
    const at = lines.findIndex((line) => line.includes('-->'));
    if (at < 0 || at > 1) continue;
    const match = TIMING.exec(lines[at] ?? '');
    if (!match) continue;
    const startS = seconds(match[1] ?? '');
    const endS = seconds(match[2] ?? '');
    const cueText = plainText(lines.slice(at + 1));
    if (endS > startS && cueText) cues.push({ startS, endS, text: cueText });
  }
  // Stable: cues that start together keep the file's order.
  return cues.sort((a, b) => a.startS - b.startS);
}

/** The cue playing at `timeS` (the last one to start, should several overlap), or null. */
export function cueAt(cues: readonly Cue[], timeS: number): number | null {
  for (let index = cues.length - 1; index >= 0; index--) {
    const cue = cues[index];
    if (cue && cue.startS <= timeS && timeS < cue.endS) return index;
  }
  return null;
}

/**
 * The chapter playing at `timeS`: the last to start at or before it, whatever its end (a
 * chapter lasts until the next one). Null before the first.
 */
export function chapterAt(chapters: readonly { startS: number }[], timeS: number): number | null {
  let current: number | null = null;
  chapters.forEach((chapter, index) => {
    if (chapter.startS <= timeS) current = index;
  });
  return current;
}

/** Lower case, without accents: "Presión" and "presion" are the same word to a searcher. */
export const foldForSearch = (text: string) =>
  text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The indexes of the cues holding every word of `query` (all of them when it is blank). */
export function searchCues(cues: readonly Cue[], query: string): number[] {
  const words = foldForSearch(query).split(/\s+/).filter(Boolean);
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
