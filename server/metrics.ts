import type { FastifyInstance } from 'fastify';
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { FieldReport } from '../config/field-report.js';
import { ACCESS_PATH, KEY_FILE } from '../config/media-layout.js';
import { completedAt, wholeSeconds } from './report-summary.js';
import type { SessionStore } from './sessions.js';
import type { AttemptLimiter } from './signin-limiter.js';

/**
 * What an operator watches (Prometheus text on METRICS_PORT, never on the public port). Labels
 * are fixed words and route templates: never an address, a cookie, a token or a password.
 */

type SigninOutcome = 'accepted' | 'wrong_password' | 'limited' | 'store_unavailable';

/** What became of a visitor's report (a 401 or 429 is counted by the request counters). */
type ReportOutcome = 'stored' | 'duplicate' | 'invalid';

/** What the app served, by the route that served it. */
type ServedKind =
  | 'page'
  | 'asset'
  | 'playlist'
  | 'segment'
  | 'key'
  | 'video'
  | 'captions'
  | 'poster'
  | 'access'
  | 'api'
  | 'health'
  | 'other';

export interface Metrics {
  registry: Registry;
  signin(outcome: SigninOutcome): void;
  sessionsCreated: Counter;
  sessionsEnded: Counter;
  requests: Counter<'kind'>;
  bytes: Counter<'kind'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  storeErrors: Counter<'operation'>;
  storeDuration: Histogram<'operation'>;
  report(outcome: ReportOutcome): void;
  /** A report kept for the first time: the field's figures as they arrive. */
  fieldReport(report: FieldReport): void;
}

/** A registry of its own per server (tests build many); `process` adds prom-client's defaults. */
export function createMetrics({ process = false } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const signins = new Counter({
    name: 'signins_total',
    help: 'Signin attempts by outcome',
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of ['accepted', 'wrong_password', 'limited', 'store_unavailable'])
    signins.inc({ outcome }, 0);
  const metrics: Metrics = {
    registry,
    signin: (outcome) => signins.inc({ outcome }),
    sessionsCreated: new Counter({
      name: 'sessions_created_total',
      help: 'Sessions started by a signin',
      registers,
    }),
    sessionsEnded: new Counter({
      name: 'sessions_ended_total',
      help: 'Sessions ended by a signout or replaced by a new signin (expiry is silent)',
      registers,
    }),
    requests: new Counter({
      name: 'app_requests_total',
      help: 'Requests the app answered, by kind',
      labelNames: ['kind'],
      registers,
    }),
    bytes: new Counter({
      name: 'app_response_bytes_total',
      help: 'Body bytes the app sent (Content-Length), by kind',
      labelNames: ['kind'],
      registers,
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer, by route template',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    storeErrors: new Counter({
      name: 'store_errors_total',
      help: 'Store (Redis or memory) operations that failed',
      labelNames: ['operation'],
      registers,
    }),
    storeDuration: new Histogram({
      name: 'store_duration_seconds',
      help: 'Store operation latency',
      labelNames: ['operation'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    ...fieldMetrics(registers),
  };
  if (process) collectDefaultMetrics({ register: registry });
  return metrics;
}

/**
 * The phones' reports as they arrive (docs/decisions.md #16). The store's summary (`npm run
 * report`) joins a view's parts; these count each part alone: a view is counted by its first
 * part, and completed by a part that saw enough by itself.
 */
function fieldMetrics(registers: Registry[]): Pick<Metrics, 'report' | 'fieldReport'> {
  const reports = new Counter({
    name: 'field_reports_total',
    help: "Visitors' reports by outcome",
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of ['stored', 'duplicate', 'invalid']) reports.inc({ outcome }, 0);
  const counter = (name: string, help: string) => new Counter({ name, help, registers });
  const views = counter('field_views_total', 'Views reported by the phones');
  const completions = counter(
    'field_completions_total',
    'Views that saw at least 90% of the video',
  );
  const offline = counter('field_offline_views_total', 'Views played from a downloaded copy');
  const downloads = new Counter({
    name: 'field_downloads_total',
    help: 'Downloads by outcome',
    labelNames: ['outcome'],
    registers,
  });
  const firstFrame = new Histogram({
    name: 'field_first_frame_seconds',
    help: 'Time to the first frame on the phones (signin press or navigation to first frame)',
    buckets: [0.5, 1, 1.5, 2, 3, 4, 6, 8, 10, 15, 20, 30, 60],
    registers,
  });
  const stalls = new Histogram({
    name: 'field_stall_seconds',
    help: 'Seconds stalled per view report (0: it played without a stall)',
    buckets: [0, 0.5, 1, 2, 5, 10, 20, 60, 120],
    registers,
  });
  return {
    report: (outcome) => reports.inc({ outcome }),
    fieldReport: (report) => {
      reports.inc({ outcome: 'stored' });
      if (report.kind === 'events') {
        for (const event of report.events)
          if (event.type === 'download') downloads.inc({ outcome: event.outcome });
        return;
      }
      if (report.part === 0) views.inc();
      if (report.part === 0 && report.offline) offline.inc();
      if (report.firstFrameMs !== undefined) firstFrame.observe(report.firstFrameMs / 1000);
      stalls.observe(report.stallS);
      const seen = report.seen.reduce((total, [from, to]) => total + to - from, 0);
      if (seen >= completedAt(wholeSeconds(report.durationS))) completions.inc();
    },
  };
}

async function timed<T>(metrics: Metrics, operation: string, work: () => Promise<T>): Promise<T> {
  const end = metrics.storeDuration.startTimer({ operation });
  try {
    return await work();
  } catch (error) {
    metrics.storeErrors.inc({ operation });
    throw error;
  } finally {
    end();
  }
}

/** The session store, timed and counted. */
export function measuredSessions(store: SessionStore, metrics: Metrics): SessionStore {
  const { sessionsCreated, sessionsEnded } = metrics;
  return {
    create: async () => {
      const created = await timed(metrics, 'session_create', () => store.create());
      sessionsCreated.inc();
      return created;
    },
    get: (token) => timed(metrics, 'session_get', () => store.get(token)),
    delete: async (token) => {
      await timed(metrics, 'session_delete', () => store.delete(token));
      sessionsEnded.inc();
    },
    close: () => store.close(),
  };
}

/** The signin limiter's admission, timed (its one store round trip before the hash). */
export function measuredLimiter(limiter: AttemptLimiter, metrics: Metrics): AttemptLimiter {
  return {
    admit: (address) => timed(metrics, 'signin_admit', async () => limiter.admit(address)),
  };
}

function kindOf(route: string | undefined, url: string, base: string): ServedKind {
  if (!route) return 'other';
  if (route === `${base}/login` || route === `${base}/VideoPlayer`) return 'page';
  if (route === `${base}/*`) return 'asset';
  if (route === '/api/video/hls/master.m3u8') return 'playlist';
  if (route === '/api/video/hls/:rung/:file' || route === '/api/video/hls/:version/:rung/:file') {
    const path = url.split('?', 1)[0]!;
    if (path.endsWith(`/${KEY_FILE}`)) return 'key';
    return path.endsWith('.m3u8') ? 'playlist' : 'segment';
  }
  if (route === '/api/video') return 'video';
  if (route.endsWith('.vtt')) return 'captions';
  if (route === '/api/video/poster.jpg') return 'poster';
  if (route === ACCESS_PATH) return 'access';
  if (route.startsWith('/api/')) return 'api';
  if (route === '/livez' || route === '/readyz') return 'health';
  return 'other';
}

/** Counts every answer: kind, bytes and the time it took. */
export function measureRequests(app: FastifyInstance, metrics: Metrics, base: string) {
  const { requests, bytes, duration } = metrics;
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    const kind = kindOf(route, request.url, base);
    requests.inc({ kind });
    const length = Number(reply.getHeader('content-length'));
    if (request.method !== 'HEAD' && Number.isFinite(length)) bytes.inc({ kind }, length);
    duration.observe(
      { method: request.method, route: route ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

/** The metrics' own listener: `GET /metrics`, nothing else. */
export function metricsServer(metrics: Metrics): Server {
  return createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
}
