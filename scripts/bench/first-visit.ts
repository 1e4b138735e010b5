/** The first visit and the returning one on Slow and Fast 3G, beside their floors (issue 27). */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { RUNG_FILES, segmentName, type Manifest } from '../../config/media-layout';
import { SIGNIN_PATH } from '../test-support/test-server';
import { firstFragmentBytes } from '../ops/fragments';
import { clearSegment } from '../ops/media-crypto';
import { mediaSite } from './adaptive';
import { FAST_3G, PHONE, SLOW_3G, launchBrowser, returningVisitor } from './browser';
import type { Browser, Link, Tab } from './browser';
import { REFERENCE, atMost, figure, kilobytes, median, poll, seconds, sleep } from './measure';
import { exactly, section, type Figure, type Reading, type Site } from './measure';
import { watchVideo } from './watch-video';

const [RUNS, WAIT_MS, STALL_WINDOW_MS, JOURNEY_MS] = [3, 60_000, 30_000, 4 * 60_000];
const LINKS = { 'Slow 3G': SLOW_3G, 'Fast 3G': FAST_3G };
type LinkName = keyof typeof LINKS;

/** The first frame's need: the smallest rendition's init and first fragment (shown once whole). */
function startBytes(folder: string, manifest: Manifest): number {
  const rung = manifest.rungs.reduce((low, each) => (each.height < low.height ? each : low));
  const first = clearSegment(folder, manifest, join(rung.dir, segmentName(0)), 0);
  return statSync(join(folder, rung.dir, RUNG_FILES.init)).size + firstFragmentBytes(first);
}

/** A tab watching its video and requests; `end()`: the first frame, the signin, bytes by time. */
async function visit(browser: Browser, link: Link, before?: Tab, workers = false) {
  const options = { link, slowCpu: false, cache: !!before, contextId: before?.contextId, workers };
  const tab = await browser.tab(PHONE, options);
  const [watch, requests] = [await watchVideo(tab), tab.requests];
  const signin = () =>
    requests.all().find((r) => r.method === 'POST' && r.url.endsWith(SIGNIN_PATH));
  const end = async () => {
    await watch.firstFrame(WAIT_MS);
    const [at, all] = [await requests.clock(), requests.all()];
    const sum = (chunks: number[][]) => chunks.reduce((total, [, bytes]) => total + bytes!, 0);
    const bytes = (from: number, to: number) =>
      all.reduce((total, { wire, chunks }) => {
        const within = chunks.filter(([time]) => at(time) >= from && at(time) < to);
        return total + ((wire || sum(chunks)) * sum(within)) / (sum(chunks) || 1);
      }, 0);
    const documents = all.filter((request) => request.type === 'Document');
    if (documents.length > 1) throw new Error('the page was loaded again after the signin');
    const left = signin()?.sentAt;
    const frame = (await watch.read()).firstFrameAt;
    return { frame, signin: left && at(left), html: documents[0]?.wire ?? 0, bytes };
  };
  return { tab, signinLeft: () => !!signin(), end, watch };
}

/** In the page: now, and the centre of "Ingresar" if it is there. */
function ingresar() {
  const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Ingresar');
  const box = button?.getBoundingClientRect();
  return box && { now: performance.now(), x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** A new visitor types the password at the login's first paint and presses after `typingMs`. */
async function firstVisit(browser: Browser, site: Site, link: Link, typingMs: number) {
  const { tab, signinLeft, end, watch } = await visit(browser, link);
  try {
    await tab.navigate(`${site.origin}${site.base}/login`, false);
    const fcp = () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
    const paint = await poll(() => tab.evaluate(fcp), WAIT_MS, 20);
    await tab.evaluate(() => document.querySelector<HTMLElement>('input[type=password]')?.focus());
    await tab.cdp.Input.insertText({ text: site.password });
    await sleep(typingMs);
    // A mouse press and release at its centre every 50 ms until the signin leaves.
    let pressed: number | undefined;
    const press = async () => {
      if (signinLeft()) return true;
      const at = await tab.evaluate(ingresar);
      pressed ??= at?.now;
      const click = { ...at!, button: 'left' as const, clickCount: 1 };
      for (const type of ['mousePressed', 'mouseReleased'] as const)
        if (at) await tab.cdp.Input.dispatchMouseEvent({ ...click, type });
      return false;
    };
    await poll(press, WAIT_MS, 50);
    const { frame, signin, html, bytes } = await end();
    if (!paint || !pressed || !frame || !signin) throw new Error('no paint, press, signin, frame');
    const [before, after] = [bytes(0, pressed), bytes(pressed, frame)];
    // Watched on: a stall in the first 30 s is the freeze a visitor saw after the first segment.
    const { stalls } = await sleep(STALL_WINDOW_MS).then(() => watch.read());
    return { paint, html, signin: signin - paint, frame: frame - pressed, before, after, stalls };
  } finally {
    await tab.close();
  }
}

/** A returning visitor opens the video screen: nothing cached, the app cached, or the worker's. */
async function comeBack(browser: Browser, site: Site, link: Link, cached?: 'http' | 'worker') {
  const visitor = await returningVisitor(site);
  const before = cached && (await browser.tab(PHONE, { link, slowCpu: false, cache: true }));
  if (before) {
    // The worker registers after the first frame: that visit plays; the other keeps no media.
    if (cached === 'http') await before.cdp.Network.setBlockedURLs({ urls: ['*/api/video*'] });
    await visitor(before);
    await before.quiet(2_000, 30_000);
    if (cached === 'worker') {
      if (!(await before.waitFor(() => !!navigator.serviceWorker.controller, 60_000)))
        throw new Error('no service worker in control after 60 s');
      await before.cdp.Network.clearBrowserCache();
    }
    await before.navigate('about:blank');
  }
  const { tab, end } = await visit(browser, link, before, cached === 'worker');
  try {
    // Else the worker, unthrottled here, would serve the page.
    if (cached === 'http') await tab.cdp.Network.setBypassServiceWorker({ bypass: true });
    await visitor(tab);
    return await end();
  } finally {
    await tab.close();
    await before?.close();
  }
}

/** Text, Slow 3G's target (on Fast 3G: 1.25× the floor), the floor's round trips. */
const [BACK, TO_FRAME] = ['Returning visitor, LINK', 'navigation → first frame'];
const FIGURES = {
  paint: ['First visit, LINK: login first paint', null, 1],
  signin: ['First visit, LINK: a press first starts the signin, after the paint', 300, 0],
  atPaint: ['First visit, LINK: press at the paint → first frame', 2_500, 1],
  typed: ['First visit, LINK: press after 4 s of typing → first frame', 2_500, 1],
  bytes: ['First visit, LINK: bytes before / after the press (4 s of typing)', null, 0],
  stalls: ['First visit, LINK: stalls in the 30 s after the first frame, both presses', 0, 0],
  fresh: [`${BACK}, nothing cached: ${TO_FRAME}`, 5_000, 2],
  cached: [`${BACK}, app in the HTTP cache: ${TO_FRAME}`, 4_600, 2],
  worker: [`${BACK}, a service worker serves the page: ${TO_FRAME}`, 2_600, 1],
} as const;
type Name = keyof typeof FIGURES;
const byFloor = (link: LinkName, name: Name) =>
  link === 'Fast 3G' && FIGURES[name][2] > 0 && FIGURES[name][1] !== null;

const onFloor = atMost(1.25, (n) => `${n}× its floor`);
const figures: Record<string, Figure> = {};
for (const link of Object.keys(LINKS) as LinkName[])
  for (const name of Object.keys(FIGURES) as Name[]) {
    const [text, limit] = FIGURES[name];
    const timed = limit ? atMost(limit, seconds) : REFERENCE;
    const target = name === 'stalls' ? exactly(0) : byFloor(link, name) ? onFloor : timed;
    figures[`${link}: ${name}`] = figure(text.replace('LINK', link), target);
  }

type Visit = Awaited<ReturnType<typeof firstVisit>>;
type Return = Awaited<ReturnType<typeof comeBack>>;
type Run = { atPaint: Visit; typed: Visit; fresh: Return; cached: Return; worker: Return };

/** One link's medians, each beside its floor: round trips and the bytes at the link's rate. */
function readings(link: LinkName, runs: Run[], start: number): Record<Name, Reading> {
  const { latency, downloadThroughput: rate } = LINKS[link];
  const med = (of: (r: Run) => number | null | undefined) => median(runs.map((r) => of(r) ?? null));
  // The page's own bytes (the same in every run) count where the page comes over the link.
  const timed = (name: Name, of: (run: Run) => number | null, bytes = start) => {
    const value = med(of);
    const least = FIGURES[name][2] * latency + (1000 * bytes) / rate;
    const ratio = value === null ? null : value / least;
    const text = `${seconds(value)} (floor ${seconds(least)}${ratio ? `, ${ratio.toFixed(1)}×` : ''})`;
    return { value: text, measured: byFloor(link, name) ? ratio : value };
  };
  const [signin, after] = [med((r) => r.atPaint.signin), med((r) => r.typed.after)];
  const before = med((r) => r.typed.before);
  const stalls = runs.reduce((sum, r) => sum + r.atPaint.stalls + r.typed.stalls, 0);
  return {
    paint: timed('paint', (r) => r.atPaint.paint, runs[0]!.atPaint.html),
    signin: { value: `+${seconds(signin)}`, measured: signin },
    atPaint: timed('atPaint', (r) => r.atPaint.frame),
    typed: timed('typed', (r) => r.typed.frame),
    bytes: { value: `${kilobytes(before!)} / ${kilobytes(after!)}`, measured: after },
    stalls: { value: `${stalls} in ${runs.length * 2} visits`, measured: stalls },
    fresh: timed('fresh', (r) => r.fresh.frame, runs[0]!.fresh.html + start),
    cached: timed('cached', (r) => r.cached.frame),
    worker: timed('worker', (r) => r.worker.frame),
  };
}

/** A journey, again once if it fails or has not ended in JOURNEY_MS (docs/benchmarks.md). */
async function once<T>(journey: () => Promise<T>): Promise<T> {
  const stuck = () => new Error(`no end after ${JOURNEY_MS / 1000} s`);
  const bounded = () =>
    Promise.race([journey(), sleep(JOURNEY_MS).then(() => Promise.reject(stuck()))]);
  return bounded().catch((error: unknown) => {
    console.log(`  a journey failed (${String(error)}): run again`);
    return bounded();
  });
}

const NAME = `first and returning visits (720p source, phone, Slow and Fast 3G, median of ${RUNS})`;
export const firstVisitMeasurement = section(NAME, 25 * 60_000, figures, async (site, signal) => {
  const { folder, manifest, site: on } = await mediaSite(site, 'first-visit', signal);
  const start = startBytes(folder, manifest);
  const browser = await launchBrowser(signal);
  const found: Record<string, Reading> = {};
  for (const [name, link] of Object.entries(LINKS) as [LinkName, Link][]) {
    const runs: Run[] = [];
    // Interleaved, so that a busier moment of the machine weighs on all alike.
    for (let i = 0; i < RUNS; i += 1) {
      runs.push({
        atPaint: await once(() => firstVisit(browser, on, link, 0)),
        typed: await once(() => firstVisit(browser, on, link, 4_000)),
        fresh: await once(() => comeBack(browser, on, link)),
        cached: await once(() => comeBack(browser, on, link, 'http')),
        worker: await once(() => comeBack(browser, on, link, 'worker')),
      });
      console.log(`  ${name}, run ${i + 1}: ${JSON.stringify(runs.at(-1))}`);
    }
    for (const [figure, reading] of Object.entries(readings(name, runs, start)))
      found[`${name}: ${figure}`] = reading;
  }
  return found;
});
