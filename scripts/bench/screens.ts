/** The login's paints, both screens' layout shift at two sizes, the video's first frame (docs). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DESKTOP, PHONE, launchBrowser, returningVisitor, sizeOf } from './browser';
import type { Tab, Viewport } from './browser';
import { atEnd, atMost, exactly, figure, medianOf, reading, seconds, section } from './measure';
import { watchVideo } from './watch-video';

const [PAINT_RUNS, SHIFT_RUNS] = [9, 3];
const BARE_PAGE =
  '<!doctype html><html lang="es"><head><meta charset="UTF-8"><meta name="viewport" ' +
  'content="width=device-width, initial-scale=1"><title>Ingresar</title></head>' +
  '<body><p>Ingresar</p></body></html>';

// In the settled page (buffered entries: nothing of ours runs before the first paint): FCP, LCP,
// the layout shifts without recent input summed, and what moved.
function readVitals() {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
  const vitals = { fcp, lcp: null as number | null, cls: 0, moved: [] as string[] };
  const observe = (type: string, each: (entry: PerformanceEntry) => void) => {
    const observer = new PerformanceObserver((list) => list.getEntries().forEach(each));
    observer.observe({ type, buffered: true });
  };
  observe('largest-contentful-paint', (entry) => (vitals.lcp = entry.startTime));
  type Shift = { value: number; hadRecentInput: boolean; sources: { node: Node | null }[] };
  observe('layout-shift', (entry) => {
    const { value, hadRecentInput, sources } = entry as PerformanceEntry & Shift;
    if (hadRecentInput) return;
    vitals.cls += value;
    vitals.moved.push(...sources.map(({ node }) => (node as Element | null)?.className ?? '?'));
  });
  // The observers' buffered entries arrive in a task of their own, queued by observe().
  return new Promise<typeof vitals>((resolve) => setTimeout(() => resolve(vitals), 200));
}
type Vitals = Awaited<ReturnType<typeof readVitals>> & { frame: number | null };

/** The worst run, rounded as the table shows it (so that "0.000" is never a miss). */
function shift(runs: Vitals[]) {
  const worst = runs.reduce((a, b) => (b.cls > a.cls ? b : a));
  const measured = Number(worst.cls.toFixed(3));
  return reading(measured.toFixed(3), measured, `moved: ${worst.moved.join(' ') || 'none'}`);
}

const noShift = exactly(0);
const FIGURES = {
  fcp: figure('Login FCP (4× CPU, Fast 3G)', atMost(800, seconds)),
  lcp: figure('Login LCP (4× CPU, Fast 3G)', atMost(1000, seconds)),
  loginShift: figure(`Login CLS, ${sizeOf(PHONE)}`, noShift),
  loginShiftDesktop: figure(`Login CLS, ${sizeOf(DESKTOP)}`, noShift),
  bareFcp: figure('Bare page FCP, same conditions'),
  frame: figure('VideoPlayer first frame (4× CPU, Fast 3G)', atMost(2500, seconds)),
  video: figure(`VideoPlayer CLS, returning visitor, ${sizeOf(PHONE)}`, noShift),
  videoDesktop: figure(`VideoPlayer CLS, returning visitor, ${sizeOf(DESKTOP)}`, noShift),
};

const NAME = `screens: login paints (median of ${PAINT_RUNS}), layout shift of both screens at both sizes (worst of ${SHIFT_RUNS}+), the video's first frame (median of ${SHIFT_RUNS}), throttled`;
export const screensMeasurement = section(NAME, 300_000, FIGURES, async (site, signal) => {
  const browser = await launchBrowser(signal);
  const html = { 'Content-Type': 'text/html; charset=utf-8' };
  const bare = createServer((_, response) => response.writeHead(200, html).end(BARE_PAGE));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  atEnd(signal, async () => void bare.close());
  const [visitor, port] = [await returningVisitor(site), (bare.address() as AddressInfo).port];
  const [login, bareUrl] = [`${site.origin}${site.base}/login`, `http://127.0.0.1:${port}/`];
  // Not played: Chromium shows each caption at the video's top, then moves it (a shift).
  const player = async (tab: Tab) => {
    const watch = await watchVideo(tab, false);
    await visitor(tab, true);
    await watch.firstFrame(20_000);
    return (await watch.read()).firstFrameAt;
  };
  const pages: [Viewport, number, (tab: Tab) => Promise<number | null | void>][] = [
    [PHONE, PAINT_RUNS, (tab) => tab.navigate(login)],
    [PHONE, PAINT_RUNS, (tab) => tab.navigate(bareUrl)],
    [DESKTOP, SHIFT_RUNS, (tab) => tab.navigate(login)],
    [PHONE, SHIFT_RUNS, player],
    [DESKTOP, SHIFT_RUNS, player],
  ];
  const runs = pages.map((): Vitals[] => []);
  // Interleaved, so that a busier moment of the machine weighs on all alike.
  for (let i = 0; i < PAINT_RUNS; i += 1)
    for (const [k, [viewport, count, open]] of pages.entries()) {
      if (i >= count) continue;
      const tab = await browser.tab(viewport);
      const frame = (await open(tab)) ?? null;
      // React takes the page over and asks for more (the screen's chunk, the signin chunk).
      await tab.quiet(1_000, 15_000);
      runs[k]!.push({ ...(await tab.evaluate(readVitals)), frame });
      await tab.close();
    }
  const [logins, bares, loginsDesktop, videos, videosDesktop] = runs as Vitals[][];
  const paints = (key: 'fcp' | 'lcp', runs: Vitals[]) => medianOf(runs.map((run) => run[key]));
  return {
    ...{ fcp: paints('fcp', logins!), lcp: paints('lcp', logins!) },
    ...{ loginShift: shift(logins!), loginShiftDesktop: shift(loginsDesktop!) },
    ...{ bareFcp: paints('fcp', bares!), frame: medianOf(videos!.map((run) => run.frame)) },
    ...{ video: shift(videos!), videoDesktop: shift(videosDesktop!) },
  };
});
