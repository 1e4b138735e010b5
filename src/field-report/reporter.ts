/**
 * The page's reporter: what the views and events become (reports), and when they travel. Never
 * before the page's first frame: until then reports are only kept. After it, in idle time; on
 * leaving the page (hidden, pagehide) with a beacon; when the link returns; later when the
 * server asks for it. Made once per page, only when reporting is on (pageReporter).
 */
import type { EventsReport, FieldReport } from '../../config/field-report';
import { MAX_EVENTS } from '../../config/field-report-limits';
import { resilientStorage } from '../auth/storage';
import { config } from '../config';
import { createReportQueue, type FlushEnd, type ReportQueue } from './report-queue';
import { randomId, senderOf, type Sender } from './sender';
import { recordView, type ViewFacts, type ViewPart, type ViewRecorder } from './view-recorder';
import { watchVitals } from './vitals-events';

export type FieldEvent = EventsReport['events'][number];

export interface Reporter {
  /** A view of `video` begins; the returned function ends it (its last part is kept). */
  watch(video: HTMLVideoElement, facts: Omit<ViewFacts, 'fromWorker'>): () => void;
  /** A download's step or a Web Vital: sent with the next batch. */
  event(event: FieldEvent): void;
}

/** The media's own requests (server/routes/media.ts), not its captions, chapters or poster. */
const isMedia = (url: string) =>
  (/\/api\/video(\/|$)/.test(url) || url === config.videoUrl) &&
  !/\.(vtt|jpe?g|png|json)(\?|$)/.test(url);

/** The page came from the service worker's copy, not the network (docs/offline.md). */
function pageFromWorker(): boolean {
  const [page] = (performance.getEntriesByType?.('navigation') ?? []) as
    PerformanceNavigationTiming[] | [];
  return !!page && page.workerStart > 0 && page.transferSize === 0;
}

/** In idle time (WebKit has no requestIdleCallback: a timeout there). */
const whenIdle = (run: () => void) =>
  typeof requestIdleCallback === 'function'
    ? // eslint-disable-next-line compat/compat -- feature-detected just above
      requestIdleCallback(run, { timeout: 5_000 })
    : setTimeout(run, 1_000);

/** Waits after a 429, a 503 or a failed request: doubling, from 30 s to 10 min. */
const RETRY_MS = [30_000, 60_000, 120_000, 300_000, 600_000];

export function createReporter({
  queue,
  sender,
  fromWorker = false,
}: {
  queue: ReportQueue;
  sender: Sender;
  fromWorker?: boolean;
}): Reporter {
  const views = new Set<ViewRecorder>();
  let events: FieldEvent[] = [];
  /** Whether a first frame showed in this page: only then does anything travel. */
  let open = false;
  let idleAsked = false;
  let retries = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Media bytes that came while no view was recording (the start's, before its screen). */
  let unclaimed = 0;

  const report = <R extends ViewPart | Pick<EventsReport, 'kind' | 'events'>>(body: R) =>
    ({ format: 1, id: randomId(), ...sender, ...body }) as FieldReport;

  function keepEvents() {
    while (events.length) {
      queue.add(report({ kind: 'events', events: events.slice(0, MAX_EVENTS) }));
      events = events.slice(MAX_EVENTS);
    }
  }

  function keepParts() {
    for (const view of views) {
      const part = view.takePart();
      if (part) queue.add(report(part));
    }
    keepEvents();
  }

  function ended(end: FlushEnd) {
    clearTimeout(retryTimer);
    if (end === 'sent' || end === 'refused') retries = 0;
    // With no signal said, the `online` event brings the next try; a refusal waits for a signin.
    if (end === 'later' || (end === 'offline' && navigator.onLine)) {
      retryTimer = setTimeout(flushSoon, RETRY_MS[Math.min(retries, RETRY_MS.length - 1)]);
      retries += 1;
    }
  }

  function flushSoon() {
    if (!open || idleAsked) return;
    idleAsked = true;
    whenIdle(() => {
      idleAsked = false;
      keepEvents();
      void queue.flush().then(ended);
    });
  }

  function leave() {
    keepParts();
    if (open) queue.beacon();
  }

  addEventListener('pagehide', leave);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') leave();
  });
  addEventListener('online', flushSoon);

  if (typeof PerformanceObserver === 'function')
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
          if (!isMedia(entry.name)) continue;
          const latest = [...views].pop();
          if (latest) latest.addBytes(entry.encodedBodySize);
          else unclaimed += entry.encodedBodySize;
        }
      }).observe({ type: 'resource', buffered: true });
    } catch {
      // No resource timing here: the bytes stay 0.
    }

  let leaveAsked = false;
  function event(next: FieldEvent) {
    events.push(next);
    if (events.length >= MAX_EVENTS) keepEvents();
    if (document.visibilityState !== 'hidden') return flushSoon();
    // Hidden already: the events that come in this task leave together.
    if (leaveAsked) return;
    leaveAsked = true;
    setTimeout(() => {
      leaveAsked = false;
      leave();
    });
  }

  /** web-vitals reports in its own visibilitychange listeners: ours runs after them. */
  function watchPageVitals() {
    watchVitals(event);
    addEventListener(
      'visibilitychange',
      () => document.visibilityState === 'hidden' && leave(),
      true,
    );
  }

  return {
    event,
    watch(video, facts) {
      const view = recordView(video, { ...facts, fromWorker });
      view.addBytes(unclaimed);
      unclaimed = 0;
      views.add(view);
      const frame = () => {
        if (!open) watchPageVitals();
        open = true;
        flushSoon();
      };
      if (view.started()) frame();
      else video.addEventListener('loadeddata', frame, { once: true });
      return () => {
        video.removeEventListener('loadeddata', frame);
        const part = view.takePart();
        if (part) queue.add(report(part));
        view.stop();
        views.delete(view);
        flushSoon();
      };
    },
  };
}

let page: Reporter | null | undefined;

/** The page's one reporter; null when reporting is off (REPORTS=off: nothing is sent). */
export function pageReporter(): Reporter | null {
  if (page !== undefined) return page;
  try {
    page = config.reportsUrl
      ? createReporter({
          queue: createReportQueue({ url: config.reportsUrl, storage: resilientStorage() }),
          sender: senderOf(navigator.userAgent),
          fromWorker: pageFromWorker(),
        })
      : null;
  } catch {
    // Whatever this browser lacks, the video plays on without reports.
    page = null;
  }
  return page;
}
