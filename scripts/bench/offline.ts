/** Watching with no signal (issue 22) on the bench's 720p publish: docs/benchmarks.md. */
import { mediaSite } from './adaptive';
import { FAST_3G, OFFLINE, PHONE, launchBrowser, returningVisitor, videoScreen } from './browser';
import type { Browser, Link, Tab, Visitor } from './browser';
import { atMost, figure, kilobytes, medianOf, poll, reading, repeat, section } from './measure';
import { seconds, sleep } from './measure';
import { watchVideo } from './watch-video';

const [RUNS, OUTAGE_AT_MS, OUTAGE_MS] = [3, 20_000, 45_000];

/** In the page: once the worker is in control, the download's label, and pressed. */
function offer() {
  const button = [...document.querySelectorAll('button')].find((b) =>
    b.textContent?.startsWith('Descargar para ver sin conexión'),
  );
  if (!navigator.serviceWorker.controller || !button) return null;
  button.click();
  return `${button.textContent} at ${document.querySelector<HTMLSelectElement>('.offline select')?.value}p`;
}

/** In the page: bytes of the download in Cache Storage (what the downloader stored). */
async function storedBytes() {
  let total = 0;
  for (const name of (await caches.keys()).filter((n) => n.startsWith('offline-video:')))
    for (const answer of await (await caches.open(name)).matchAll())
      total += (await answer.blob()).size;
  return total;
}

/** The video screen, opened by `open`, to its first frame, the page and its worker on `link`. */
async function watching(browser: Browser, link: Link, open: Visitor, contextId?: string) {
  const options = { link, slowCpu: link === OFFLINE, cache: true, contextId, workers: true };
  const tab = await browser.tab(PHONE, options);
  const watch = await watchVideo(tab);
  await open(tab);
  if (!(await watch.firstFrame(60_000))) throw new Error('no first frame in 60 s');
  return { tab, frame: (await watch.read()).firstFrameAt };
}

const ONE_S = atMost(1000, seconds);
const FIGURES = {
  download: figure('Offline: download at the default rendition, Fast 3G (time, bytes)'),
  frame: figure('Offline: network off, stored session: navigation → first frame (4× CPU)', ONE_S),
  outage: figure('Offline: 45 s outage 20 s into playback, Fast 3G: link back → playback moves'),
};

const NAME = 'offline: download, the stored copy with no network, an outage (720p source, phone)';
export const offlineMeasurement = section(NAME, 15 * 60_000, FIGURES, async (site, signal) => {
  const { site: on } = await mediaSite(site, 'offline', signal);
  const reopen = (again: Tab) => again.navigate(videoScreen(on), false); // the context's session
  const [visitor, browser] = [await returningVisitor(on), await launchBrowser(signal)];
  // Not played: the download alone on the link, the worker's (which passes its fetches on) too.
  const tab = await browser.tab(PHONE, { slowCpu: false, cache: true, workers: true });
  await visitor(tab, true);
  const label = await poll(() => tab.evaluate(offer), 60_000);
  if (!label) throw new Error('no download offered in 60 s');
  const started = Date.now();
  const ready = () => document.body.textContent!.includes('Lista para ver sin conexión');
  if (!(await tab.waitFor(ready, 8 * 60_000))) throw new Error('download not done in 8 min');
  const downloadMs = Date.now() - started;
  const bytes = await tab.evaluate(storedBytes);
  const floor = FAST_3G.latency + (1000 * bytes) / FAST_3G.downloadThroughput;
  await tab.navigate('about:blank');
  // The same context (session, download, worker) with no network at all, on a 4× slower CPU.
  const frames = await repeat(RUNS, async () => {
    const offline = await watching(browser, OFFLINE, reopen, tab.contextId);
    await offline.tab.close();
    return offline.frame;
  });
  await tab.close();
  // A new context, no download: the link goes 20 s into playback and is back 45 s later.
  const { tab: online } = await watching(browser, FAST_3G, visitor);
  await sleep(OUTAGE_AT_MS);
  await online.setLink(OFFLINE);
  await sleep(OUTAGE_MS);
  const stalled = await online.evaluate(() => document.querySelector('video')!.readyState < 3);
  const playedTo = () => online.evaluate(() => document.querySelector('video')!.currentTime);
  const from = await playedTo();
  await online.setLink(FAST_3G);
  const linkBack = Date.now();
  const moved = await poll(async () => (await playedTo()) > from + 0.05, 60_000, 50);
  const movedMs = moved ? Date.now() - linkBack : null;
  const back = `${stalled ? 'stalled' : 'still playing'} when the link came back`;
  await online.close();
  const took = `${seconds(downloadMs)}, ${kilobytes(bytes)} (floor ${seconds(floor)})`;
  const how = `${label}; page and service worker on Fast 3G; floor: a round trip and the bytes stored`;
  return {
    download: reading(took, downloadMs, how),
    frame: medianOf(frames),
    outage: reading(movedMs === null ? 'did not move in 60 s' : seconds(movedMs), movedMs, back),
  };
});
