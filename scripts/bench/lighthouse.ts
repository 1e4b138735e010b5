/** Lighthouse's mobile preset on the login: three runs, the median Performance run shown. */
import lighthouse, { type Result } from 'lighthouse';
import { launchChrome } from './browser';
import { exactly, figure, reading, repeat, runsOf, section } from './measure';
import type { Figure, Reading } from './measure';

const RUNS = 3;
const CATEGORIES = {
  ...{ performance: 'Performance', accessibility: 'Accessibility' },
  ...{ 'best-practices': 'Best Practices', seo: 'SEO' },
} as const;
type Category = keyof typeof CATEGORIES;
const ids = Object.keys(CATEGORIES) as Category[];

const score = (run: Result, category: Category) => {
  const value = run.categories[category]?.score;
  return value == null ? null : Math.round(value * 100);
};

const FIGURES = Object.fromEntries(
  ids.map((id) => [id, figure(`Lighthouse ${CATEGORIES[id]} (mobile)`, exactly(100))]),
) as Record<Category, Figure>;
const NAME = `Lighthouse 12, mobile preset, login page (median of ${RUNS})`;
export const lighthouseMeasurement = section(NAME, 240_000, FIGURES, async (site, signal) => {
  const runs = await repeat(RUNS, async () => {
    signal.throwIfAborted(); // timed out: no run after it
    const chrome = await launchChrome(signal, '--headless=new');
    const options = { port: chrome.port, logLevel: 'error' as const, onlyCategories: ids };
    const result = await lighthouse(`${site.origin}${site.base}/login`, options);
    chrome.kill();
    if (!result) throw new Error('Lighthouse returned no result');
    return result.lhr;
  });
  const performance = (run: Result) => score(run, 'performance') ?? 0;
  const median = [...runs].sort((a, b) => performance(a) - performance(b))[runs.length >> 1]!;
  const note = `${runsOf(runs.map(performance), String)}, the median run shown`;
  const scored = (id: Category, points = score(median, id)) =>
    reading(String(points ?? 'n/a'), points, id === 'performance' ? note : undefined);
  return Object.fromEntries(ids.map((id) => [id, scored(id)])) as Record<Category, Reading>;
});
