/** Lighthouse's mobile preset on the login: three runs, the median Performance run shown. */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Result } from 'lighthouse';
import { CHROMIUM_ARGS } from '../test-support/find-chromium.mjs';
import { chromiumPath } from './browser';
import { exactly, runsOf, type Figure, type Measurement, type Site, figure } from './measure';

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

const score = (run: Result, category: Category) => {
  const value = run.categories[category]?.score;
  return value == null ? null : Math.round(value * 100);
};

export function lighthouseMeasurement(site: Site): Measurement<Category> {
  const ids = Object.keys(CATEGORIES) as Category[];
  const figures = Object.fromEntries(
    ids.map((id) => [id, figure(`Lighthouse ${CATEGORIES[id]} (mobile)`, exactly(100))]),
  ) as Record<Category, Figure>;
  return {
    name: `Lighthouse 12, mobile preset, login page (median of ${RUNS})`,
    timeoutMs: 240_000,
    figures,
    async run(signal) {
      const runs: Result[] = [];
      for (let i = 0; i < RUNS && !signal.aborted; i += 1)
        runs.push(await runOnce(`${site.origin}${site.base}/login`, signal));
      const performance = (run: Result) => score(run, 'performance') ?? 0;
      const median = [...runs].sort((a, b) => performance(a) - performance(b))[runs.length >> 1]!;
      const note = `${runsOf(runs.map(performance), String)}, the median run shown`;
      const reading = (id: Category) => {
        const points = score(median, id);
        return { value: points === null ? 'n/a' : String(points), measured: points };
      };
      return Object.fromEntries(
        ids.map((id) => [id, id === 'performance' ? { ...reading(id), note } : reading(id)]),
      ) as Record<Category, ReturnType<typeof reading>>;
    },
  };
}
