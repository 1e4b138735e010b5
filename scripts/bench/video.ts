/**
 * The video screen with a live session, on a throttled phone: when the first video frame is
 * painted, how much of the mp4 was downloaded by then, and whether a seek to 80 % plays
 * without downloading the part in between (Range requests).
 *
 * Bytes come from the DevTools protocol (every Network.dataReceived of the media request, with
 * its time and its place in the file, known from Content-Range), times from the page's clock.
 */
import { PHONE, launchBrowser, type Browser, type Tab } from './browser';
import {
  atMost,
  holds,
  kilobytes,
  median,
  percent,
  seconds,
  type Measurement,
  type Site,
} from './measure';
import { returningVisitor, type Visitor } from './screens';
import { watchVideo, type Seek, type Watch } from './watch-video';

const RUNS = 3;
const FIRST_FRAME_WAIT_MS = 20_000;
const SEEK_FRACTION = 0.8;
const START_BUDGET = 0.1;

/** A piece of the file as it arrived: where it sits in the file, and when. */
interface Chunk {
  at: number;
  offset: number;
  bytes: number;
}

/** One request for the video: when it was sent and where in the file its answer starts. */
interface MediaRequest {
  sentAt: number;
  start: number;
}

interface RunResult {
  state: Watch;
  fileSize: number | null;
  chunks: Chunk[];
  requests: MediaRequest[];
  seek: Seek | null;
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : String(headers[key]);
}

/**
 * Follows the media requests through the DevTools protocol. CDP times are monotonic seconds;
 * the page's are ms since navigation start, which is when the document request is sent.
 */
function trackMedia(tab: Tab) {
  let documentSentAt: number | null = null;
  let fileSize: number | null = null;
  /** By request id: the request, and how far into the file its answer has come. */
  const requests = new Map<string, MediaRequest & { offset: number }>();
  const chunks: Chunk[] = [];
  const pageTime = (timestamp: number) =>
    documentSentAt === null ? 0 : (timestamp - documentSentAt) * 1000;

  tab.on('Network.requestWillBeSent', (params) => {
    const event = params as { type: string; requestId: string; timestamp: number };
    if (event.type === 'Document' && documentSentAt === null) documentSentAt = event.timestamp;
    if (event.type !== 'Media') return;
    requests.set(event.requestId, { sentAt: pageTime(event.timestamp), start: 0, offset: 0 });
  });
  tab.on('Network.responseReceived', (params) => {
    const event = params as {
      requestId: string;
      response: { status: number; headers: Record<string, unknown> };
    };
    const request = requests.get(event.requestId);
    if (!request) return;
    const range = /bytes (\d+)-\d+\/(\d+)/.exec(
      header(event.response.headers, 'content-range') ?? '',
    );
    const length = Number(header(event.response.headers, 'content-length'));
    if (range) {
      request.start = request.offset = Number(range[1]);
      fileSize = Number(range[2]);
    } else if (event.response.status === 200 && length > 0) {
      fileSize = length;
    }
  });
  tab.on('Network.dataReceived', (params) => {
    const event = params as { requestId: string; timestamp: number; dataLength: number };
    const request = requests.get(event.requestId);
    if (!request) return;
    chunks.push({ at: pageTime(event.timestamp), offset: request.offset, bytes: event.dataLength });
    request.offset += event.dataLength;
  });
  return () => ({
    chunks,
    fileSize,
    requests: [...requests.values()].map(({ sentAt, start }) => ({ sentAt, start })),
  });
}

/** Bytes of the file inside [from, to) covered by the chunks, counting each byte once. */
function bytesWithin(chunks: Chunk[], from: number, to: number): number {
  const spans = chunks
    .map((c) => [Math.max(c.offset, from), Math.min(c.offset + c.bytes, to)] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reached = from;
  for (const [start, end] of spans) {
    if (end <= reached) continue;
    total += end - Math.max(start, reached);
    reached = end;
  }
  return total;
}

async function playOnce(browser: Browser, site: Site, visitor: Visitor): Promise<RunResult> {
  const tab = await browser.tab(PHONE);
  try {
    const url = `${site.origin}${site.base}/VideoPlayer`;
    const watch = await watchVideo(tab, url, visitor, 'metadata');
    const media = trackMedia(tab);
    await tab.navigate(url, false);
    const framed = await watch.firstFrame(FIRST_FRAME_WAIT_MS);
    const seek = framed ? await watch.seek(SEEK_FRACTION) : null;
    const state = await watch.read();
    // The page counts from navigation start, which comes a little before the document request
    // that the protocol's times count from; on a busy machine by more than the few ms between a
    // seek and its request. Both are put on the page's clock.
    const documentRequestAt = await tab.evaluate(
      () =>
        (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).fetchStart,
    );
    const { chunks, requests, fileSize } = media();
    return {
      state,
      seek,
      fileSize,
      chunks: chunks.map((chunk) => ({ ...chunk, at: chunk.at + documentRequestAt })),
      requests: requests.map((request) => ({
        ...request,
        sentAt: request.sentAt + documentRequestAt,
      })),
    };
  } finally {
    await tab.close();
  }
}

interface RunFigures {
  frame: number | null;
  startBytes: number | null;
  between: number | null;
  betweenAfterSeek: number | null;
  seekPlays: boolean;
  seekFrame: number | null;
  /** Where the first request sent after the seek starts, as a share of the file. */
  seekRangeAt: number | null;
}

function figuresOf(run: RunResult): RunFigures {
  const { state, fileSize, chunks, requests, seek } = run;
  const afterSeek = seek ? requests.filter((r) => r.sentAt >= seek.requestedAt) : [];
  const frame = state.firstFrameAt;
  const startBytes =
    frame === null ? null : chunks.filter((c) => c.at <= frame).reduce((s, c) => s + c.bytes, 0);
  // The part in between ends where the seek's own request starts (the keyframe before 80 % of
  // the time sits a little before 80 % of the bytes), or at 80 % if there was no such request.
  const seekStart = afterSeek.length ? Math.min(...afterSeek.map((r) => r.start)) : null;
  const middle = (list: Chunk[]) => {
    if (fileSize === null) return null;
    const end = Math.min(seekStart ?? Infinity, fileSize * SEEK_FRACTION);
    return bytesWithin(list, Math.floor(fileSize * START_BUDGET), Math.floor(end));
  };
  return {
    frame,
    startBytes,
    between: seek ? middle(chunks) : null,
    betweenAfterSeek: seek ? middle(chunks.filter((c) => c.at >= seek.requestedAt)) : null,
    seekPlays: seek?.playsOn ?? false,
    seekFrame: seek?.frameAt != null ? seek.frameAt - seek.requestedAt : null,
    seekRangeAt: seekStart !== null && fileSize ? seekStart / fileSize : null,
  };
}

export function videoMeasurement(site: Site): Measurement<'frame' | 'start' | 'seek' | 'between'> {
  const share = atMost(START_BUDGET * 100, (n) => `${n} % of file`);
  return {
    name: `VideoPlayer: first frame, bytes, seek (median of ${RUNS}, throttled)`,
    timeoutMs: 180_000,
    figures: {
      frame: { figure: 'VideoPlayer first frame (4× CPU, Fast 3G)', target: atMost(2500, seconds) },
      start: { figure: 'Video bytes by first frame', target: share },
      seek: {
        figure: 'Seek to 80 % plays from there',
        target: holds('plays, via a Range request'),
      },
      between: { figure: 'Video bytes fetched between 10 % and the seek point', target: share },
    },
    async run(signal) {
      const browser = await launchBrowser(signal);
      const visitor = await returningVisitor(site);
      const runs: RunResult[] = [];
      try {
        for (let i = 0; i < RUNS; i += 1) runs.push(await playOnce(browser, site, visitor));
      } finally {
        await browser.close();
      }
      const figures = runs.map(figuresOf);
      const size = runs.find((run) => run.fileSize !== null)?.fileSize ?? null;
      const frame = median(figures.map((f) => f.frame));
      const startBytes = median(figures.map((f) => f.startBytes));
      const between = median(figures.map((f) => f.between));
      const afterSeek = median(figures.map((f) => f.betweenAfterSeek));
      const seekFrame = median(figures.map((f) => f.seekFrame));
      // Plays from there, on data from a Range request that skipped the part in between.
      const plays = figures.every(
        (f) => f.seekPlays && f.seekRangeAt !== null && f.seekRangeAt > START_BUDGET,
      );
      const ofFile = (bytes: number | null) => ({
        value:
          bytes === null || size === null ? 'n/a' : `${kilobytes(bytes)} (${percent(bytes, size)})`,
        measured: bytes === null || size === null ? null : (100 * bytes) / size,
        unit: '% of file',
      });
      const list = (pick: (f: RunFigures) => number | null, format: (n: number) => string) =>
        `runs ${figures.map((f) => (pick(f) === null ? '-' : format(pick(f)!))).join(', ')}`;
      return {
        frame: {
          value: frame === null ? 'no frame' : seconds(frame),
          measured: frame,
          unit: 'ms',
          note: `${list((f) => f.frame, seconds)}; play pressed by the bench at metadata in ${runs.filter((run) => run.state.benchStartedPlayback).length} of ${RUNS} runs (those where the app had not started it)`,
        },
        start: {
          ...ofFile(startBytes),
          note: `file ${size === null ? '?' : kilobytes(size)}; ${list((f) => f.startBytes, kilobytes)}`,
        },
        seek: {
          value: plays ? `yes, frame after ${seekFrame === null ? '?' : seconds(seekFrame)}` : 'no',
          measured: plays,
          note: `frame after the seek: ${list((f) => f.seekFrame, seconds)}; first request after the seek starts at: ${list(
            (f) => f.seekRangeAt,
            (share) => `${(100 * share).toFixed(0)} % of the file`,
          )}`,
        },
        between: {
          ...ofFile(between),
          note: `of which ${ofFile(afterSeek).value} arrived after the seek was asked for; ${list((f) => f.between, kilobytes)}`,
        },
      };
    },
  };
}
