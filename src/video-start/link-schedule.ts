/**
 * When the segments after the first may use the link, until hls.js takes over (first-frame.ts
 * asks them): on the slowest links hls.js's chunk comes seconds after the first frame, beside
 * the app's bundle (docs/benchmarks.md); sooner, it chooses the rendition.
 */
import type { EarlyAnswer } from './contract';

/** The segments appended after the first, at most (to 20 s). */
export const FOLLOW_MAX = 3;

/** Seconds ahead of a playing video below which the next segment is asked for. */
export const AHEAD_S = 10;

/**
 * The second segment leaves when the first's transfer (as estimated) is over, or the first has
 * come: its bytes then begin as the first's end, neither sharing the link with them (the frame
 * would wait) nor a round trip late (a play pressed at the frame would wait).
 */
export const secondSegmentAt = (firstAskedAt: number, firstMs: number) => firstAskedAt + firstMs;

/** Settles when the second segment may leave: at secondSegmentAt, or when the first has come. */
export const secondMayLeave = (first: EarlyAnswer, firstMs: number) =>
  Promise.race([
    first,
    new Promise((resolve) =>
      setTimeout(resolve, secondSegmentAt(first.askedAt, firstMs) - performance.now()),
    ),
  ]);

/**
 * Whether a segment after the second may leave: the video plays with less than AHEAD_S ahead,
 * buffered or on its way (`comingS`). Asked then, it comes in time on EDGE; on a faster link
 * hls.js has taken over before.
 */
export const runsLow = (
  {
    paused,
    bufferedEnd,
    currentTime,
  }: { paused: boolean; bufferedEnd: number; currentTime: number },
  comingS: number,
) => !paused && bufferedEnd + comingS - currentTime < AHEAD_S;
