/**
 * The company's kind of video on rural links (issue 14): a 3-minute 1280×720 source at about
 * 2.9 Mbit/s that the encoder cannot shrink (noise over a moving pattern), published with
 * prepare-video, against the same source served as one faststart MP4, in the same run. A phone-
 * sized Chromium, DevTools network throttling, no CPU throttling; play is pressed as soon as the
 * <video> exists and the page is watched for 60 s from navigation.
 *
 * The source and its publish are cached under bench-results/adaptive/ (making them takes minutes).
 * Each scenario runs once per kind: runs vary by a few seconds of media position (see the notes).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENT_FILE, PUBLISHED, parsePointer } from '../../config/media-layout';
import { prepareVideo } from '../ops/prepare-video';
import { makeClip } from '../test-support/test-clip';
import type { RunningServer } from '../test-support/test-server';
import {
  FAST_3G,
  PHONE,
  SLOW_3G,
  launchBrowser,
  type Browser,
  type Link,
  type Tab,
} from './browser';
import { startBenchServer } from './load';
import { returningVisitor } from './screens';
import { watchVideo, type Watch } from './watch-video';
import {
  atLeast,
  atMost,
  exactly,
  holds,
  kilobytes,
  seconds,
  REFERENCE,
  type Measurement,
  type Reading,
  type Site,
} from './measure';

/**
 * Not a DevTools preset: the worst links the visitors have (2G EDGE in the field), as the notes
 * measured them, for the near-audio-only 144p rung. A reference figure, no target.
 */
const EDGE: Link = {
  offline: false,
  latency: 1000,
  downloadThroughput: 200_000 / 8,
  uploadThroughput: 100_000 / 8,
};

const CACHE = 'bench-results/adaptive';
const SOURCE = join(CACHE, 'source.mp4');
const PUBLISHED_DIR = join(CACHE, 'published');
const SOURCE_S = 180;
const WATCH_MS = 60_000;
const DROP_AT_MS = 20_000;
const SEEK_FRACTION = 0.8;

/** Makes the source (once): noise on a moving test pattern, 2.8 Mbit/s, faststart. */
function ensureSource(): void {
  if (existsSync(SOURCE)) return;
  mkdirSync(CACHE, { recursive: true });
  console.log(`  making a ${SOURCE_S} s 1280×720 source (minutes, cached in ${CACHE})`);
  makeClip(SOURCE, SOURCE_S, { size: '1280x720', fps: 30, tone: 300, noisyKbps: 2800 });
}

/** Publishes the source (once); the folder of the publish served (prepare-video's versions). */
async function ensurePublished(): Promise<string> {
  const current = join(PUBLISHED_DIR, CURRENT_FILE);
  if (!existsSync(current)) {
    console.log('  publishing it with prepare-video (minutes, cached)');
    await prepareVideo(SOURCE, PUBLISHED_DIR);
  }
  return join(PUBLISHED_DIR, parsePointer(readFileSync(current, 'utf8'))!.version);
}

/** Bytes per finished request (encodedDataLength), received bytes for unfinished ones; headers sent. */
function countBytes(tab: Tab) {
  const finished = new Map<string, number>();
  const partial = new Map<string, number>();
  let up = 0;
  const id = (event: Record<string, unknown>) => String(event.requestId);
  tab.on('Network.loadingFinished', (event) =>
    finished.set(id(event), Number(event.encodedDataLength)),
  );
  tab.on('Network.dataReceived', (event) =>
    partial.set(
      id(event),
      (partial.get(id(event)) ?? 0) + (Number(event.encodedDataLength) || Number(event.dataLength)),
    ),
  );
  tab.on('Network.requestWillBeSentExtraInfo', (event) => {
    const headers = (event.headers ?? {}) as Record<string, unknown>;
    up +=
      40 +
      Object.entries(headers).reduce((sum, [k, v]) => sum + k.length + String(v).length + 4, 0);
  });
  tab.on('Network.requestWillBeSent', (event) => {
    const request = event.request as { postData?: string } | undefined;
    up += request?.postData?.length ?? 0;
  });
  return () => {
    let down = 0;
    for (const [id, bytes] of partial) down += finished.get(id) ?? bytes;
    for (const [id, bytes] of finished) if (!partial.has(id)) down += bytes;
    return { down, up };
  };
}

interface RunResult extends Watch {
  down: number;
  up: number;
  stillStalled: boolean;
  seekMs: number | null;
  /** The rendition on screen when the link dropped. */
  heightBeforeDrop: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runOnce(
  browser: Browser,
  server: RunningServer,
  site: Site,
  scenario: { link: Link; dropTo?: Link; seek?: boolean },
): Promise<RunResult> {
  // On the phone's size, throttled link, and the machine's own CPU: the stalls are the link's.
  const tab = await browser.tab(PHONE, { link: scenario.link, slowCpu: false });
  try {
    const url = `${server.origin}${site.base}/VideoPlayer`;
    const visitor = await returningVisitor({ ...site, origin: server.origin });
    const watch = await watchVideo(tab, url, visitor, 'loadstart');
    const bytes = countBytes(tab);
    await tab.navigate(url, false);
    const startedAt = Date.now();
    let seekMs: number | null = null;
    let heightBeforeDrop: number | null = null;
    if (scenario.dropTo || scenario.seek) await watch.firstFrame(WATCH_MS);
    if (scenario.dropTo) {
      const { firstFrameAt } = await watch.read();
      await sleep(Math.max(0, (firstFrameAt ?? 0) + DROP_AT_MS - (Date.now() - startedAt)));
      heightBeforeDrop = (await watch.read()).heightAtEnd;
      await tab.throttle(scenario.dropTo);
    }
    if (scenario.seek) {
      await sleep(3_000);
      const seek = await watch.seek(SEEK_FRACTION);
      seekMs = seek?.frameAt != null ? seek.frameAt - seek.requestedAt : null;
      return { ...(await watch.read()), ...bytes(), stillStalled: false, seekMs, heightBeforeDrop };
    }
    await sleep(Math.max(0, WATCH_MS - (Date.now() - startedAt)));
    const state = await watch.read();
    const stillStalled = await tab.evaluate(() => {
      const video = document.querySelector('video');
      return !!video && !video.paused && video.readyState < 3;
    });
    return { ...state, ...bytes(), stillStalled, seekMs, heightBeforeDrop };
  } finally {
    await tab.close();
  }
}

const stallsOf = (r: RunResult) => r.stalls + (r.stillStalled ? 1 : 0);
const heightOf = (r: RunResult) => (r.playingMs ? Math.round(r.heightMs / r.playingMs) : 0);
const describe = (r: RunResult) =>
  `first frame ${r.firstFrameAt === null ? '-' : seconds(r.firstFrameAt)}, ${stallsOf(r)} stalls (${seconds(r.stalledMs)} waiting), ${r.currentTime.toFixed(0)} s seen, ~${heightOf(r)}p played, ${r.heightAtEnd}p at the end, ${kilobytes(r.down)} down / ${kilobytes(r.up)} up`;

type Key =
  | 'fastFrame'
  | 'fastStalls'
  | 'fastHeight'
  | 'slowFrame'
  | 'slowStalls'
  | 'slowSeen'
  | 'dropStalls'
  | 'dropLower'
  | 'seek'
  | 'edge'
  | 'bytes';

export function adaptiveMeasurement(site: Site): Measurement<Key> {
  return {
    name: 'Adaptive video vs one MP4 (3 min 720p source, phone, DevTools throttling, 60 s)',
    timeoutMs: 40 * 60_000,
    figures: {
      fastFrame: { figure: 'Adaptive, Fast 3G: first frame', target: atMost(3000, seconds) },
      fastStalls: { figure: 'Adaptive, Fast 3G: stalls in 60 s', target: exactly(0) },
      fastHeight: { figure: 'Adaptive, Fast 3G: rendition played', target: atLeast(360, 'p') },
      slowFrame: { figure: 'Adaptive, Slow 3G: first frame', target: atMost(8000, seconds) },
      slowStalls: { figure: 'Adaptive, Slow 3G: stalls in 60 s', target: atMost(1) },
      slowSeen: { figure: 'Adaptive, Slow 3G: video seen in 60 s', target: atLeast(45, ' s') },
      dropStalls: { figure: 'Adaptive, Fast→Slow 3G at 20 s: stalls', target: atMost(1) },
      dropLower: {
        figure: 'Adaptive, Fast→Slow 3G at 20 s: rendition at the end',
        target: holds('lower than before the drop'),
      },
      seek: {
        figure: 'Adaptive, Fast 3G: seek to 80 % shows a frame',
        target: atMost(3000, seconds),
      },
      edge: { figure: 'Adaptive, EDGE (200 kbit/s, 1 s), 60 s', target: REFERENCE },
      bytes: { figure: 'Adaptive, Fast 3G: bytes in 60 s (down / up)', target: REFERENCE },
    },
    async run(signal) {
      ensureSource();
      const published = await ensurePublished();
      const manifest = JSON.parse(readFileSync(join(published, PUBLISHED.manifest), 'utf8')) as {
        rungs: { height: number; averageBandwidth: number }[];
      };
      console.log(
        `  ladder: ${manifest.rungs.map((r) => `${r.height}p ${Math.round(r.averageBandwidth / 1000)}k`).join(', ')}`,
      );
      const adaptive = await startBenchServer(site.password, {
        env: { MEDIA_DIR: PUBLISHED_DIR },
        logFile: 'reports/bench-adaptive-server.log',
      });
      const single = await startBenchServer(site.password, {
        env: { VIDEO_FILE: SOURCE },
        logFile: 'reports/bench-single-server.log',
      });
      const browser = await launchBrowser(signal);
      const results: Record<string, { adaptive: RunResult; single: RunResult }> = {};
      try {
        const scenarios = {
          fast: { link: FAST_3G },
          slow: { link: SLOW_3G },
          drop: { link: FAST_3G, dropTo: SLOW_3G },
          seek: { link: FAST_3G, seek: true },
          edge: { link: EDGE },
        };
        for (const [name, scenario] of Object.entries(scenarios)) {
          const a = await runOnce(browser, adaptive, site, scenario);
          console.log(`  ${name}, adaptive: ${describe(a)}`);
          const s = await runOnce(browser, single, site, scenario);
          console.log(`  ${name}, one MP4: ${describe(s)}`);
          results[name] = { adaptive: a, single: s };
        }
      } finally {
        await browser.close();
        await Promise.all([adaptive.stop(), single.stop()]);
      }
      const { fast, slow, drop, seek, edge } = results as Record<
        'fast' | 'slow' | 'drop' | 'seek' | 'edge',
        { adaptive: RunResult; single: RunResult }
      >;
      const vs = (r: RunResult) => `one MP4: ${describe(r)}`;
      const frame = (r: RunResult): Reading => ({
        value: r.firstFrameAt === null ? 'no frame' : seconds(r.firstFrameAt),
        measured: r.firstFrameAt,
        unit: 'ms',
      });
      const stalls = (pair: { adaptive: RunResult; single: RunResult }): Reading => ({
        value: `${stallsOf(pair.adaptive)} (${seconds(pair.adaptive.stalledMs)} waiting)`,
        measured: stallsOf(pair.adaptive),
        note: `${describe(pair.adaptive)}; ${vs(pair.single)}`,
      });
      const before = drop.adaptive.heightBeforeDrop ?? 0;
      return {
        fastFrame: { ...frame(fast.adaptive), note: vs(fast.single) },
        fastStalls: stalls(fast),
        fastHeight: {
          value: `~${heightOf(fast.adaptive)}p`,
          measured: heightOf(fast.adaptive),
        },
        slowFrame: { ...frame(slow.adaptive), note: vs(slow.single) },
        slowStalls: stalls(slow),
        slowSeen: {
          value: `${slow.adaptive.currentTime.toFixed(0)} s`,
          measured: slow.adaptive.currentTime,
          unit: 's',
          note: `one MP4: ${slow.single.currentTime.toFixed(0)} s`,
        },
        dropStalls: stalls(drop),
        dropLower: {
          value: `${drop.adaptive.heightAtEnd}p at the end, ${before}p at the drop`,
          measured: drop.adaptive.heightAtEnd > 0 && drop.adaptive.heightAtEnd < before,
        },
        seek: {
          value: seek.adaptive.seekMs === null ? 'no frame in 15 s' : seconds(seek.adaptive.seekMs),
          measured: seek.adaptive.seekMs,
          unit: 'ms',
          note: `one MP4: ${seek.single.seekMs === null ? 'no frame in 15 s' : seconds(seek.single.seekMs)}`,
        },
        edge: {
          value: `first frame ${frame(edge.adaptive).value}, ${stallsOf(edge.adaptive)} stalls, ${edge.adaptive.currentTime.toFixed(0)} s seen, ~${heightOf(edge.adaptive)}p`,
          measured: edge.adaptive.firstFrameAt,
          unit: 'ms',
          note: `${describe(edge.adaptive)}; ${vs(edge.single)}`,
        },
        bytes: {
          value: `${kilobytes(fast.adaptive.down)} / ${kilobytes(fast.adaptive.up)}`,
          measured: fast.adaptive.down,
          unit: 'B',
          note: `Slow 3G: ${kilobytes(slow.adaptive.down)} / ${kilobytes(slow.adaptive.up)}; one MP4 Fast 3G: ${kilobytes(fast.single.down)} / ${kilobytes(fast.single.up)}, Slow 3G: ${kilobytes(slow.single.down)} / ${kilobytes(slow.single.up)}`,
        },
      };
    },
  };
}
