/**
 * The chapters file an operator writes by hand, and the WebVTT chapters track made from it.
 * Pure TypeScript (no DOM, no Node): `prepare-video` and the app can both import it.
 *
 * One chapter a line, `MM:SS Title` or `HH:MM:SS Title`; blank lines are skipped:
 *
 *     00:00 Presentación
 *     01:30 Elección del terreno
 *     1:02:05 Extracción
 */

export interface Chapter {
  startS: number;
  title: string;
}

/** One problem of the file; `line` counts from 1, null for the file as a whole. */
export interface ChaptersProblem {
  line: number | null;
  message: string;
}

export type ChaptersResult =
  { ok: true; chapters: Chapter[] } | { ok: false; problems: ChaptersProblem[] };

/** A title longer than this is a paragraph pasted by mistake, not a chapter's name. */
const MAX_TITLE_LENGTH = 120;

// H:MM:SS or M:SS (hours and minutes of any width), then the title after some whitespace.
const LINE = /^((?:(\d+):)?(\d+):(\d+))(?:\s+(.*))?$/;

const pad = (n: number) => String(n).padStart(2, '0');

/** 75 → "01:15", 3725 → "1:02:05": the way the operator writes it. */
export function formatChapterTime(seconds: number): string {
  const s = Math.floor(seconds);
  const hours = Math.floor(s / 3600);
  const rest = `${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  return hours ? `${hours}:${rest}` : rest;
}

/** Shown in messages: a long line is cut, not echoed whole. */
const quote = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/**
 * The chapters of `text`, or every problem found (all of them, so that the operator fixes the
 * file in one pass). `durationS`, when known, also refuses chapters that start after the end.
 * Never throws.
 */
export function parseChapters(text: string, options: { durationS?: number } = {}): ChaptersResult {
  const problems: ChaptersProblem[] = [];
  const chapters: Chapter[] = [];
  let previous: { startS: number; line: number } | undefined;
  const lastS = options.durationS ?? Infinity;

  // Each line is trimmed, which also drops a byte-order mark.
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (!trimmed) return;
    const problem = (message: string) => problems.push({ line, message });
    const match = LINE.exec(trimmed);
    if (!match) {
      problem(
        `${quote(trimmed)} does not start with a time: write "MM:SS Title" or "HH:MM:SS Title"`,
      );
      return;
    }
    // Stryker disable next-line StringLiteral: the time's groups always match; the defaults are for the type checker.
    const [, time = '', hoursText, minutesText = '', secondsText = '', title = ''] = match;
    const hours = Number(hoursText ?? 0);
    const minutes = Number(minutesText);
    const seconds = Number(secondsText);
    if (secondsText.length !== 2 || (hoursText !== undefined && minutesText.length !== 2)) {
      problem(`"${time}" is not a time: write MM:SS or HH:MM:SS, two digits after each colon`);
      return;
    }
    if (minutes > 59 || seconds > 59) {
      problem(
        `"${time}" is not a time: minutes and seconds go from 00 to 59 (write 1:15:00, not 75:00)`,
      );
      return;
    }
    if (!title) {
      problem(`the chapter at ${time} has no title: write "${time} Title"`);
      return;
    }
    if (title.length > MAX_TITLE_LENGTH) {
      problem(`the title is ${title.length} characters long; at most ${MAX_TITLE_LENGTH}`);
      return;
    }
    // A WebVTT cue's text may not hold "-->": the track would end the cue there.
    if (title.includes('-->')) {
      problem('a title cannot contain "-->"');
      return;
    }
    const startS = hours * 3600 + minutes * 60 + seconds;
    if (previous && startS < previous.startS) {
      problem(
        `${time} comes before the chapter on line ${previous.line} (${formatChapterTime(previous.startS)}): list the chapters in the order they play`,
      );
      return;
    }
    if (previous && startS === previous.startS) {
      problem(`${time} is already the start of the chapter on line ${previous.line}`);
      return;
    }
    if (startS >= lastS) {
      problem(`${time} is not before the end of the video (${formatChapterTime(lastS)})`);
      return;
    }
    previous = { startS, line };
    chapters.push({ startS, title });
  });

  if (!problems.length && !chapters.length)
    problems.push({
      line: null,
      message: 'the file has no chapters: write one "MM:SS Title" a line',
    });
  return problems.length ? { ok: false, problems } : { ok: true, chapters };
}

/** "line 3: ..." for a terminal. */
export const describeProblem = ({ line, message }: ChaptersProblem) =>
  line === null ? message : `line ${line}: ${message}`;

const vttTime = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const secs = Math.floor((ms % 60_000) / 1000);
  return `${pad(hours)}:${pad(minutes)}:${pad(secs)}.${String(ms % 1000).padStart(3, '0')}`;
};

const escapeCueText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A WebVTT chapters track (kind="chapters"): each chapter lasts until the next one starts, the
 * last one until `durationS` (at least a second, should the duration be short or unknown).
 */
export function chaptersToWebVtt(chapters: readonly Chapter[], durationS: number): string {
  const cues = chapters.map((chapter, index) => {
    const next = chapters[index + 1];
    const endS = next ? next.startS : Math.max(durationS, chapter.startS + 1);
    return `capitulo-${index + 1}\n${vttTime(chapter.startS)} --> ${vttTime(endS)}\n${escapeCueText(chapter.title)}\n`;
  });
  return ['WEBVTT\nKind: chapters\nLanguage: es\n', ...cues].join('\n');
}
