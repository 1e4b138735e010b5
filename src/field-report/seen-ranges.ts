/**
 * The stretches of the video actually played, as [from, to) in seconds: a replay adds nothing,
 * a seek leaves a gap. The report sends them as whole seconds (config/field-report.ts).
 */
export type Range = [number, number];

/** `ranges` (sorted, apart) with [from, to) added; touching or overlapping ranges join. */
export function addRange(ranges: Range[], from: number, to: number): Range[] {
  if (!(to > from)) return ranges;
  const out: Range[] = [];
  let next: Range = [from, to];
  for (const range of ranges) {
    if (range[1] < next[0]) out.push(range);
    else if (range[0] > next[1]) {
      out.push(next);
      next = range;
    } else next = [Math.min(range[0], next[0]), Math.max(range[1], next[1])];
  }
  out.push(next);
  return out;
}

/**
 * Whole seconds, as the server counts them: each end rounded to the nearest second (a second
 * counts when more than half of it played), within the video, sorted and apart.
 */
export function wholeSeconds(ranges: Range[], durationS: number): Range[] {
  const end = Math.round(durationS);
  let out: Range[] = [];
  for (const [from, to] of ranges)
    out = addRange(out, Math.round(from), Math.min(Math.round(to), end));
  return out;
}
