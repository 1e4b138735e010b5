/**
 * Lighthouse 12 on the login page: its default (mobile) config, with its own simulated
 * throttling, in Debian's Chromium started by chrome-launcher. Three runs, and the one with the
 * median Performance score: one run alone swings by a few points with the machine's load
 * (Lighthouse's own advice is a median of several runs).
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Result } from 'lighthouse';
import { CHROMIUM_ARGS } from '../test-support/find-chromium.mjs';
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

async function runOnce(url: string, signal: AbortSignal): Promise<Result> {
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath(),
    chromeFlags: [...CHROMIUM_ARGS, '--headless=new'],
    logLevel: 'silent',
  });
  signal.addEventListener('abort', () => chrome.kill(), { once: true });
  try {
    const options = { port: chrome.port, logLevel: 'error' as const };
    const result = await lighthouse(url, { ...options, onlyCategories: Object.keys(CATEGORIES) });
    if (!result) throw new Error('Lighthouse returned no result');
    return result.lhr;
  } finally {
    chrome.kill();
  }
}

/** The score, and when under 100 the weighted audits that cost points: what to fix. */
function score(lhr: Result, category: Category): Reading {
  const { score, auditRefs } = lhr.categories[category]!;
  const points = score === null ? null : Math.round(score * 100);
  const lost = auditRefs
    .map((ref) => ({ ref, audit: lhr.audits[ref.id] }))
    .filter(({ ref, audit }) => ref.weight > 0 && audit?.score != null && audit.score < 1)
    .map(({ audit }) => `${audit!.title}${audit!.displayValue ? ` (${audit!.displayValue})` : ''}`);
  return {
    value: points === null ? 'n/a' : String(points),
    measured: points,
    ...(points !== null && points < 100 ? { note: lost.join('; ') } : {}),
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
      const runs: Result[] = [];
      for (let i = 0; i < RUNS && !signal.aborted; i += 1)
        runs.push(await runOnce(`${site.origin}${site.base}/login`, signal));
      const performanceOf = (run: Result) => run.categories.performance?.score ?? 0;
      const lhr = [...runs].sort((a, b) => performanceOf(a) - performanceOf(b))[runs.length >> 1]!;
      const performance = score(lhr, 'performance');
      const others = `runs ${runs.map((run) => Math.round(performanceOf(run) * 100)).join(', ')}, the median run shown`;
      return {
        performance: {
          ...performance,
          note: [others, performance.note].filter(Boolean).join('; '),
        },
        accessibility: score(lhr, 'accessibility'),
        'best-practices': score(lhr, 'best-practices'),
        seo: score(lhr, 'seo'),
      };
    },
  };
}
