/**
 * The two screens as they first load on a throttled phone: the login's First Contentful Paint
 * and Largest Contentful Paint (median of nine runs: one run on a shared two-core machine varies
 * by ±0.1 s), and the layout shift of the login and of a returning visitor's video screen at
 * 390×844 and 1280×800 (the worst of three runs: a shift seen once in three is one visitors see).
 * Each run is a fresh context, read from the browser's own buffers once the page is quiet.
 * Beside them, the FCP of a bare page (one paragraph, from a plain loopback server): what no
 * page can beat on this machine under these conditions.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DESKTOP,
  PHONE,
  launchBrowser,
  returningVisitor,
  type Browser,
  type Viewport,
  type Visitor,
} from './browser';
import {
  REFERENCE,
  atMost,
  exactly,
  median,
  runsOf,
  seconds,
  type Measurement,
  type Site,
} from './measure';

const PAINT_RUNS = 9;
const SHIFT_RUNS = 3;

interface Vitals {
  fcp: number | null;
  lcp: number | null;
  /** Every layout shift without recent input, summed (at least the CLS of any window). */
  cls: number;
  /** What moved, for the worst run's note. */
  shifts: string[];
}

/**
 * Runs in the page once it has settled: paint, LCP and layout-shift entries are buffered, so
 * the page under test runs nothing of ours before its first paint.
 */
function readVitals(): Promise<Vitals> {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const vitals: Vitals = { fcp: fcp ? fcp.startTime : null, lcp: null, cls: 0, shifts: [] };
  const observe = (type: string, each: (entry: PerformanceEntry) => void) =>
    new PerformanceObserver((list) => list.getEntries().forEach(each)).observe({
      type,
      buffered: true,
    });
  observe('largest-contentful-paint', (entry) => (vitals.lcp = entry.startTime));
  type Shift = PerformanceEntry & {
    value: number;
    hadRecentInput: boolean;
    sources: { node: Node | null }[];
  };
  observe('layout-shift', (entry) => {
    const shift = entry as Shift;
    if (shift.hadRecentInput) return;
    vitals.cls += shift.value;
    const moved = shift.sources.map(({ node }) =>
      node instanceof Element ? `${node.tagName.toLowerCase()}.${node.className}` : 'a node',
    );
    vitals.shifts.push(
      `${shift.value.toFixed(3)} at ${(shift.startTime / 1000).toFixed(2)} s: ${moved.join(', ')}`,
    );
  });
  // The observers' buffered entries arrive in a task of their own, queued by observe().
  return new Promise((resolve) => setTimeout(() => resolve(vitals), 200));
}

async function loadOnce(browser: Browser, viewport: Viewport, url: string, visitor?: Visitor) {
  const tab = await browser.tab(viewport);
  try {
    if (visitor) await visitor(tab, url);
    await tab.navigate(url);
    // React takes the page over and asks for more (the screen's chunk, the signin chunk).
    await tab.quiet(1_000, 15_000);
    return await tab.evaluate(readVitals);
  } finally {
    await tab.close();
  }
}

function paint(runs: (number | null)[]) {
  const value = median(runs);
  return {
    value: value === null ? 'none' : seconds(value),
    measured: value,
    note: runsOf(runs, seconds),
  };
}

function shift(runs: Vitals[]) {
  const worst = runs.reduce((a, b) => (b.cls > a.cls ? b : a));
  // Rounded as the table shows it, so that "0.000" is never a miss.
  const measured = Number(worst.cls.toFixed(3));
  const what = worst.shifts.length ? `; ${worst.shifts.join(' | ')}` : '';
  return {
    value: measured.toFixed(3),
    measured,
    note: `${runsOf(
      runs.map((run) => run.cls),
      (n) => n.toFixed(4),
    )}${what}`,
  };
}

type Key =
  'fcp' | 'lcp' | 'loginShift' | 'loginShiftDesktop' | 'bareFcp' | 'video' | 'videoDesktop';

export function screensMeasurement(site: Site): Measurement<Key> {
  const noShift = exactly(0);
  return {
    name: `screens: login paints (median of ${PAINT_RUNS}), layout shift of both screens at both sizes (worst of ${SHIFT_RUNS}+), throttled`,
    timeoutMs: 300_000,
    figures: {
      fcp: { figure: 'Login FCP (4× CPU, Fast 3G)', target: atMost(800, seconds) },
      lcp: { figure: 'Login LCP (4× CPU, Fast 3G)', target: atMost(1000, seconds) },
      loginShift: { figure: `Login CLS, ${PHONE.name}`, target: noShift },
      loginShiftDesktop: { figure: `Login CLS, ${DESKTOP.name}`, target: noShift },
      bareFcp: { figure: 'Bare page FCP, same conditions', target: REFERENCE },
      video: { figure: `VideoPlayer CLS, returning visitor, ${PHONE.name}`, target: noShift },
      videoDesktop: {
        figure: `VideoPlayer CLS, returning visitor, ${DESKTOP.name}`,
        target: noShift,
      },
    },
    async run(signal) {
      const browser = await launchBrowser(signal);
      const bare = createServer((_request, response) => {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        response.end(
          '<!doctype html><html lang="es"><head><meta charset="UTF-8"><meta name="viewport" ' +
            'content="width=device-width, initial-scale=1"><title>Ingresar</title></head>' +
            '<body><p>Ingresar</p></body></html>',
        );
      });
      await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
      signal.addEventListener('abort', () => bare.close(), { once: true });
      const login = `${site.origin}${site.base}/login`;
      const player = `${site.origin}${site.base}/VideoPlayer`;
      const visitor = await returningVisitor(site);
      const page = (viewport: Viewport, url: string, count: number, visitor?: Visitor) => {
        return { viewport, url, count, visitor, runs: [] as Vitals[] };
      };
      const pages = {
        login: page(PHONE, login, PAINT_RUNS),
        bare: page(PHONE, `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`, PAINT_RUNS),
        loginDesktop: page(DESKTOP, login, SHIFT_RUNS),
        video: page(PHONE, player, SHIFT_RUNS, visitor),
        videoDesktop: page(DESKTOP, player, SHIFT_RUNS, visitor),
      };
      try {
        // Interleaved, so that a busier moment of the machine weighs on all alike.
        for (let i = 0; i < PAINT_RUNS; i += 1) {
          for (const { viewport, url, count, visitor, runs } of Object.values(pages))
            if (i < count) runs.push(await loadOnce(browser, viewport, url, visitor));
        }
      } finally {
        bare.close();
        await browser.close();
      }
      return {
        fcp: paint(pages.login.runs.map((run) => run.fcp)),
        lcp: paint(pages.login.runs.map((run) => run.lcp)),
        loginShift: shift(pages.login.runs),
        loginShiftDesktop: shift(pages.loginDesktop.runs),
        bareFcp: paint(pages.bare.runs.map((run) => run.fcp)),
        video: shift(pages.video.runs),
        videoDesktop: shift(pages.videoDesktop.runs),
      };
    },
  };
}
