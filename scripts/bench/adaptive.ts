/** The adaptive video on rural links (issue 14) beside one MP4 of its source: docs/benchmarks.md. */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLISHED, type Manifest } from '../../config/media-layout';
import { readPointer } from '../ops/media-versions';
import { prepareVideo } from '../ops/prepare-video';
import { makeClip } from '../test-support/test-clip';
import { FAST_3G, PHONE, SLOW_3G, launchBrowser, link, returningVisitor } from './browser';
import type { Browser, Link } from './browser';
import { benchSite } from './load';
import { REFERENCE, atLeast, atMost, exactly, holds, seconds, section, sum } from './measure';
import { kilobytes, reading, sleep, type Site } from './measure';
import { watchVideo, type Seek } from './watch-video';

/** Not a DevTools preset: the worst links in the field (2G EDGE), for the 144p rung. */
const EDGE = link(1000, 200_000, 100_000);
const [CACHE, WATCH_MS, DROP_AT_MS] = ['bench-results/adaptive', 60_000, 20_000];

/** A bench server on the publish of the 720p source (both made once, in minutes, and cached). */
export async function mediaSite(site: Site, name: string, signal: AbortSignal) {
  const [source, mediaDir] = [join(CACHE, 'source.mp4'), join(CACHE, 'published')];
  if (!existsSync(source)) {
    mkdirSync(CACHE, { recursive: true });
    console.log(`  making a 180 s 1280×720 source (minutes, cached in ${CACHE})`);
    makeClip(source, 180, { size: '1280x720', fps: 30, tone: 300, noisyKbps: 2800 });
  }
  if (!readPointer(mediaDir)) {
    console.log('  publishing it with prepare-video (minutes, cached)');
    await prepareVideo(source, mediaDir);
  }
  const folder = join(mediaDir, readPointer(mediaDir)!.version);
  const manifest = JSON.parse(readFileSync(join(folder, PUBLISHED.manifest), 'utf8')) as Manifest;
  const on = await benchSite(site, `${name}-server`, signal, { MEDIA_DIR: mediaDir });
  return { folder, manifest, site: on, source };
}

type Scenario = { link: Link; dropTo?: Link; seek?: boolean };

/** On the phone's size, the throttled link and the machine's own CPU: the stalls are the link's. */
async function runOnce(browser: Browser, site: Site, { link, dropTo, seek }: Scenario) {
  const visitor = await returningVisitor(site);
  const tab = await browser.tab(PHONE, { link, slowCpu: false });
  const watch = await watchVideo(tab);
  await visitor(tab);
  const startedAt = Date.now();
  const run = { stillStalled: false, heightBeforeDrop: 0, seek: null as Seek };
  if (dropTo || seek) await watch.firstFrame(WATCH_MS);
  if (dropTo) {
    await sleep(((await watch.read()).firstFrameAt ?? 0) + DROP_AT_MS - (Date.now() - startedAt));
    run.heightBeforeDrop = (await watch.read()).heightAtEnd;
    await tab.setLink(dropTo);
  }
  if (seek) {
    await sleep(3_000);
    run.seek = await watch.seek(0.8);
  } else {
    await sleep(WATCH_MS - (Date.now() - startedAt));
    run.stillStalled = await tab.evaluate(() => {
      const video = document.querySelector('video');
      return !!video && !video.paused && video.readyState < 3;
    });
  }
  const [{ all, up }, at, seen] = [tab.requests, await tab.requests.clock(), await watch.read()];
  // On the wire, or what came so far (media data comes without its encoded length).
  const down = sum(all().map((r) => r.wire ?? sum(r.chunks.map(([, data, wire]) => wire || data))));
  // A single MP4 is the page's media requests: its bytes by a time, and where the seek's first
  // Range answer starts (null: no media, no such time, no such answer).
  const media = all().filter((request) => request.type === 'Media');
  const chunks = media.flatMap((request) => request.chunks);
  const bytesBy = (ms?: number | null) =>
    ms == null || !media.length ? null : sum(chunks.filter(([t]) => at(t) <= ms).map(([, b]) => b));
  const sinceSeek = media.filter((r) => run.seek && at(r.sentAt) >= run.seek.requestedAt);
  const ranges = sinceSeek.flatMap((request) => (request.start === null ? [] : [request.start]));
  const [byFrame, beforeSeek] = [bytesBy(seen.firstFrameAt), bytesBy(run.seek?.requestedAt)];
  const mp4 = { byFrame, beforeSeek, seekFrom: ranges.length ? Math.min(...ranges) : null };
  const watched = { ...seen, ...run, ...mp4, down, up: up() };
  await tab.close();
  console.log(`  ${describe(watched)}`);
  return watched;
}

type Run = Awaited<ReturnType<typeof runOnce>>;

const stallsOf = (r: Run) => r.stalls + (r.stillStalled ? 1 : 0);
const heightOf = (r: Run) => (r.playingMs ? Math.round(r.heightMs / r.playingMs) : 0);
const frameOf = (r: Run) => (r.firstFrameAt === null ? 'no frame' : seconds(r.firstFrameAt));
const traffic = (r: Run) => `${kilobytes(r.down)} / ${kilobytes(r.up)}`;
const describe = (r: Run) =>
  `first frame ${frameOf(r)}, ${stallsOf(r)} stalls (${seconds(r.stalledMs)} waiting), ${r.currentTime.toFixed(0)} s seen, ~${heightOf(r)}p played, ${r.heightAtEnd}p at the end, ${traffic(r)}`;

const figure = (text: string, target = REFERENCE) => ({ figure: `Adaptive, ${text}`, target });
const ofMp4 = (text: string, target = REFERENCE) => ({ figure: `One MP4 of it, ${text}`, target });
const [UP_TO_3_S, ONE] = [atMost(3000, seconds), atMost(1)];
const LOWER = holds('lower than before the drop');
const SHARE = atMost(10, (n) => `${n} % of the file`);
const FIGURES = {
  fastFrame: figure('Fast 3G: first frame', UP_TO_3_S),
  fastStalls: figure('Fast 3G: stalls in 60 s', exactly(0)),
  fastHeight: figure('Fast 3G: rendition played', atLeast(360, 'p')),
  slowFrame: figure('Slow 3G: first frame', atMost(8000, seconds)),
  slowStalls: figure('Slow 3G: stalls in 60 s', ONE),
  slowSeen: figure('Slow 3G: video seen in 60 s', atLeast(45, ' s')),
  dropStalls: figure('Fast→Slow 3G at 20 s: stalls', ONE),
  dropLower: figure('Fast→Slow 3G at 20 s: rendition at the end', LOWER),
  seek: figure('Fast 3G: seek to 80 % shows a frame', UP_TO_3_S),
  edge: figure('EDGE (200 kbit/s, 1 s), 60 s'),
  bytes: figure('Fast 3G: bytes in 60 s (down / up)'),
  mp4Fast: ofMp4('Fast 3G, 60 s'),
  mp4Slow: ofMp4('Slow 3G, 60 s'),
  mp4Start: ofMp4('Fast 3G: bytes by the first frame', SHARE),
  mp4Seek: ofMp4('Fast 3G: seek to 80 % plays from there', holds('plays, from a Range there')),
};

const NAME = 'Adaptive video beside one MP4 (3 min 720p source, phone, DevTools throttling, 60 s)';
export const adaptiveMeasurement = section(NAME, 40 * 60_000, FIGURES, async (site, signal) => {
  const { manifest, site: on, source } = await mediaSite(site, 'adaptive', signal);
  // The same source as one faststart MP4, as a server without MEDIA_DIR serves it (design.md).
  const env = { VIDEO_FILE: source, MEDIA_DIR: '' };
  const mp4Site = await benchSite(site, 'adaptive-mp4-server', signal, env);
  const rungs = manifest.rungs.map((r) => `${r.height}p ${Math.round(r.averageBandwidth / 1e3)}k`);
  console.log(`  ladder: ${rungs.join(', ')}`);
  const browser = await launchBrowser(signal);
  const watch = (scenario: Scenario) => runOnce(browser, on, scenario);
  const [fast, slow] = [await watch({ link: FAST_3G }), await watch({ link: SLOW_3G })];
  const drop = await watch({ link: FAST_3G, dropTo: SLOW_3G });
  const seek = await watch({ link: FAST_3G, seek: true });
  const edge = await watch({ link: EDGE });
  const seekMs = seek.seek?.frameMs ?? null;
  const single = (scenario: Scenario) => runOnce(browser, mp4Site, scenario);
  const [mp4Fast, mp4Slow] = [await single({ link: FAST_3G }), await single({ link: SLOW_3G })];
  const mp4Seek = await single({ link: FAST_3G, seek: true });
  const share = (bytes: number | null) => bytes && (100 * bytes) / statSync(source).size;
  const [start, from] = [share(mp4Fast.byFrame), share(mp4Seek.seekFrom)];
  const before = share(mp4Seek.beforeSeek);
  const pct = (n: number | null) => (n === null ? 'none' : `${n.toFixed(1)} % of the file`);
  // Played on from a Range past 10 % of the file, with at most 10 % fetched before it (read from
  // its start): none of the part in between.
  const skipped = from !== null && from > SHARE.limit! && !!SHARE.met(before);
  const plays = !!mp4Seek.seek?.playsOn && skipped;
  const seekText = `from a Range at ${pct(from)}, ${pct(before)} before it; frame after ${seconds(mp4Seek.seek?.frameMs ?? null)}`;
  const stalls = (r: Run) =>
    reading(`${stallsOf(r)} (${seconds(r.stalledMs)} waiting)`, stallsOf(r), describe(r));
  const lower = drop.heightAtEnd > 0 && drop.heightAtEnd < drop.heightBeforeDrop;
  const dropped = `${drop.heightAtEnd}p at the end, ${drop.heightBeforeDrop}p at the drop`;
  const edgeSeen = `${stallsOf(edge)} stalls, ${edge.currentTime.toFixed(0)} s seen, ~${heightOf(edge)}p`;
  return {
    fastFrame: { value: frameOf(fast), measured: fast.firstFrameAt },
    fastStalls: stalls(fast),
    fastHeight: { value: `~${heightOf(fast)}p`, measured: heightOf(fast) },
    slowFrame: { value: frameOf(slow), measured: slow.firstFrameAt },
    slowStalls: stalls(slow),
    slowSeen: { value: `${slow.currentTime.toFixed(0)} s`, measured: slow.currentTime },
    dropStalls: stalls(drop),
    dropLower: reading(dropped, lower),
    seek: reading(seekMs === null ? 'no frame in 15 s' : seconds(seekMs), seekMs),
    edge: reading(`first frame ${frameOf(edge)}, ${edgeSeen}`, edge.firstFrameAt),
    bytes: { value: traffic(fast), measured: fast.down, note: `Slow 3G: ${traffic(slow)}` },
    ...{ mp4Fast: reading(describe(mp4Fast), null), mp4Slow: reading(describe(mp4Slow), null) },
    mp4Start: reading(`${kilobytes(mp4Fast.byFrame ?? 0)} (${pct(start)})`, start),
    mp4Seek: reading(`${plays ? 'yes' : 'no'}, ${seekText}`, plays, describe(mp4Seek)),
  };
});
