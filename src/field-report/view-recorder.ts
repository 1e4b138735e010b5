/**
 * One view of the video (a visit of a screen that plays it), recorded from its <video> alone:
 * what was seen, the stalls, seeks, renditions and the error, cut into parts that each say only
 * what happened since the last (config/field-report.ts, docs/field-reports.md).
 */
import type { ViewReport } from '../../config/field-report';
import { MAX_SEEN_RANGES } from '../../config/field-report-limits';
import { randomId } from './sender';
import { addRange, wholeSeconds, type Range } from './seen-ranges';

/** A part of the view, less who sends it (the reporter adds that). */
export type ViewPart = Omit<ViewReport, 'format' | 'id' | 'browser' | 'device'>;

export interface ViewFacts {
  /** performance.now() at the first frame and at the press that led to it (video-start.ts). */
  timing: () => { pressAt: number | null; firstFrameAt: number | null };
  /** Whether what plays now comes from the downloaded copy. */
  fromCopy: () => boolean;
  /** The page came from the service worker. */
  fromWorker: boolean;
  /** The video's length before the element knows it (the page's media info). */
  durationS: number | null;
  now?: () => number;
}

export interface ViewRecorder {
  /** Media bytes that arrived for this view. */
  addBytes(bytes: number): void;
  /** Whether the first frame showed (nothing is sent before it). */
  started(): boolean;
  /** What happened since the last part, or null when nothing did. */
  takePart(): ViewPart | null;
  stop(): void;
}

/** A timeupdate step longer than this is a jump the element did not call a seek. */
const MAX_STEP_S = 3;

const ERRORS: Record<number, string> = {
  1: 'aborted',
  2: 'network',
  3: 'decode',
  4: 'unsupported',
};

const tenths = (value: number) => Math.round(value * 10) / 10;

export function recordView(video: HTMLVideoElement, facts: ViewFacts): ViewRecorder {
  const now = facts.now ?? (() => performance.now());
  const view = randomId();
  let part = 0;
  let frameSent = false;
  let frame = video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA;
  let last: number | null = video.seeking ? null : video.currentTime;
  let stallFrom: number | null = null;
  let counts = fresh();
  // Made after the first frame (page-reports.ts): what played until now, the element knows.
  const played = video.played;
  for (let i = 0; i < (played?.length ?? 0); i++)
    counts.seen = addRange(counts.seen, played.start(i), played.end(i));

  function fresh() {
    return {
      seen: [] as Range[],
      stalls: 0,
      stallS: 0,
      seeks: 0,
      mediaBytes: 0,
      renditions: {} as Record<string, number>,
      offline: false,
      error: undefined as string | undefined,
    };
  }

  const endStall = () => {
    if (stallFrom === null) return;
    counts.stallS += (now() - stallFrom) / 1000;
    stallFrom = null;
  };

  const started = () => frame || facts.timing().firstFrameAt !== null;

  const on: Record<string, () => void> = {
    loadeddata: () => (frame = true),
    timeupdate: () => {
      const time = video.currentTime;
      if (last !== null && !video.seeking && time > last && time - last <= MAX_STEP_S) {
        counts.seen = addRange(counts.seen, last, time);
        const side = Math.min(video.videoWidth, video.videoHeight);
        if (side >= 10) {
          const name = `${side}p`;
          counts.renditions[name] = (counts.renditions[name] ?? 0) + time - last;
        }
        if (facts.fromCopy()) counts.offline = true;
      }
      last = video.seeking ? null : time;
    },
    seeking: () => {
      if (started()) counts.seeks += 1;
      last = null;
      endStall();
    },
    seeked: () => (last = video.currentTime),
    // A stall: the first frame is in and the video waits for data it did not seek to.
    waiting: () => {
      if (!started() || video.seeking || stallFrom !== null) return;
      counts.stalls += 1;
      stallFrom = now();
    },
    playing: () => {
      last ??= video.seeking ? null : video.currentTime;
      endStall();
    },
    pause: endStall,
    ended: endStall,
    // A new source (hls.js taking over, the MP4 instead): its first timeupdate starts anew.
    emptied: () => {
      last = null;
      endStall();
    },
    error: () => {
      const code = video.error?.code;
      counts.error = (code && ERRORS[code]) || 'media';
      endStall();
    },
  };
  for (const [event, listener] of Object.entries(on)) video.addEventListener(event, listener);

  return {
    addBytes: (bytes) => void (counts.mediaBytes += bytes),
    started,
    takePart() {
      const element = video.duration;
      const durationS =
        Number.isFinite(element) && element > 0 ? element : (facts.durationS ?? NaN);
      if (!(durationS > 0)) return null;
      if (stallFrom !== null) {
        const at = now();
        counts.stallS += (at - stallFrom) / 1000;
        stallFrom = at;
      }
      const seen = wholeSeconds(counts.seen, durationS);
      const { pressAt, firstFrameAt } = facts.timing();
      const firstFrameMs =
        !frameSent && firstFrameAt !== null ? Math.round(firstFrameAt - (pressAt ?? 0)) : null;
      const news =
        seen.length ||
        counts.stalls ||
        counts.stallS ||
        counts.seeks ||
        counts.error ||
        counts.mediaBytes ||
        firstFrameMs !== null;
      if (!news) return null;
      const report: ViewPart = {
        kind: 'view',
        view,
        part,
        durationS: Math.round(durationS * 100) / 100,
        ...(firstFrameMs !== null && firstFrameMs >= 0 && firstFrameMs <= 600_000
          ? { firstFrameMs }
          : {}),
        ...(firstFrameMs !== null && facts.fromWorker ? { fromWorker: true } : {}),
        ...(counts.offline ? { offline: true } : {}),
        stalls: counts.stalls,
        stallS: tenths(counts.stallS),
        seeks: counts.seeks,
        mediaBytes: Math.round(counts.mediaBytes),
        renditions: Object.fromEntries(
          Object.entries(counts.renditions).map(([name, seconds]) => [name, tenths(seconds)]),
        ),
        ...(counts.error ? { error: counts.error } : {}),
        // More stretches than a report holds wait for the next part.
        seen: seen.slice(0, MAX_SEEN_RANGES),
      };
      if (firstFrameMs !== null) frameSent = true;
      part += 1;
      const rest = seen.slice(MAX_SEEN_RANGES);
      counts = fresh();
      counts.seen = rest;
      return report;
    },
    stop() {
      for (const [event, listener] of Object.entries(on))
        video.removeEventListener(event, listener);
    },
  };
}
