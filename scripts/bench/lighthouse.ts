/**
 * Lighthouse 12 on the login page: its default (mobile) config, with its own simulated
 * throttling, in Debian's Chromium started by the chrome-launcher that Lighthouse ships.
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS } from '../find-chromium.mjs';
import { chromiumPath } from './browser';
import type { Measurement } from './measure';
import type { Value } from './report';
import type { Site } from './site';

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

function scoreValue(lhr: Lhr, category: Category): Value {
  const score = lhr.categories[category]?.score;
  const points = score === null || score === undefined ? null : Math.round(score * 100);
  const lost = points !== null && points < 100 ? lostPoints(lhr, category) : '';
  return {
    value: points === null ? 'n/a' : String(points),
    met: points === 100,
    measured: points,
    ...(lost ? { note: lost } : {}),
  };
}

export function lighthouseMeasurement(site: Site): Measurement<Category> {
  const figures = Object.fromEntries(
    Object.entries(CATEGORIES).map(([id, title]) => [
      id,
      { figure: `Lighthouse ${title} (mobile)`, target: '100' },
    ]),
  ) as Record<Category, { figure: string; target: string }>;
  return {
    name: 'Lighthouse 12, mobile preset, login page',
    timeoutMs: 120_000,
    figures,
    async run(signal) {
      const chrome = await chromeLauncher.launch({
        chromePath: chromiumPath(),
        chromeFlags: [...CHROMIUM_ARGS, '--headless=new'],
        logLevel: 'silent',
      });
      signal.addEventListener('abort', () => chrome.kill(), { once: true });
      try {
        const result = await lighthouse(`${site.origin}${site.base}/login`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: Object.keys(CATEGORIES),
        });
        if (!result) throw new Error('Lighthouse returned no result');
        const lhr = result.lhr as unknown as Lhr;
        const perf = lhr.audits;
        console.log(
          `  Lighthouse ${lhr.lighthouseVersion}: FCP ${perf['first-contentful-paint']?.displayValue}, LCP ${perf['largest-contentful-paint']?.displayValue}, TBT ${perf['total-blocking-time']?.displayValue}, CLS ${perf['cumulative-layout-shift']?.displayValue}`,
        );
        return {
          performance: scoreValue(lhr, 'performance'),
          accessibility: scoreValue(lhr, 'accessibility'),
          'best-practices': scoreValue(lhr, 'best-practices'),
          seo: scoreValue(lhr, 'seo'),
        };
      } finally {
        chrome.kill();
      }
    },
  };
}
