/** The video screen of a returning visitor: first frame, bytes by then, a seek to 80 %. */
import { PHONE, launchBrowser, returningVisitor } from './browser';
import type { Browser, Chunk, Visitor } from './browser';
import { atMost, figure, holds, kilobytes, median, medianOf, runsOf, seconds } from './measure';
import { reading, repeat, section } from './measure';
import { watchVideo } from './watch-video';

const [RUNS, SEEK_FRACTION, START_BUDGET] = [3, 0.8, 0.1];

/** Bytes of the file inside [from, to) covered by the spans, counting each byte once. */
function bytesWithin(spans: { offset: number; bytes: number }[], from: number, to: number) {
  let [total, reached] = [0, from];
  for (const { offset, bytes } of [...spans].sort((a, b) => a.offset - b.offset)) {
    const [start, end] = [Math.max(offset, reached), Math.min(offset + bytes, to)];
    if (end > start) [total, reached] = [total + end - start, end];
  }
  return total;
}

async function playOnce(browser: Browser, visitor: Visitor) {
  const tab = await browser.tab(PHONE);
  const [watch, tracked] = [await watchVideo(tab, 'metadata'), tab.requests];
  await visitor(tab);
  const seek = (await watch.firstFrame(20_000)) ? await watch.seek(SEEK_FRACTION) : null;
  const [{ firstFrameAt: frame }, at] = [await watch.read(), await tracked.clock()];
  await tab.close();
  const requests = tracked.all().filter((request) => request.type === 'Media');
  const fileSize = requests.find((request) => request.size !== null)?.size ?? 0;
  const sum = (chunks: Chunk[]) => chunks.reduce((total, [, bytes]) => total + bytes, 0);
  // Each answer lies in the file from its start on.
  const spans = requests.map(({ start, chunks }) => ({ offset: start, bytes: sum(chunks) }));
  const chunks = requests.flatMap((request) => request.chunks);
  // The part in between ends where the seek's own request starts (the keyframe before 80 % of
  // the time sits a little before 80 % of the bytes), or at 80 % if there was no such request.
  const afterSeek = seek ? requests.filter((r) => at(r.sentAt) >= seek.requestedAt) : [];
  const seekStart = afterSeek.length ? Math.min(...afterSeek.map((r) => r.start)) : null;
  const end = Math.min(seekStart ?? Infinity, fileSize * SEEK_FRACTION);
  const [from, to] = [Math.floor(fileSize * START_BUDGET), Math.floor(end)];
  return {
    fileSize: fileSize || null,
    startBytes: frame === null ? null : sum(chunks.filter(([time]) => at(time) <= frame)),
    between: seek && fileSize ? bytesWithin(spans, from, to) : null,
    // Plays from there, on data from a Range request that skipped the part in between.
    seekPlays: !!seek?.playsOn && !!fileSize && (seekStart ?? 0) / fileSize > START_BUDGET,
    ...{ frame, seekFrame: seek?.frameMs ?? null },
  };
}

type Run = Awaited<ReturnType<typeof playOnce>>;
const share = atMost(START_BUDGET * 100, (n) => `${n} % of file`);
const FIGURES = {
  frame: figure('VideoPlayer first frame (4× CPU, Fast 3G)', atMost(2500, seconds)),
  start: figure('Video bytes by first frame', share),
  seek: figure('Seek to 80 % plays from there', holds('plays, via a Range request')),
  between: figure('Video bytes fetched between 10 % and the seek point', share),
};

const NAME = `VideoPlayer: first frame, bytes, seek (median of ${RUNS}, throttled)`;
export const videoMeasurement = section(NAME, 180_000, FIGURES, async (site, signal) => {
  const [browser, visitor] = [await launchBrowser(signal), await returningVisitor(site)];
  const runs = await repeat(RUNS, () => playOnce(browser, visitor));
  const size = runs.find((run) => run.fileSize !== null)?.fileSize ?? null;
  const ofFile = (pick: (run: Run) => number | null) => {
    const [bytes, note] = [median(runs.map(pick)), runsOf(runs.map(pick), kilobytes)];
    if (bytes === null || size === null) return reading('n/a', null, note);
    const share = (100 * bytes) / size;
    return reading(`${kilobytes(bytes)} (${share.toFixed(1)} %)`, share, note);
  };
  const [seekFrames, plays] = [runs.map((run) => run.seekFrame), runs.every((r) => r.seekPlays)];
  const seek = plays ? `yes, frame after ${seconds(median(seekFrames))}` : 'no';
  return {
    frame: medianOf(runs.map((run) => run.frame)),
    start: ofFile((run) => run.startBytes),
    seek: reading(seek, plays, runsOf(seekFrames, seconds)),
    between: ofFile((run) => run.between),
  };
});
