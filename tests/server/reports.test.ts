/**
 * The visitors' reports (decisions #16) through the real server: the route's gate, cap,
 * validation, dedupe and limit; the file store in a temporary DATA_DIR and a real redis-server;
 * the summary's seconds watched; `npm run report` as an operator runs it.
 */
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventsReport, randomId, viewReport } from './field-reports.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_EVENTS,
  MAX_SEEN_RANGES,
  REPORT_BODY_LIMIT,
  REPORTS_PATH,
  type EventsReport,
  type ViewReport,
} from '../../config/field-report.js';
import { clientConfig } from '../../config/settings.js';
import { startRedis, type RedisServer } from '../../scripts/test-support/redis-server.js';
import { FileReportStore, REPORTS_FILE } from '../../server/file-report-store.js';
import { createMetrics } from '../../server/metrics.js';
import { summarize } from '../../server/report-summary.js';
import { RedisReportStore } from '../../server/redis-report-store.js';
import type { ReportStore, StoredReport } from '../../server/report-store.js';
import {
  cheapPasswordHash,
  fakeClock,
  listen,
  logCapture,
  REPO,
  sessionCookie,
  signin,
  signinBody,
  SIGNOUT,
  testServer,
} from './helpers.js';

const DAY_MS = 24 * 3600 * 1000;

const post = (cookie: string | null, body: unknown, type = 'text/plain;charset=UTF-8') => ({
  method: 'POST' as const,
  url: REPORTS_PATH,
  headers: { 'content-type': type, ...(cookie ? { cookie } : {}) },
  payload: typeof body === 'string' ? body : JSON.stringify(body),
});

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'reports-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The file store's lines, as the server left them. */
const storedLines = () => {
  const file = join(dataDir, REPORTS_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

/** A real hash that takes milliseconds: these tests sign in often, on a busy machine. */
const PASSWORD = 'una-clave-de-prueba';
const PASSWORD_HASH = cheapPasswordHash(PASSWORD);

async function signedIn(env: Record<string, string> = {}, deps = {}) {
  const app = await testServer({ DATA_DIR: dataDir, PASSWORD_HASH, ...env }, deps);
  return { app, cookie: await newSession(app) };
}

async function newSession(app: FastifyInstance): Promise<string> {
  return sessionCookie((await signin(app, PASSWORD)).headers['set-cookie']);
}

describe('POST /api/reports', () => {
  it('takes the JSON that sendBeacon sends as text/plain, and application/json, answering 204', async () => {
    const { app, cookie } = await signedIn();
    const first = viewReport();
    const second = viewReport();
    const beacon = await app.inject(post(cookie, first));
    expect(beacon.statusCode).toBe(204);
    expect(beacon.headers['cache-control']).toBe('no-store');
    expect((await app.inject(post(cookie, second, 'application/json'))).statusCode).toBe(204);
    const lines = storedLines().map((line) => JSON.parse(line) as StoredReport);
    expect(lines.map((line) => line.report)).toEqual([first, second]);
    // The session's digest, the same for both; never the cookie's token.
    expect(lines[0]!.device).toBe(lines[1]!.device);
    const token = decodeURIComponent(cookie.split('=')[1]!).split('.')[0]!;
    expect(storedLines().join('')).not.toContain(token);
    await app.close();
  });

  it('writes nothing to the log for a report, kept or refused: a line per view would double the log', async () => {
    const log = logCapture();
    const { app, cookie } = await signedIn({ LOG_LEVEL: 'info' }, { logStream: log.stream });
    const before = log.lines.length;
    for (const body of [viewReport(), { ...viewReport(), stalls: -1 }])
      await app.inject(post(cookie, body));
    await app.inject(post(null, viewReport()));
    expect(log.lines.slice(before)).toEqual([]);
    await app.close();
  });

  it('refuses a report with no session, a forged cookie or a session ended by signout (401), and stores nothing', async () => {
    const { app, cookie } = await signedIn();
    expect((await app.inject(post(null, viewReport()))).statusCode).toBe(401);
    expect((await app.inject(post('sid=forged.signature', viewReport()))).statusCode).toBe(401);
    await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie } });
    const ended = await app.inject(post(cookie, viewReport()));
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toMatchObject({ error: 'unauthorized' });
    expect(storedLines()).toEqual([]);
    await app.close();
  });

  it.each([
    ['a count as text', { stalls: '3' }, 'stalls'],
    ['negative seconds', { stallS: -1 }, 'stallS'],
    ['a negative second seen', { seen: [[-1, 5]] }, 'seen.0.0'],
    ['seconds past the video', { seen: [[80, 95]] }, 'seen.0'],
    [
      'overlapping ranges',
      {
        seen: [
          [0, 20],
          [10, 30],
        ],
      },
      'seen.1',
    ],
    ['an empty range', { seen: [[5, 5]] }, 'seen.0'],
    ['a fraction of a second', { seen: [[0, 2.5]] }, 'seen.0.1'],
    ['an unknown field', { ua: 'Mozilla/5.0 (Linux; Android 14)' }, 'ua'],
    [
      'a browser with its raw user-agent',
      { browser: { family: 'chrome', major: 1, engine: 'blink', ua: 'x' } },
      'browser.ua',
    ],
    ['free text as the error', { error: 'Juan Pérez, 11 5555 5555' }, 'error'],
    ['another format', { format: 2 }, 'format'],
    ['no view id', { view: undefined }, 'view'],
  ] as [string, Record<string, unknown>, string][])(
    'answers 400 naming the field for %s, and stores nothing',
    async (_name, change, field) => {
      const { app, cookie } = await signedIn();
      const response = await app.inject(post(cookie, { ...viewReport(), ...change }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_report', field });
      expect(response.json().message).toContain(field);
      expect(storedLines()).toEqual([]);
      await app.close();
    },
  );

  it('answers 400 for a body that is not JSON, 415 for a form, and stores nothing', async () => {
    const { app, cookie } = await signedIn();
    expect((await app.inject(post(cookie, '{"kind":'))).statusCode).toBe(400);
    expect((await app.inject(post(cookie, 'null'))).statusCode).toBe(400);
    expect(
      (await app.inject(post(cookie, 'kind=view', 'application/x-www-form-urlencoded'))).statusCode,
    ).toBe(415);
    expect(storedLines()).toEqual([]);
    await app.close();
  });

  it('caps the body with a clear 413, and the largest valid reports fit under the cap', async () => {
    const { app, cookie } = await signedIn({ REPORTS_PER_MINUTE: '100' });
    // The longest number JSON writes for a value the format accepts.
    const tiny = 2 ** -1022;
    expect(JSON.stringify(tiny)).toHaveLength(23);
    const largestView = viewReport({
      browser: { family: 'samsung', major: 999, engine: 'webkit' },
      part: 999,
      durationS: 86_400,
      firstFrameMs: 600_000,
      fromWorker: true,
      offline: true,
      stalls: 10_000,
      stallS: tiny,
      seeks: 10_000,
      mediaBytes: 10 * 1024 ** 3,
      renditions: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${9000 + i}p`, tiny])),
      error: 'e'.repeat(32),
      seen: Array.from({ length: MAX_SEEN_RANGES }, (_, i) => [80_000 + 2 * i, 80_001 + 2 * i]),
    });
    const largestEvents = eventsReport(
      Array.from({ length: MAX_EVENTS }, () => ({
        type: 'vital' as const,
        name: 'TTFB' as const,
        value: tiny,
        metric: `v5-${'9'.repeat(60)}`,
      })),
    );
    for (const report of [largestView, largestEvents]) {
      expect(Buffer.byteLength(JSON.stringify(report))).toBeLessThan(REPORT_BODY_LIMIT);
      expect((await app.inject(post(cookie, report))).statusCode).toBe(204);
    }
    const large = await app.inject(
      post(cookie, { ...viewReport(), padding: 'x'.repeat(REPORT_BODY_LIMIT) }),
    );
    expect(large.statusCode).toBe(413);
    expect(large.json()).toEqual({
      error: 'payload_too_large',
      message: `El informe supera los ${REPORT_BODY_LIMIT} bytes que se aceptan.`,
    });
    expect(storedLines()).toHaveLength(2);
    await app.close();
  });

  it('counts a report sent twice once, and says 204 both times', async () => {
    const metrics = createMetrics();
    const { app, cookie } = await signedIn({}, { metrics });
    const report = viewReport();
    for (let i = 0; i < 3; i += 1)
      expect((await app.inject(post(cookie, report))).statusCode).toBe(204);
    // Sent again at once, as a page's hide and pagehide both flush.
    const again = viewReport();
    const both = await Promise.all([
      app.inject(post(cookie, again)),
      app.inject(post(cookie, again)),
    ]);
    expect(both.map((r) => r.statusCode)).toEqual([204, 204]);
    expect(storedLines()).toHaveLength(2);
    const outcomes = (await metrics.registry.getSingleMetric('field_reports_total')!.get()).values;
    expect(Object.fromEntries(outcomes.map((v) => [v.labels.outcome, v.value]))).toEqual({
      stored: 2,
      duplicate: 3,
      invalid: 0,
    });
    await app.close();
  });

  it('limits reports per session (429 beyond REPORTS_PER_MINUTE); another session is not held back', async () => {
    const { app, cookie } = await signedIn({ REPORTS_PER_MINUTE: '3' });
    const statuses = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push((await app.inject(post(cookie, viewReport()))).statusCode);
    expect(statuses).toEqual([204, 204, 204, 429, 429]);
    const other = await newSession(app);
    expect((await app.inject(post(other, viewReport()))).statusCode).toBe(204);
    expect(storedLines()).toHaveLength(4);
    await app.close();
  });

  it('with REPORTS=off answers 404, stores nothing, and the built page gets no address to send to', async () => {
    const { app, cookie } = await signedIn({ REPORTS: 'off' });
    const response = await app.inject(post(cookie, viewReport()));
    expect(response.statusCode).toBe(404);
    expect(storedLines()).toEqual([]);
    expect(existsSync(join(dataDir, REPORTS_FILE))).toBe(false);
    expect(clientConfig({ REPORTS: 'off' }).reportsUrl).toBe('');
    expect(clientConfig({}).reportsUrl).toBe(REPORTS_PATH);
    await app.close();
  });

  it('feeds Prometheus as reports arrive: views, completions, offline views, first frame and stalls', async () => {
    const metrics = createMetrics();
    const { app, cookie } = await signedIn({}, { metrics });
    const whole = viewReport({ seen: [[0, 81]], offline: true, firstFrameMs: 900 });
    const later = viewReport({
      view: whole.view,
      part: 1,
      firstFrameMs: undefined,
      seen: [[81, 90]],
    });
    for (const report of [whole, later, viewReport()])
      expect((await app.inject(post(cookie, report))).statusCode).toBe(204);
    const value = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values;
    expect((await value('field_views_total'))[0]!.value).toBe(2);
    expect((await value('field_completions_total'))[0]!.value).toBe(1);
    expect((await value('field_offline_views_total'))[0]!.value).toBe(1);
    const count = (values: { metricName?: string; value: number }[]) =>
      values.find((v) => v.metricName?.endsWith('_count'))!.value;
    expect(count(await value('field_first_frame_seconds'))).toBe(2);
    expect(count(await value('field_stall_seconds'))).toBe(3);
    await app.close();
  });

  it('a flood of reports does not hold back a signin or the video: each answers within a fraction of the flood', async () => {
    // A low signin ceiling: reports from the same address must never count against it.
    const { app, cookie } = await signedIn({
      REPORTS_PER_MINUTE: '300',
      SIGNIN_MAX_REQUESTS_PER_MINUTE: '100',
    });
    const origin = await listen(app);
    const total = 600;
    let sent = 0;
    let answered = 0;
    const statuses: Record<number, number> = {};
    // Senders on kept-alive connections, each posting again as soon as it is answered.
    const sender = async () => {
      while (sent < total) {
        sent += 1;
        const response = await fetch(`${origin}${REPORTS_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8', cookie },
          body: JSON.stringify(viewReport()),
        });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        answered += 1;
      }
    };
    const flood = Promise.all(Array.from({ length: 16 }, sender));
    await expect.poll(() => answered, { interval: 5, timeout: 30_000 }).toBeGreaterThan(150);
    const asked = answered;
    const during = await Promise.all([
      fetch(`${origin}/api/users/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(signinBody(PASSWORD)),
      }).then((r) => ({ status: r.status, reportsMeanwhile: answered - asked })),
      fetch(`${origin}/api/video`, { headers: { cookie, range: 'bytes=0-1023' } }).then((r) => ({
        status: r.status,
        reportsMeanwhile: answered - asked,
      })),
    ]);
    await flood;
    expect(during.map((r) => r.status)).toEqual([200, 206]);
    // Queued behind the flood, each would see the rest of it answered first (over 500 reports);
    // served beside it, a round or two of the senders.
    for (const { reportsMeanwhile } of during) expect(reportsMeanwhile).toBeLessThan(total / 4);
    expect(statuses).toEqual({ 204: 300, 429: 300 });
    expect(storedLines()).toHaveLength(300);
    await app.close();
  }, 60_000);
});

describe('the file store (no REDIS_URL)', { timeout: 60_000 }, () => {
  it('writes a burst of reports in a few appends, not one each (the thread pool stays free for the hashes and the video)', async () => {
    const { app, cookie } = await signedIn({ REPORTS_PER_MINUTE: '1000' });
    expect((await app.inject(post(cookie, viewReport()))).statusCode).toBe(204);
    const probe = await open(join(dataDir, REPORTS_FILE), 'r');
    const appends = vi.spyOn(Object.getPrototypeOf(probe) as FileHandle, 'appendFile');
    await probe.close();
    try {
      const burst = await Promise.all(
        Array.from({ length: 500 }, () => app.inject(post(cookie, viewReport()))),
      );
      expect(burst.every((response) => response.statusCode === 204)).toBe(true);
      expect(appends.mock.calls.length).toBeLessThan(50);
    } finally {
      appends.mockRestore();
    }
    expect(storedLines()).toHaveLength(501);
    await app.close();
  });

  it('loses nothing across a stop and a start, and a replay after the restart still counts once', async () => {
    const first = await signedIn();
    const report = viewReport();
    expect((await first.app.inject(post(first.cookie, report))).statusCode).toBe(204);
    await first.app.close();

    const second = await signedIn();
    expect((await second.app.inject(post(second.cookie, report))).statusCode).toBe(204);
    expect((await second.app.inject(post(second.cookie, viewReport()))).statusCode).toBe(204);
    await second.app.close();
    expect(storedLines().map((line) => (JSON.parse(line) as StoredReport).report.id)).toEqual([
      report.id,
      expect.any(String),
    ]);
  });

  it('removes reports older than REPORTS_RETENTION_DAYS, and drops a line cut by a crash', async () => {
    const clock = fakeClock();
    const env = { REPORTS_RETENTION_DAYS: '2' };
    const first = await signedIn(env, { now: clock.now });
    const old = viewReport();
    expect((await first.app.inject(post(first.cookie, old))).statusCode).toBe(204);
    await first.app.close();
    // A crash in the middle of a write leaves half a line.
    const file = join(dataDir, REPORTS_FILE);
    appendFileSync(file, '{"at":1,"device":"x","rep');

    clock.advance(3 * DAY_MS);
    const second = await signedIn(env, { now: clock.now });
    const fresh = viewReport();
    expect((await second.app.inject(post(second.cookie, fresh))).statusCode).toBe(204);
    await second.app.close();
    expect(storedLines().map((line) => (JSON.parse(line) as StoredReport).report.id)).toEqual([
      fresh.id,
    ]);
  });

  it('keeps a last line cut just before its newline, and the next report starts a line of its own', async () => {
    const first = await signedIn();
    const kept = viewReport();
    expect((await first.app.inject(post(first.cookie, kept))).statusCode).toBe(204);
    await first.app.close();
    const file = join(dataDir, REPORTS_FILE);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n$/, ''));

    const second = await signedIn();
    const next = viewReport();
    expect((await second.app.inject(post(second.cookie, next))).statusCode).toBe(204);
    await second.app.close();
    expect(storedLines().map((line) => (JSON.parse(line) as StoredReport).report.id)).toEqual([
      kept.id,
      next.id,
    ]);
  });

  it('removes old reports daily while it runs, without a restart', async () => {
    const clock = fakeClock();
    const { app, cookie } = await signedIn({ REPORTS_RETENTION_DAYS: '1' }, { now: clock.now });
    expect((await app.inject(post(cookie, viewReport()))).statusCode).toBe(204);
    clock.advance(DAY_MS + 1);
    // The session lives by the same clock: a new one.
    const fresh = await newSession(app);
    const kept = viewReport();
    expect((await app.inject(post(fresh, kept))).statusCode).toBe(204);
    expect(storedLines().map((line) => (JSON.parse(line) as StoredReport).report.id)).toEqual([
      kept.id,
    ]);
    await app.close();
  });
});

/** Every report a store's `since(0)` yields, batches joined. */
async function readAll(store: ReportStore): Promise<StoredReport[]> {
  const all: StoredReport[] = [];
  for await (const batch of store.since(0)) all.push(...batch);
  return all;
}

describe('the store in a file', () => {
  it('reads a file longer than one read (1 MiB) whole: no line is cut where a read ends', async () => {
    const options = { dir: dataDir, retentionMs: DAY_MS, now: Date.now };
    const store = new FileReportStore(options);
    // About 700 bytes a line: views of many ranges.
    const seen = Array.from({ length: 30 }, (_, n): [number, number] => [3 * n, 3 * n + 2]);
    const reports = Array.from({ length: 4_000 }, () => viewReport({ seen }));
    await Promise.all(reports.map((one) => store.add('d', one)));
    await store.close();
    expect(statSync(join(dataDir, REPORTS_FILE)).size).toBeGreaterThan(2 * 1024 * 1024);
    const read = await readAll(new FileReportStore(options));
    expect(read.map(({ report }) => report.id)).toEqual(reports.map(({ id }) => id));
  });
});

// Redis restarts and child processes take seconds on a loaded machine.
describe('the store in Redis', { timeout: 60_000 }, () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis({ persistent: true });
    client = new Redis(redis.url);
    client.on('error', () => undefined);
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });
  afterEach(async () => {
    await client.flushall();
  });
  /** The reports' ids in Redis, as the stores left them: each day's string, line by line. */
  const idsInRedis = async () => {
    const days = await client.keys('reports:{field}:day:*');
    const lines = (await Promise.all(days.map((day) => client.get(day)))).join('').split('\n');
    return lines.filter(Boolean).map((line) => (JSON.parse(line) as StoredReport).report.id);
  };
  const redisNowMs = async () => Number((await client.time())[0]) * 1000;

  it('adds up the reports of two instances, a replay to the other instance counts once, and a restart of both and of Redis loses nothing', async () => {
    const env = { REDIS_URL: redis.url };
    const first = await signedIn(env);
    const second = await testServer({ DATA_DIR: dataDir, PASSWORD_HASH, ...env });
    const report = viewReport();
    expect((await first.app.inject(post(first.cookie, report))).statusCode).toBe(204);
    // The session lives in Redis too: the other instance knows it.
    expect((await second.inject(post(first.cookie, report))).statusCode).toBe(204);
    expect((await second.inject(post(first.cookie, viewReport()))).statusCode).toBe(204);
    await Promise.all([first.app.close(), second.close()]);
    expect(await idsInRedis()).toHaveLength(2);

    await redis.kill();
    await redis.restart();
    const again = await signedIn(env);
    expect((await again.app.inject(post(again.cookie, report))).statusCode).toBe(204);
    await again.app.close();
    expect(await idsInRedis()).toHaveLength(2);
    // Nothing went to the data folder.
    expect(storedLines()).toEqual([]);
  });

  it('leaves out reports past the retention, and lets each day expire once all of it is past', async () => {
    const { app, cookie } = await signedIn({ REDIS_URL: redis.url, REPORTS_RETENTION_DAYS: '1' });
    // Kept two days ago by Redis's clock, in that day's string.
    const old = { at: (await redisNowMs()) - 2 * DAY_MS, device: 'd', report: viewReport() };
    const oldDay = old.at - (old.at % DAY_MS);
    await client.append(`reports:{field}:day:${oldDay}`, `${JSON.stringify(old)}\n`);
    const report = viewReport();
    expect((await app.inject(post(cookie, report))).statusCode).toBe(204);
    await app.close();
    const read = await readAll(new RedisReportStore(client, DAY_MS));
    expect(read.map(({ report }) => report.id)).toEqual([report.id]);
    expect(await idsInRedis()).toHaveLength(2);
    // Today's string goes a day after its last possible report passes the retention (1 day).
    const today = await client.keys('reports:{field}:day:*').then((days) => days.sort().at(-1)!);
    const ttl = await client.pttl(today);
    expect(ttl).toBeGreaterThan(DAY_MS);
    expect(ttl).toBeLessThanOrEqual(3 * DAY_MS);
  });

  it('reads the stream that versions before 2026-11-28 kept, until its reports pass the retention', async () => {
    const now = await redisNowMs();
    const entry = (ms: number, report: ViewReport) =>
      client.xadd('reports:{field}:log', `${ms}-0`, 'r', JSON.stringify({ device: 'd', report }));
    const [tooOld, recent, added] = [viewReport(), viewReport(), viewReport()];
    await entry(now - 2 * DAY_MS, tooOld);
    await entry(now - 3_600_000, recent);
    const store = new RedisReportStore(client, DAY_MS);
    expect(await store.add('d', added)).toBe(true);
    const read = await readAll(store);
    expect(read.map(({ report }) => report.id)).toEqual([recent.id, added.id]);
    expect(read[0]!.at).toBe(now - 3_600_000);
    // Nothing is added to it any more: it goes once its last report is past the retention.
    const ttl = await client.pttl('reports:{field}:log');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(DAY_MS);
  });

  it('answers 503 with Retry-After, never 401, while Redis is down', async () => {
    const { app, cookie } = await signedIn({ REDIS_URL: redis.url });
    await redis.kill();
    try {
      const response = await app.inject(post(cookie, viewReport()));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toMatch(/^\d+$/);
    } finally {
      await redis.restart();
    }
    await app.close();
  });

  it('reads a period longer than one read (1 MiB) whole, in order, each report once', async () => {
    const store = new RedisReportStore(client, DAY_MS);
    // About 700 bytes a line: views of many ranges.
    const seen = Array.from({ length: 30 }, (_, n): [number, number] => [3 * n, 3 * n + 2]);
    const reports = Array.from({ length: 2_345 }, (_, n) => viewReport({ firstFrameMs: n, seen }));
    for (let n = 0; n < reports.length; n += 200)
      await Promise.all(reports.slice(n, n + 200).map((one) => store.add('d', one)));
    const read = await readAll(store);
    expect(read.map(({ report }) => report.id).sort()).toEqual(reports.map(({ id }) => id).sort());
    expect(await client.strlen((await client.keys('reports:{field}:day:*'))[0]!)).toBeGreaterThan(
      1024 * 1024,
    );
    // Oldest first: in the order Redis kept them, dated by its clock.
    const ats = read.map(({ at }) => at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
  });

  it('npm run report reads Redis when REDIS_URL is set', async () => {
    const { app, cookie } = await signedIn({ REDIS_URL: redis.url });
    for (const report of [viewReport(), viewReport({ offline: true })])
      expect((await app.inject(post(cookie, report))).statusCode).toBe(204);
    await app.close();
    const run = report(['--json'], { REDIS_URL: redis.url });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ views: 2, devices: 1, offlineViews: 1 });
  });
});

describe('the summary', () => {
  const stored = (report: ViewReport | EventsReport, device = 'phone-1'): StoredReport => ({
    at: Date.UTC(2026, 10, 20),
    device,
    report,
  });
  const period = { since: Date.UTC(2026, 10, 1), until: Date.UTC(2026, 10, 30) };

  it('counts exactly the seconds a view saw, once: 0-20 and 60-70, then 10-25 again in a later part', async () => {
    const first = viewReport();
    const summary = await summarize([stored(first)], period, 90);
    expect(summary.videoSeconds).toBe(90);
    expect(summary.secondsWatched).toEqual(
      Array.from({ length: 90 }, (_, s) => (s < 20 || (s >= 60 && s < 70) ? 1 : 0)),
    );
    const later = viewReport({ view: first.view, part: 1, seen: [[10, 25]] });
    const joined = await summarize([stored(first), stored(later)], period, 90);
    expect(joined.views).toBe(1);
    expect(joined.secondsWatched).toEqual(
      Array.from({ length: 90 }, (_, s) => (s < 25 || (s >= 60 && s < 70) ? 1 : 0)),
    );
  });

  it('calls a view completed at 90 % of the whole seconds, across its parts', async () => {
    const view = randomId();
    const reports = [
      // Neither part alone: together 85 of 90 seconds.
      viewReport({ view, seen: [[0, 50]] }),
      viewReport({ view, part: 1, seen: [[40, 85]] }),
      // Exactly at the rule: 81 is 90 % of 90.
      viewReport({ seen: [[0, 81]], device: 'desktop' }),
      viewReport({ seen: [[0, 80]] }),
    ].map((report, i) => stored(report, `device-${i % 3}`));
    const summary = await summarize(reports, period, 90);
    expect(summary).toMatchObject({
      views: 3,
      devices: 3,
      deviceClasses: { phone: 2, desktop: 1 },
      completed: 2,
    });
  });

  it('counts the views that seeked, once each, whichever part said so', async () => {
    const view = randomId();
    const reports = [
      viewReport({ seeks: 0 }),
      viewReport({ seeks: 3 }),
      // Seeked only in its later part, which came first: one view with seeks.
      viewReport({ view, part: 1, seeks: 2 }),
      viewReport({ view, seeks: 0 }),
      viewReport({ seeks: 1 }),
    ].map((report) => stored(report));
    expect(await summarize(reports, period, 90)).toMatchObject({ views: 4, viewsWithSeeks: 3 });
  });

  it('sums first frames, stalls, offline views, downloads, renditions, browsers and Web Vitals', async () => {
    const reports = [
      viewReport({ firstFrameMs: 1000, stalls: 2, renditions: { '360p': 60 }, offline: true }),
      viewReport({ firstFrameMs: 2000, stalls: 1, renditions: { '360p': 30, '144p': 30 } }),
      viewReport({
        firstFrameMs: 4000,
        stalls: 0,
        renditions: {},
        seen: [[0, 60]],
        error: 'constructor',
      }),
      eventsReport([
        { type: 'download', outcome: 'started', rendition: '240p', bytes: 0 },
        { type: 'download', outcome: 'finished', rendition: '240p', bytes: 5_000_000 },
        { type: 'download', outcome: 'noRoom', rendition: '360p', bytes: 9_000_000 },
        { type: 'vital', name: 'INP', value: 120, metric: 'v5-1-1' },
        { type: 'vital', name: 'INP', value: 260, metric: 'v5-1-1' },
        { type: 'vital', name: 'LCP', value: 2100, metric: 'v5-1-2' },
      ]),
    ].map((report) => stored(report));
    const summary = await summarize(reports, period, 90);
    expect(summary).toMatchObject({
      firstFrameMs: { p50: 2000, p75: 4000, p95: 4000 },
      // Three stalls over three minutes played (the last view's seconds seen stand for it).
      stallsPerMinute: 1,
      offlineViews: 1,
      errors: { constructor: 1 },
      downloads: { started: 1, finished: 1, cancelled: 0, noRoom: 1, finishedBytes: 5_000_000 },
      renditions: { '360p': 90, '144p': 30 },
      browsers: [{ family: 'chrome', major: 131, engine: 'blink', views: 3 }],
      webVitals: {
        INP: { p75: 260, count: 1, rating: 'needs-improvement' },
        LCP: { p75: 2100, count: 1, rating: 'good' },
        CLS: { p75: null, count: 0, rating: null },
      },
    });
  });
});

/** `npm run report`, as an operator runs it. */
function report(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ops/report.ts', ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('npm run report', { timeout: 60_000 }, () => {
  it('prints one JSON object for the period from the data folder the server wrote', async () => {
    const { app, cookie } = await signedIn();
    const reports = [
      viewReport(),
      viewReport({ seen: [[0, 85]], firstFrameMs: 900, offline: true }),
      eventsReport([
        { type: 'download', outcome: 'started', rendition: '240p', bytes: 0 },
        { type: 'download', outcome: 'finished', rendition: '240p', bytes: 4_200_000 },
      ]),
    ];
    for (const body of reports) expect((await app.inject(post(cookie, body))).statusCode).toBe(204);
    await app.close();

    const run = report(['--json', '--since', '7d'], { DATA_DIR: dataDir });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      views: 2,
      devices: 1,
      completed: 1,
      firstFrameMs: { p50: 900, p75: 1840, p95: 1840 },
      offlineViews: 1,
      downloads: { started: 1, finished: 1 },
    });
    expect(summary.secondsWatched).toHaveLength(90);
    expect(summary.secondsWatched.slice(0, 20)).toEqual(Array(20).fill(2));
    expect(summary.secondsWatched.slice(60, 70)).toEqual(Array(10).fill(2));
    expect(summary.secondsWatched[30]).toBe(1);
    expect(summary.stallsPerMinute).toBeGreaterThan(0);

    const text = report([], { DATA_DIR: dataDir });
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('Visitas: 2');
    expect(text.stdout).toContain('Completas (vieron al menos el 90 % del video): 1');
  });

  it('leaves out what came before --since, and refuses a date still to come', async () => {
    const { app, cookie } = await signedIn();
    expect((await app.inject(post(cookie, viewReport()))).statusCode).toBe(204);
    await app.close();
    const views = (since: string) =>
      JSON.parse(report(['--json', '--since', since], { DATA_DIR: dataDir }).stdout).views;
    expect(views('1h')).toBe(1);
    expect(views(new Date(Date.now() - 60_000).toISOString())).toBe(1);
    expect(views(new Date().toISOString())).toBe(0);
    const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    const later = report(['--json', '--since', tomorrow], { DATA_DIR: dataDir });
    expect(later.status).toBe(1);
    expect(later.stderr.trim()).toBe(`--since ${tomorrow} is in the future`);
  });

  it.each([
    [
      ['--since', 'last week'],
      '--since takes 7d, 24h or a date such as 2026-11-01 (got "last week")',
    ],
    [['--since'], '--since needs a period: 7d, 24h or a date'],
    [
      ['--csv'],
      'unknown argument "--csv"; usage: npm run report -- [--since 7d|24h|2026-11-01] [--json]',
    ],
  ])('refuses %j in one clear line and exits 1', (args, line) => {
    const run = report(args, { DATA_DIR: dataDir });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(line);
    expect(run.stdout).toBe('');
  });
});
