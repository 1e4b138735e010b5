/**
 * The page's Web Vitals (web-vitals 5: LCP, INP, CLS, FCP, TTFB), as events of the reports.
 * Loaded by the reporter after the page's first frame (the observers read what was buffered
 * before), so web-vitals never shares the link with the login or the start, and never loads
 * when reporting is off.
 */
import { onCLS, onFCP, onINP, onLCP, onTTFB, type Metric } from 'web-vitals';
import type { FieldEvent } from './reporter';

const MAX_VALUE = 600_000;

export function watchVitals(report: (event: FieldEvent) => void): void {
  // web-vitals 5 calls Array.prototype.at (Chrome 92, Safari 15.4), above our floor: there its
  // observers would throw on every entry, so such a phone reports its views without vitals.
  if (!('at' in Array.prototype)) return;
  const send = ({ name, value, id }: Metric) => {
    report({
      type: 'vital',
      name,
      // CLS is unitless; the others in whole milliseconds are enough.
      value: Math.min(
        MAX_VALUE,
        name === 'CLS' ? Math.round(value * 1e4) / 1e4 : Math.round(value),
      ),
      metric: id,
    });
  };
  for (const on of [onCLS, onFCP, onINP, onLCP, onTTFB]) on(send);
}
