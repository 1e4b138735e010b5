/**
 * What a visitor's browser reports about a view, and how the server checks it (docs/decisions.md
 * #16). One format for both sides: the server validates every body with `parseFieldReport`; the
 * page needs only the types (`import type`), so that zod stays out of the visitors' bundles.
 *
 * Nothing here identifies a person: no address, no user-agent string, no password, no free text.
 * Every string is an enum or matches a short pattern, every number is bounded.
 */
import { z } from 'zod';
import { MAX_EVENTS, MAX_SEEN_RANGES } from './field-report-limits.js';

export { MAX_EVENTS, MAX_SEEN_RANGES };

/** Where the page sends reports (under the API's origin, like the signin). */
export const REPORTS_PATH = '/api/reports';

/** The format's version: a later, different format gets another number. */
const REPORT_FORMAT = 1;

/** A 16-byte random id in base64url (`crypto.getRandomValues`), as the page makes them. */
const RANDOM_ID = /^[A-Za-z0-9_-]{22}$/;
/** Longer than any training video; a second beyond it is impossible. */
const MAX_VIDEO_S = 24 * 3600;
/** More renditions than any ladder prepare-video makes (see media-layout's MAX_RUNGS). */
const MAX_RENDITIONS = 16;

/** Above the largest valid report (tests/server/reports.test.ts builds one), far below 64 KiB. */
export const REPORT_BODY_LIMIT = 8 * 1024;

const count = (max: number) => z.int().min(0).max(max);
const seconds = (max: number) => z.number().min(0).max(max);
/** A rendition by its short side, as the quality menu names it ("360p"). */
const rendition = z.string().regex(/^\d{2,4}p$/, 'must look like 360p');

const browser = z.strictObject({
  /** The family, from the user-agent string on the phone; the string itself never leaves it. */
  family: z.enum(['chrome', 'edge', 'firefox', 'safari', 'samsung', 'opera', 'other']),
  major: count(999),
  /** Chrome on an iPhone is WebKit: the engine is what plays the video. */
  engine: z.enum(['blink', 'gecko', 'webkit', 'other']),
});

/** Whose report: only the kind of device and browser, never which one. */
const sender = {
  format: z.literal(REPORT_FORMAT),
  /** The report's own id: a report sent twice (a retry, a replay) counts once. */
  id: z.string().regex(RANDOM_ID, 'must be 22 base64url characters'),
  browser,
  device: z.enum(['phone', 'desktop']),
};

/**
 * Whole video seconds seen, as `[from, to)`: the browser's played ranges with each end rounded to
 * the nearest second (a second counts when more than half of it played). Sorted, apart, inside the
 * video: a replay of a second does not count it twice.
 */
const seenRanges = z
  .array(z.tuple([count(MAX_VIDEO_S), count(MAX_VIDEO_S)]))
  .max(MAX_SEEN_RANGES)
  .superRefine((ranges, context) => {
    let end = -1;
    ranges.forEach(([from, to], index) => {
      if (from >= to)
        context.addIssue({ code: 'custom', path: [index], message: 'must have from < to' });
      else if (from <= end)
        context.addIssue({
          code: 'custom',
          path: [index],
          message: 'must start after the previous range ends (sorted, apart)',
        });
      end = Math.max(end, to);
    });
  });

/**
 * One view (a visit of the video screen), or a part of it: a page that is left and comes back
 * sends the next part with the same `view` and the next `part`. Counts are for this part only;
 * the summary adds the parts and joins their seen seconds (server/report-summary.ts).
 */
const viewReport = z
  .strictObject({
    ...sender,
    kind: z.literal('view'),
    /** The view's random id, made when the video screen opens; no two views share one. */
    view: z.string().regex(RANDOM_ID, 'must be 22 base64url characters'),
    /** 0 for the view's first report. */
    part: count(999),
    /** The video's length as the player knew it. */
    durationS: z.number().gt(0).max(MAX_VIDEO_S),
    /** From the press of "Ingresar" (first visit) or the navigation (return) to the first frame. */
    firstFrameMs: count(600_000).optional(),
    /** The page came from the service worker. */
    fromWorker: z.boolean().optional(),
    /** Played from the downloaded copy. */
    offline: z.boolean().optional(),
    stalls: count(10_000),
    stallS: seconds(MAX_VIDEO_S),
    seeks: count(10_000),
    mediaBytes: count(10 * 1024 ** 3),
    /** Seconds played at each rendition (replays included). */
    renditions: z
      .record(rendition, seconds(MAX_VIDEO_S))
      .refine((map) => Object.keys(map).length <= MAX_RENDITIONS, {
        message: `must name at most ${MAX_RENDITIONS} renditions`,
      }),
    /** What stopped or blocked playback, as a short code the page chose ("network", "key"). */
    error: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be a short lowercase code')
      .optional(),
    seen: seenRanges,
  })
  .superRefine((report, context) => {
    const last = report.seen.at(-1);
    if (last && last[1] > Math.round(report.durationS))
      context.addIssue({
        code: 'custom',
        path: ['seen', report.seen.length - 1],
        message: 'must end within the video (durationS)',
      });
  });

const downloadEvent = z.strictObject({
  type: z.literal('download'),
  outcome: z.enum(['started', 'finished', 'cancelled', 'noRoom']),
  rendition,
  bytes: count(10 * 1024 ** 3),
});

/** As web-vitals reports them: CLS unitless, the others in milliseconds. */
const vitalEvent = z.strictObject({
  type: z.literal('vital'),
  name: z.enum(['LCP', 'INP', 'CLS', 'FCP', 'TTFB']),
  value: z.number().min(0).max(600_000),
  /** web-vitals' metric id: a metric reported again (INP at each hide) keeps its last value. */
  metric: z.string().regex(/^v\d-[0-9a-z-]{1,60}$/, 'must be the id web-vitals gives'),
});

/** What happens outside a view: downloads and the page's Web Vitals, in one batch. */
const eventsReport = z.strictObject({
  ...sender,
  kind: z.literal('events'),
  events: z
    .array(z.discriminatedUnion('type', [downloadEvent, vitalEvent]))
    .min(1)
    .max(MAX_EVENTS),
});

const fieldReport = z.discriminatedUnion('kind', [viewReport, eventsReport]);

export type FieldReport = z.infer<typeof fieldReport>;
export type ViewReport = z.infer<typeof viewReport>;
export type EventsReport = z.infer<typeof eventsReport>;
export type VitalName = z.infer<typeof vitalEvent>['name'];

/** A report, or the first thing wrong with it: the field's path and what it must be. */
export type ParsedReport = { report: FieldReport } | { field: string; problem: string };

/** Untrusted JSON in; never throws. */
export function parseFieldReport(value: unknown): ParsedReport {
  const result = fieldReport.safeParse(value);
  if (result.success) return { report: result.data };
  const issue = result.error.issues[0];
  if (!issue) return { field: '(body)', problem: 'is not a report' };
  // An unknown field is named itself, not the object holding it.
  const unknown = issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [];
  const path = [...issue.path, ...unknown];
  return {
    field: path.length ? path.join('.') : '(body)',
    problem: unknown.length ? 'is not a field of a report' : issue.message,
  };
}
