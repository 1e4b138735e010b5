/**
 * The login page's paint metrics under a throttled phone: First Contentful Paint, Largest
 * Contentful Paint and Cumulative Layout Shift, read after the load from the browser's own
 * buffers, on a bare DevTools connection (cdp.ts). The median of nine fresh runs, each in a new
 * context (no cache or storage carried over): one run on a shared two-core machine varies by
 * ±0.1 s, because every stall of the throttled renderer is stretched four times.
 *
 * Beside it, the same FCP of a bare page (one paragraph, no script, no style, from a plain
 * loopback server): what no page can beat on this machine under these conditions, so that a
 * reader can tell how much of the login's FCP is the page and how much the emulated phone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KEEP_NAMES_SHIM } from './browser';
import { launchCdpBrowser, throttledTab, type CdpBrowser } from './cdp';
import { median, seconds, type Measurement } from './measure';
import type { Site } from './site';

const RUNS = 9;
/** After `load`, React takes the markup over; a shift or a new LCP candidate then still counts. */
const SETTLE_MS = 2_000;

interface Vitals {
  fcp: number | null;
  lcp: number | null;
  cls: number;
  lcpElement: string | null;
  /** When the page's own script and style files finished downloading (ms since navigation). */
  resources: { name: string; end: number }[];
  htmlEnd: number | null;
}

/**
 * Runs in the page after its load and settle time. Paint, LCP and layout-shift entries are
 * buffered by the browser, so observers created now still receive every one of them, and the
 * page under test runs nothing of ours before its first paint.
 */
function readVitals(): Promise<Vitals> {
  const vitals: Vitals = {
    fcp: null,
    lcp: null,
    cls: 0,
    lcpElement: null,
    resources: [],
    htmlEnd: null,
  };
  const describe = (element: Element | null | undefined) => {
    if (!element) return null;
    const id = element.id ? `#${element.id}` : '';
    const classes =
      typeof element.className === 'string' && element.className
        ? `.${element.className.trim().split(/\s+/).join('.')}`
        : '';
    const src = element.getAttribute('src');
    const file = src?.startsWith('data:')
      ? `${src.slice(0, src.search(/[;,]/))} URI`
      : src?.split('/').pop();
    return `${element.tagName.toLowerCase()}${id}${classes}${file ? ` (${file})` : ''}`;
  };
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  vitals.fcp = fcp ? fcp.startTime : null;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { element?: Element | null })[]) {
      vitals.lcp = entry.startTime;
      vitals.lcpElement = describe(entry.element);
    }
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      value: number;
      hadRecentInput: boolean;
    })[])
      if (!entry.hadRecentInput) vitals.cls += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
  vitals.resources = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
    .filter((entry) => ['script', 'link', 'img', 'css'].includes(entry.initiatorType))
    .map((entry) => ({ name: entry.name.split('/').pop() ?? entry.name, end: entry.responseEnd }));
  const navigation = performance.getEntriesByType('navigation')[0] as
    PerformanceNavigationTiming | undefined;
  vitals.htmlEnd = navigation?.responseEnd ?? null;
  // The observers' buffered entries arrive in a task of their own, queued by observe().
  return new Promise((resolve) => setTimeout(() => resolve(vitals), 200));
}

const BARE_PAGE =
  '<!doctype html><html lang="es"><head><meta charset="UTF-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Ingresar</title>' +
  '</head><body><p>Ingresar</p></body></html>';

async function startBarePageServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(BARE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const READ_VITALS = `${KEEP_NAMES_SHIM} (${readVitals.toString()})()`;

async function loadOnce(browser: CdpBrowser, url: string): Promise<Vitals> {
  const tab = await throttledTab(browser);
  try {
    await tab.load(url);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return await tab.evaluate<Vitals>(READ_VITALS);
  } finally {
    await tab.close();
  }
}

/** What a lead needs to see why a paint is late: when the HTML and each file arrived. */
function timeline(run: Vitals): string {
  const files = run.resources.map((r) => `${r.name} ${seconds(r.end)}`).join(', ');
  return `html ${run.htmlEnd === null ? '?' : seconds(run.htmlEnd)}${files ? `, ${files}` : ''}`;
}

const orNull = (values: (number | null)[]) =>
  values.some((value) => value === null) ? null : median(values as number[]);

export function loginMeasurement(site: Site): Measurement<'fcp' | 'lcp' | 'cls' | 'bareFcp'> {
  return {
    name: `login page: FCP, LCP, CLS (median of ${RUNS}, throttled)`,
    timeoutMs: 180_000,
    figures: {
      fcp: { figure: 'Login FCP (4× CPU, Fast 3G)', target: '≤ 0.80 s' },
      lcp: { figure: 'Login LCP (4× CPU, Fast 3G)', target: '≤ 1.00 s' },
      cls: { figure: 'Login CLS', target: '0' },
      bareFcp: { figure: 'Bare page FCP, same conditions', target: 'reference, no target' },
    },
    async run(signal) {
      const browser = launchCdpBrowser();
      signal.addEventListener('abort', () => void browser.close(), { once: true });
      const bare = await startBarePageServer();
      signal.addEventListener('abort', () => bare.server.close(), { once: true });
      const runs: Vitals[] = [];
      const bareRuns: Vitals[] = [];
      try {
        // Interleaved, so that a busier moment of the machine weighs on both alike.
        for (let i = 0; i < RUNS; i += 1) {
          const run = await loadOnce(browser, `${site.origin}${site.base}/login`);
          const bareRun = await loadOnce(browser, bare.url);
          console.log(
            `  run ${i + 1}: FCP ${run.fcp === null ? '-' : seconds(run.fcp)}, LCP ${run.lcp === null ? '-' : seconds(run.lcp)} (${run.lcpElement ?? '?'}), CLS ${run.cls.toFixed(3)}; bare page FCP ${bareRun.fcp === null ? '-' : seconds(bareRun.fcp)}`,
          );
          runs.push(run);
          bareRuns.push(bareRun);
        }
      } finally {
        bare.server.close();
        await browser.close();
      }
      const bareFcp = orNull(bareRuns.map((run) => run.fcp));
      const fcp = orNull(runs.map((run) => run.fcp));
      const lcp = orNull(runs.map((run) => run.lcp));
      const cls = median(runs.map((run) => run.cls));
      const list = (pick: (run: Vitals) => number | null, of = runs) =>
        of.map((run) => (pick(run) === null ? '-' : seconds(pick(run)!))).join(', ');
      const middle = runs[Math.floor(runs.length / 2)]!;
      return {
        fcp: {
          value: fcp === null ? 'no paint' : seconds(fcp),
          met: fcp !== null && fcp <= 800,
          measured: fcp,
          unit: 'ms',
          note: `runs ${list((run) => run.fcp)}; ${timeline(middle)}`,
        },
        lcp: {
          value: lcp === null ? 'no LCP' : seconds(lcp),
          met: lcp !== null && lcp <= 1000,
          measured: lcp,
          unit: 'ms',
          note: `runs ${list((run) => run.lcp)}; element ${middle.lcpElement ?? '?'}`,
        },
        cls: {
          value: cls.toFixed(3),
          met: cls === 0,
          measured: cls,
          note: `runs ${runs.map((run) => run.cls.toFixed(4)).join(', ')}`,
        },
        bareFcp: {
          value: bareFcp === null ? 'no paint' : seconds(bareFcp),
          met: null,
          measured: bareFcp,
          unit: 'ms',
          note: `runs ${list((run) => run.fcp, bareRuns)}; one <p>, ${Buffer.byteLength(BARE_PAGE)} bytes, no script or style: about the floor of any page here`,
        },
      };
    },
  };
}
