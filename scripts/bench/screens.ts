/**
 * The two screens as they first load, on a throttled browser: the login's First Contentful
 * Paint and Largest Contentful Paint on a phone, and the layout shift of the login and of a
 * returning visitor's video screen, each at 390×844 and 1280×800. Every run is a fresh context
 * (no cache or storage carried over), read from the browser's own buffers once the page has
 * been quiet for a while.
 *
 * Paints are the median of nine runs: one run on a shared two-core machine varies by ±0.1 s,
 * because every stall of the throttled renderer is stretched four times. Layout shift is the
 * worst run: a shift that shows once in three runs is one that visitors see.
 *
 * Beside them, the same FCP of a bare page (one paragraph, no script, no style, from a plain
 * loopback server): what no page can beat on this machine under these conditions, so that a
 * reader can tell how much of the login's FCP is the page and how much the emulated phone.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESSION_KEY, newSession } from '../../machines/session';
import { signedIn } from '../test-support/test-server';
import { DESKTOP, PHONE, launchBrowser, type Browser, type Tab, type Viewport } from './browser';
import {
  REFERENCE,
  atMost,
  exactly,
  median,
  seconds,
  type Measurement,
  type Reading,
  type Site,
} from './measure';

const PAINT_RUNS = 9;
const SHIFT_RUNS = 3;
/** After `load` and the last request, what a late shift or paint still has to show. */
const QUIET_MS = 1_000;
const QUIET_AT_MOST_MS = 15_000;

interface Vitals {
  fcp: number | null;
  lcp: number | null;
  lcpElement: string | null;
  /** Every layout shift without recent input, summed (at least the CLS of any window). */
  cls: number;
  /** What moved, for the worst run's note. */
  shifts: string[];
  /** When the HTML and the page's own files finished downloading (ms since navigation). */
  timeline: string;
}

/**
 * Runs in the page after it has settled. Paint, LCP and layout-shift entries are buffered by
 * the browser, so observers created now still receive every one of them, and the page under
 * test runs nothing of ours before its first paint.
 */
function readVitals(): Promise<Vitals> {
  const describe = (node: Node | null | undefined) => {
    if (!(node instanceof Element)) return node?.nodeName.toLowerCase() ?? '?';
    const id = node.id ? `#${node.id}` : '';
    const classes =
      typeof node.className === 'string' && node.className.trim()
        ? `.${node.className.trim().split(/\s+/).join('.')}`
        : '';
    const src = node.getAttribute('src');
    const file = src?.startsWith('data:') ? 'data: URI' : src?.split('/').pop();
    return `${node.tagName.toLowerCase()}${id}${classes}${file ? ` (${file})` : ''}`;
  };
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const vitals: Vitals = {
    fcp: fcp ? fcp.startTime : null,
    lcp: null,
    lcpElement: null,
    cls: 0,
    shifts: [],
    timeline: '',
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { element?: Element | null })[]) {
      vitals.lcp = entry.startTime;
      vitals.lcpElement = describe(entry.element);
    }
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  type Shift = PerformanceEntry & {
    value: number;
    hadRecentInput: boolean;
    sources: { node: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Shift[]) {
      if (entry.hadRecentInput) continue;
      vitals.cls += entry.value;
      const moved = entry.sources.map(
        ({ node, previousRect: a, currentRect: b }) =>
          `${node ? describe(node) : 'a node since removed'} (${Math.round(a.x)}, ${Math.round(a.y)}) → (${Math.round(b.x)}, ${Math.round(b.y)})`,
      );
      vitals.shifts.push(
        `${entry.value.toFixed(3)} at ${(entry.startTime / 1000).toFixed(2)} s: ${moved.join('; ')}`,
      );
    }
  }).observe({ type: 'layout-shift', buffered: true });
  const at = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
  vitals.timeline = [
    `html ${at(navigation.responseEnd)}`,
    ...(performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => ['script', 'link', 'img', 'css'].includes(entry.initiatorType))
      .map((entry) => `${entry.name.split('/').pop()} ${at(entry.responseEnd)}`),
  ].join(', ');
  // The observers' buffered entries arrive in a task of their own, queued by observe().
  return new Promise((resolve) => setTimeout(() => resolve(vitals), 200));
}

const BARE_PAGE =
  '<!doctype html><html lang="es"><head><meta charset="UTF-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Ingresar</title>' +
  '</head><body><p>Ingresar</p></body></html>';

async function startBarePageServer() {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(BARE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** A returning visitor: the server's session cookie and the session the app stored at login. */
export interface Visitor {
  cookie: string;
  stored: { key: string; value: string };
}

export async function returningVisitor(site: Site): Promise<Visitor> {
  const { cookie, empresa, nombres } = await signedIn(site);
  const session = newSession({ username: site.username, empresa, nombres }, Date.now());
  return { cookie, stored: { key: SESSION_KEY, value: JSON.stringify(session) } };
}

/** Makes `tab` the browser of `visitor` before it opens `url`. */
export async function comeBack(tab: Tab, url: string, visitor: Visitor): Promise<void> {
  await tab.setCookies(url, visitor.cookie);
  await tab.beforeScripts(
    (stored) => localStorage.setItem(stored.key, stored.value),
    visitor.stored,
  );
}

async function loadOnce(
  browser: Browser,
  viewport: Viewport,
  url: string,
  visitor?: Visitor,
): Promise<Vitals> {
  const tab = await browser.tab(viewport);
  try {
    if (visitor) await comeBack(tab, url, visitor);
    await tab.navigate(url);
    // React takes the page over and asks for more (the screen's chunk, the signin chunk).
    await tab.quiet(QUIET_MS, QUIET_AT_MOST_MS);
    return await tab.evaluate(readVitals);
  } finally {
    await tab.close();
  }
}

const runsOf = (values: (number | null)[]) => `runs ${values.map(seconds).join(', ')}`;

function paint(runs: Vitals[], pick: (run: Vitals) => number | null, note: string): Reading {
  const value = median(runs.map(pick));
  return {
    value: value === null ? 'none' : seconds(value),
    measured: value,
    unit: 'ms',
    note: `${runsOf(runs.map(pick))}; ${note}`,
  };
}

function shift(runs: Vitals[]): Reading {
  const worst = runs.reduce((a, b) => (b.cls > a.cls ? b : a));
  // Rounded as the table shows it, so that "0.000" is never a miss.
  const measured = Number(worst.cls.toFixed(3));
  return {
    value: measured.toFixed(3),
    measured,
    note: `worst of ${runs.length} runs (${runs.map((run) => run.cls.toFixed(4)).join(', ')})${worst.shifts.length ? `; ${worst.shifts.join(' | ')}` : ''}`,
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
      const bare = await startBarePageServer();
      signal.addEventListener('abort', () => bare.server.close(), { once: true });
      const login = `${site.origin}${site.base}/login`;
      const player = `${site.origin}${site.base}/VideoPlayer`;
      const visitor = await returningVisitor(site);
      const page = (viewport: Viewport, url: string, count: number, visitor?: Visitor) => ({
        viewport,
        url,
        count,
        visitor,
        runs: [] as Vitals[],
      });
      const pages = {
        login: page(PHONE, login, PAINT_RUNS),
        bare: page(PHONE, bare.url, PAINT_RUNS),
        loginDesktop: page(DESKTOP, login, SHIFT_RUNS),
        video: page(PHONE, player, SHIFT_RUNS, visitor),
        videoDesktop: page(DESKTOP, player, SHIFT_RUNS, visitor),
      };
      try {
        // Interleaved, so that a busier moment of the machine weighs on all alike.
        for (let i = 0; i < PAINT_RUNS; i += 1) {
          for (const [name, { viewport, url, count, visitor, runs }] of Object.entries(pages)) {
            if (i >= count) continue;
            const run = await loadOnce(browser, viewport, url, visitor);
            runs.push(run);
            console.log(
              `  run ${i + 1} ${name}: FCP ${seconds(run.fcp)}, LCP ${seconds(run.lcp)} (${run.lcpElement ?? '?'}), CLS ${run.cls.toFixed(3)}`,
            );
          }
        }
      } finally {
        bare.server.close();
        await browser.close();
      }
      const middle = pages.login.runs[Math.floor(PAINT_RUNS / 2)]!;
      return {
        fcp: paint(pages.login.runs, (run) => run.fcp, middle.timeline),
        lcp: paint(pages.login.runs, (run) => run.lcp, `element ${middle.lcpElement ?? '?'}`),
        loginShift: shift(pages.login.runs),
        loginShiftDesktop: shift(pages.loginDesktop.runs),
        bareFcp: paint(
          pages.bare.runs,
          (run) => run.fcp,
          `one <p>, ${Buffer.byteLength(BARE_PAGE)} bytes, no script or style: about the floor of any page here`,
        ),
        video: shift(pages.video.runs),
        videoDesktop: shift(pages.videoDesktop.runs),
      };
    },
  };
}
