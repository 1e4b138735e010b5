/**
 * Lighthouse 12 on the login page: its default (mobile) config, with its own simulated
 * throttling, in Debian's Chromium started by the chrome-launcher that Lighthouse ships.
 * Three runs, and the one with the median Performance score: one run alone swings by a few
 * points with the machine's load (Lighthouse's own advice is a median of several runs).
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS } from '../find-chromium.mjs';
import { chromiumPath } from './browser';
import { exactly, type Figure, type Measurement, type Reading, type Site } from './measure';

const RUNS = 3;

const CATEGORIES = {
  performance: 'Performance',
  accessibility: 'Accessibility',
  'best-practices': 'Best Practices',
  seo: 'SEO',
} as const;
type Category = keyof typeof CATEGORIES;

interface AuditRef {
  id: string;
  weight: number;
}
interface Lhr {
  lighthouseVersion: string;
  categories: Record<string, { score: number | null; auditRefs: AuditRef[] }>;
  audits: Record<string, { title: string; score: number | null; displayValue?: string }>;
}

/** The weighted audits that cost points: what the front end has to fix. */
function lostPoints(lhr: Lhr, category: Category): string {
  const failing = lhr.categories[category]!.auditRefs.filter((ref) => {
    const audit = lhr.audits[ref.id];
    return ref.weight > 0 && audit && audit.score !== null && audit.score < 1;
  });
  return failing
    .map((ref) => {
      const audit = lhr.audits[ref.id]!;
      return `${audit.title}${audit.displayValue ? ` (${audit.displayValue})` : ''}`;
    })
    .join('; ');
}

function scoreValue(lhr: Lhr, category: Category): Reading {
  const score = lhr.categories[category]?.score;
  const points = score === null || score === undefined ? null : Math.round(score * 100);
  const lost = points !== null && points < 100 ? lostPoints(lhr, category) : '';
  return {
    value: points === null ? 'n/a' : String(points),
    measured: points,
    ...(lost ? { note: lost } : {}),
  };
}

export function lighthouseMeasurement(site: Site): Measurement<Category> {
  const figures = Object.fromEntries(
    Object.entries(CATEGORIES).map(([id, title]) => [
      id,
      { figure: `Lighthouse ${title} (mobile)`, target: exactly(100) },
    ]),
  ) as Record<Category, Figure>;
  return {
    name: `Lighthouse 12, mobile preset, login page (median of ${RUNS})`,
    timeoutMs: 240_000,
    figures,
    async run(signal) {
      const runs: Lhr[] = [];
      for (let i = 0; i < RUNS && !signal.aborted; i += 1) runs.push(await runOnce(site, signal));
      const performanceOf = (run: Lhr) => run.categories.performance?.score ?? 0;
      const lhr = [...runs].sort((a, b) => performanceOf(a) - performanceOf(b))[runs.length >> 1]!;
      const others = `runs ${runs.map((run) => Math.round(performanceOf(run) * 100)).join(', ')}, the median run shown`;
      const performance = scoreValue(lhr, 'performance');
      return {
        performance: {
          ...performance,
          note: [others, performance.note].filter(Boolean).join('; '),
        },
        accessibility: scoreValue(lhr, 'accessibility'),
        'best-practices': scoreValue(lhr, 'best-practices'),
        seo: scoreValue(lhr, 'seo'),
      };
    },
  };
}

async function runOnce(site: Site, signal: AbortSignal): Promise<Lhr> {
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath(),
    chromeFlags: [...CHROMIUM_ARGS, '--headless=new'],
    logLevel: 'silent',
  });
  const kill = () => chrome.kill();
  signal.addEventListener('abort', kill, { once: true });
  try {
    const result = await lighthouse(`${site.origin}${site.base}/login`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: Object.keys(CATEGORIES),
    });
    if (!result) throw new Error('Lighthouse returned no result');
    const lhr = result.lhr as unknown as Lhr;
    const audit = (id: string) => lhr.audits[id]?.displayValue;
    console.log(
      `  Lighthouse ${lhr.lighthouseVersion}: Performance ${Math.round((lhr.categories.performance?.score ?? 0) * 100)}, FCP ${audit('first-contentful-paint')}, LCP ${audit('largest-contentful-paint')}, TBT ${audit('total-blocking-time')}, CLS ${audit('cumulative-layout-shift')}`,
    );
    return lhr;
  } finally {
    signal.removeEventListener('abort', kill);
    chrome.kill();
  }
}
