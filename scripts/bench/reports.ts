/** The field reports (issue 41): the summary over 100,000 views; the video beside 1,000 viewers'. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPORTS_PATH, parseFieldReport, type FieldReport } from '../../config/field-report';
import { FileReportStore } from '../../server/file-report-store';
import { hashPassword } from '../../server/password';
import { createRedis } from '../../server/redis';
import { RedisReportStore } from '../../server/redis-report-store';
import { DAY_MS, type ReportStore } from '../../server/report-store';
import { summarize } from '../../server/report-summary';
import { startRedis } from '../test-support/redis-server';
import { send, signedIn } from '../test-support/test-server';
import { benchSite, floodOnce, type Flood } from './load';
import { atEnd, atMost, exactly, figure, medianOf, repeat, seconds, section } from './measure';
import { sleep, type Site } from './measure';

const [VIEWS, DEVICES, VIDEO_S, VIEWERS, MINUTE_S] = [100_000, 25_000, 180, 1_000, 60];
const id = () => randomBytes(16).toString('base64url');
const pick = <T>(values: T[]) => values[Math.floor(Math.random() * values.length)]!;

/** A view as a phone reports it: watched from the start, one in three seeking on, some stalls. */
function view(): FieldReport {
  const [seeked, stalls] = [Math.random() < 1 / 3, pick([0, 0, 0, 1, 2])];
  const until = (seeked ? 62 : 20) + Math.floor(Math.random() * (VIDEO_S - 62));
  const seen = [[0, seeked ? 20 : until], ...(seeked ? [[60, until]] : [])];
  const [device, major] = [pick(['phone', 'phone', 'desktop']), pick([118, 119, 120, 121])];
  const [family, engine] = pick(['chrome blink', 'samsung blink', 'safari webkit']).split(' ');
  const parsed = parseFieldReport({
    ...{ format: 1, id: id(), kind: 'view', view: id(), part: 0, durationS: VIDEO_S, device },
    browser: { family, major, engine },
    ...{ firstFrameMs: 500 + Math.floor(Math.random() * 4_000), stalls, stallS: stalls * 1.5 },
    ...{ seeks: seeked ? 1 : 0, mediaBytes: until * 60_000, offline: Math.random() < 0.05 },
    ...{ renditions: { '360p': until * 0.8, '240p': until * 0.2 }, seen },
  });
  if (!('report' in parsed)) throw new Error(`not a valid report: ${JSON.stringify(parsed)}`);
  return parsed.report;
}

/** VIEWS reports into `store`, from DEVICES sessions, 200 at a time (one file write each). */
async function fill(store: ReportStore) {
  const devices = Array.from({ length: DEVICES }, id);
  for (let i = 0; i < VIEWS; i += 200)
    await Promise.all(Array.from({ length: 200 }, () => store.add(pick(devices), view())));
  await store.close();
}

/** The summary the staff page and `npm run report` make over the whole period, timed. */
async function summaryTime(open: () => ReportStore) {
  const times = await repeat(3, async () => {
    const [store, started] = [open(), performance.now()];
    const summary = await summarize(store.since(0), { since: 0, until: Date.now() }, VIDEO_S);
    if (summary.views !== VIEWS) throw new Error(`${summary.views} views summed of ${VIEWS}`);
    return performance.now() - started;
  });
  return medianOf(times);
}

/** VIEWERS sessions, each posting one view report at a moment of the minute; answers counted. */
function reportsFlood(cookies: string[]) {
  return ({ origin }: Site): Flood => {
    const [agent, answers] = [new Agent({ keepAlive: true }), new Map<number, number>()];
    const url = `${origin}${REPORTS_PATH}`;
    const post = async (cookie: string) => {
      await sleep(Math.random() * MINUTE_S * 1000);
      const headers = { cookie, 'content-type': 'application/json' };
      const request = { method: 'POST', headers, body: JSON.stringify(view()), agent };
      const { status } = await send(url, request).catch(() => ({ status: 0 }));
      answers.set(status, (answers.get(status) ?? 0) + 1);
    };
    const done = Promise.all(cookies.map(post)).then(() => {
      agent.destroy();
      const counts = [...answers].map(([status, n]) => `${n}× ${status}`);
      return `${cookies.length} reports (${counts.join(', ')})`;
    });
    return { started: Promise.resolve(), done };
  };
}

const [ratio, second] = [atMost(1.5, (n) => `${n}× alone`), atMost(1000, seconds)];
const FIGURES = {
  file: figure('Report over 100,000 views, file store (DATA_DIR): summary time', second),
  redis: figure('Report over 100,000 views, Redis store: summary time', second),
  video: figure(`Video Range p99 beside ${VIEWERS} viewers' reports in a minute`, ratio),
  page: figure(`Login page p99 beside those reports`, ratio),
  errors: figure('Page+video errors beside the reports', exactly(0)),
};

const NAME = `field reports: the summary over ${VIEWS} views (file, Redis); the video beside ${VIEWERS} viewers' reports in ${MINUTE_S} s`;
export const reportsMeasurement = section(NAME, 600_000, FIGURES, async (site, signal) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-reports-'));
  atEnd(signal, async () => rmSync(dir, { recursive: true, force: true }));
  const options = { dir, retentionMs: 30 * DAY_MS, now: Date.now };
  await fill(new FileReportStore(options));
  const file = await summaryTime(() => new FileReportStore(options));
  const redisServer = await startRedis();
  atEnd(signal, () => redisServer.stop());
  const redis = createRedis(redisServer.url);
  atEnd(signal, async () => redis.disconnect());
  await redis.connect();
  const stored = () => new RedisReportStore(redis, 30 * DAY_MS);
  await fill(stored());
  const inRedis = await summaryTime(stored);
  // Its own server and folder; a cheaper hash, as the signins come before the measured minute.
  const hash = await hashPassword(site.password, { N: 2 ** 14, r: 8, p: 1 });
  const env = { PASSWORD_HASH: hash, SIGNIN_MAX_CONCURRENT_HASHES: '2' };
  const on = await benchSite(site, 'server-reports', signal, { ...env, DATA_DIR: join(dir, 'd') });
  const tenSignins = () => Promise.all([...Array(10)].map(() => signedIn(on)));
  const cookies = (await repeat(VIEWERS / 10, tenSignins)).flat().map(({ cookie }) => cookie);
  const flooded = await floodOnce(on, signal, { flood: reportsFlood(cookies), probeS: MINUTE_S });
  return { file, redis: inRedis, video: flooded.video, page: flooded.page, errors: flooded.errors };
});
