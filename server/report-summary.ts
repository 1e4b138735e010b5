import type { FieldReport, VitalName, ViewReport } from '../config/field-report.js';
import type { StoredReport } from './report-store.js';

/**
 * What the company reads about a period, from the stored reports: `npm run report` prints it and
 * the staff page draws it. One pass over the reports; a view's parts are joined here.
 */

/** The rule of decisions #16: a view completed when it saw this share of the video's seconds. */
const COMPLETED_SHARE = 0.9;

/** Seconds a view must see to count as completed, for a video of `videoSeconds`. */
export const completedAt = (videoSeconds: number) => Math.ceil(COMPLETED_SHARE * videoSeconds);

/** How many whole seconds the video has, as the page rounds its played ranges. */
export const wholeSeconds = (durationS: number) => Math.max(1, Math.round(durationS));

type Percentiles = { p50: number | null; p75: number | null; p95: number | null };

/**
 * web.dev's published thresholds at the 75th percentile: good up to the first, poor above the
 * second (CLS unitless, the others ms).
 */
const VITAL_THRESHOLDS: Record<VitalName, [good: number, poor: number]> = {
  LCP: [2500, 4000],
  INP: [200, 500],
  CLS: [0.1, 0.25],
  FCP: [1800, 3000],
  TTFB: [800, 1800],
};

type Rating = 'good' | 'needs-improvement' | 'poor';

const VITALS = Object.keys(VITAL_THRESHOLDS) as VitalName[];

function rating(name: VitalName, p75: number | null): Rating | null {
  if (p75 === null) return null;
  const [good, poor] = VITAL_THRESHOLDS[name];
  return p75 <= good ? 'good' : p75 <= poor ? 'needs-improvement' : 'poor';
}

export interface Summary {
  /** ISO dates of the period. */
  since: string;
  until: string;
  /** The length of `secondsWatched`: the served video's whole seconds. */
  videoSeconds: number;
  views: number;
  /** Sessions that sent anything: a phone that signed in twice counts twice. */
  devices: number;
  /** Views by kind of device. */
  deviceClasses: { phone: number; desktop: number };
  completed: number;
  /** For each whole second of the video, how many views saw it. */
  secondsWatched: number[];
  /** Views' time to the first frame. */
  firstFrameMs: Percentiles;
  /** Stalls per minute of playback, over every view. */
  stallsPerMinute: number | null;
  stallSeconds: number;
  minutesPlayed: number;
  offlineViews: number;
  /** Views that seeked at least once (skipped ahead or went back), over all their parts. */
  viewsWithSeeks: number;
  /** Views whose page came from the service worker. */
  fromWorker: number;
  /** Views that ended on an error, by the page's code. */
  errors: Record<string, number>;
  mediaBytes: number;
  downloads: {
    started: number;
    finished: number;
    cancelled: number;
    noRoom: number;
    /** Bytes of the finished downloads. */
    finishedBytes: number;
    /** Finished downloads by rendition. */
    renditions: Record<string, number>;
  };
  /** Seconds played at each rendition. */
  renditions: Record<string, number>;
  /** Views by browser family and major version, most first. */
  browsers: { family: string; major: number; engine: string; views: number }[];
  engines: Record<string, number>;
  /** The 75th percentile of each of the page's Web Vitals (CLS unitless, the others ms). */
  webVitals: Record<VitalName, { p75: number | null; count: number; rating: Rating | null }>;
}

/** Nearest rank: a value some report really had. */
function percentile(sorted: number[], share: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)]!;
}

interface View {
  seen: [number, number][];
  /** One part's ranges are sorted and apart already (the report's rule): only more are joined. */
  parts: number;
  durationS: number;
  firstFrameMs?: number;
  offline: boolean;
  fromWorker: boolean;
  seeks: number;
}

/** Sorted, joined ranges: a second seen in two parts of a view is seen once. */
function joined(ranges: [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = out.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** The map's entry for `key`, made by `make` the first time. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** Own keys only: an error code may well be "constructor". */
const bump = (map: Record<string, number>, key: string, by = 1) => {
  map[key] = (Object.hasOwn(map, key) ? map[key]! : 0) + by;
};

/** The summary's running sums; `result` needs the video's length. */
class SummaryBuilder {
  private readonly views = new Map<string, View>();
  private readonly devices = new Set<string>();
  /** Views by family, major version and engine: no key string is built per view. */
  private readonly browserViews = new Map<string, Map<number, Map<string, number>>>();
  private readonly vitals = new Map<string, { name: VitalName; value: number }>();
  private readonly sums = {
    phone: 0,
    desktop: 0,
    stalls: 0,
    stallSeconds: 0,
    playedSeconds: 0,
    mediaBytes: 0,
  };
  private readonly errors: Record<string, number> = {};
  private readonly renditions: Record<string, number> = {};
  private readonly downloads = {
    started: 0,
    finished: 0,
    cancelled: 0,
    noRoom: 0,
    finishedBytes: 0,
    renditions: {} as Record<string, number>,
  };

  add({ device, report }: StoredReport): void {
    this.devices.add(device);
    if (report.kind === 'view') this.addView(report);
    else this.addEvents(report);
  }

  private addView(report: ViewReport): void {
    let view = this.views.get(report.view);
    if (view) {
      view.seen = view.seen.concat(report.seen);
      view.parts += 1;
    } else {
      const { seen, durationS } = report;
      view = { seen, parts: 1, durationS, offline: false, fromWorker: false, seeks: 0 };
      this.views.set(report.view, view);
      this.sums[report.device] += 1;
      const { family, major, engine } = report.browser;
      const engines = entry(
        entry(this.browserViews, family, () => new Map()),
        major,
        () => new Map(),
      );
      engines.set(engine, (engines.get(engine) ?? 0) + 1);
    }
    // Said by whichever part saw it (parts may arrive in any order).
    if (report.firstFrameMs !== undefined)
      view.firstFrameMs = Math.min(view.firstFrameMs ?? Infinity, report.firstFrameMs);
    view.offline ||= report.offline === true;
    view.fromWorker ||= report.fromWorker === true;
    view.seeks += report.seeks;
    if (report.error) bump(this.errors, report.error);
    this.sums.stalls += report.stalls;
    this.sums.stallSeconds += report.stallS;
    this.sums.mediaBytes += report.mediaBytes;
    let played = 0;
    for (const name in report.renditions) {
      const seconds = report.renditions[name]!;
      played += seconds;
      bump(this.renditions, name, seconds);
    }
    // Without rendition seconds (the single MP4), the seconds seen stand for the playback.
    if (!played) for (const [from, to] of report.seen) played += to - from;
    this.sums.playedSeconds += played;
  }

  private addEvents(report: Extract<FieldReport, { kind: 'events' }>): void {
    for (const event of report.events) {
      if (event.type === 'vital') {
        // Reported again at each hide (INP, CLS): the last value stands.
        this.vitals.set(`${event.name} ${event.metric}`, event);
        continue;
      }
      this.downloads[event.outcome] += 1;
      if (event.outcome === 'finished') {
        this.downloads.finishedBytes += event.bytes;
        bump(this.downloads.renditions, event.rendition);
      }
    }
  }

  /** The video's length: the served publish's when known, else the length views reported most. */
  videoSeconds(servedDurationS: number | null): number {
    if (servedDurationS) return wholeSeconds(servedDurationS);
    const lengths = [...this.views.values()].map((view) => wholeSeconds(view.durationS));
    return (
      percentile(
        lengths.sort((a, b) => a - b),
        0.5,
      ) ?? 0
    );
  }

  result(period: { since: number; until: number }, servedDurationS: number | null): Summary {
    const videoSeconds = this.videoSeconds(servedDurationS);
    // A difference array: each view adds one at its ranges' starts and takes it back at their ends.
    const changes = new Array<number>(videoSeconds + 1).fill(0);
    let completed = 0;
    let offline = 0;
    let fromWorker = 0;
    let seeked = 0;
    const frames: number[] = [];
    for (const view of this.views.values()) {
      if (view.offline) offline += 1;
      if (view.fromWorker) fromWorker += 1;
      if (view.seeks > 0) seeked += 1;
      if (view.firstFrameMs !== undefined) frames.push(view.firstFrameMs);
      let seen = 0;
      for (const [from, to] of view.parts > 1 ? joined(view.seen) : view.seen) {
        const end = Math.min(to, videoSeconds);
        if (from >= end) continue;
        changes[from]! += 1;
        changes[end]! -= 1;
        seen += end - from;
      }
      if (videoSeconds > 0 && seen >= completedAt(videoSeconds)) completed += 1;
    }
    const secondsWatched: number[] = [];
    let running = 0;
    for (let second = 0; second < videoSeconds; second += 1) {
      running += changes[second]!;
      secondsWatched.push(running);
    }
    frames.sort((a, b) => a - b);
    const minutesPlayed = this.sums.playedSeconds / 60;
    const engines: Record<string, number> = {};
    const browsers: Summary['browsers'] = [];
    for (const [family, versions] of this.browserViews)
      for (const [major, byEngine] of versions)
        for (const [engine, views] of byEngine) {
          bump(engines, engine, views);
          browsers.push({ family, major, engine, views });
        }
    browsers.sort(
      (a, b) => b.views - a.views || a.family.localeCompare(b.family) || b.major - a.major,
    );
    const vitals = [...this.vitals.values()];
    const webVitals = Object.fromEntries(
      VITALS.map((name) => {
        const values = vitals.filter((v) => v.name === name).map((v) => v.value);
        const p75 = percentile(
          values.sort((a, b) => a - b),
          0.75,
        );
        return [name, { p75, count: values.length, rating: rating(name, p75) }];
      }),
    ) as Summary['webVitals'];
    return {
      since: new Date(period.since).toISOString(),
      until: new Date(period.until).toISOString(),
      videoSeconds,
      views: this.views.size,
      devices: this.devices.size,
      deviceClasses: { phone: this.sums.phone, desktop: this.sums.desktop },
      completed,
      secondsWatched,
      firstFrameMs: {
        p50: percentile(frames, 0.5),
        p75: percentile(frames, 0.75),
        p95: percentile(frames, 0.95),
      },
      stallsPerMinute: minutesPlayed > 0 ? this.sums.stalls / minutesPlayed : null,
      stallSeconds: this.sums.stallSeconds,
      minutesPlayed,
      offlineViews: offline,
      viewsWithSeeks: seeked,
      fromWorker,
      errors: this.errors,
      mediaBytes: this.sums.mediaBytes,
      downloads: this.downloads,
      renditions: this.renditions,
      browsers,
      engines,
      webVitals,
    };
  }
}

/** The summary of the reports received from `since` to `until` (a store's batches, or a list). */
export async function summarize(
  reports: AsyncIterable<StoredReport[]> | StoredReport[],
  period: { since: number; until: number },
  servedDurationS: number | null,
): Promise<Summary> {
  const builder = new SummaryBuilder();
  for await (const batch of Array.isArray(reports) ? [reports] : reports)
    for (const stored of batch) if (stored.at <= period.until) builder.add(stored);
  return builder.result(period, servedDurationS);
}
