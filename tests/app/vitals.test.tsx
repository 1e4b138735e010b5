import { describe, expect, it, vi } from 'vitest';
import { parseFieldReport } from '../../config/field-report';
import { memoryStorage } from '../../machines/session';
import { createReportQueue } from '../../src/field-report/report-queue';
import { createReporter } from '../../src/field-report/reporter';
import { senderOf } from '../../src/field-report/sender';
import { watchVitals } from '../../src/field-report/vitals-events';

const observed = vi.hoisted(() => ({ count: 0 }));
vi.mock('web-vitals', () => {
  const report = (name: string, value: number) => (callback: (metric: object) => void) => {
    observed.count += 1;
    callback({
      name,
      value,
      rating: 'good',
      delta: value,
      id: `v5-1700000000000-${name.toLowerCase()}`,
    });
  };
  return {
    onCLS: report('CLS', 0.012345),
    onFCP: report('FCP', 812.4),
    onINP: report('INP', 96),
    onLCP: report('LCP', 1520.7),
    onTTFB: report('TTFB', 230.2),
  };
});

describe('the Web Vitals', () => {
  it('are not watched before a first frame, then go as events of the reports', async () => {
    const queue = createReportQueue({
      url: '/api/reports',
      storage: memoryStorage(),
      online: () => false,
    });
    const reporter = createReporter({
      queue,
      sender: senderOf('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'),
    });
    const video = document.createElement('video');
    reporter.watch(video, {
      timing: () => ({ pressAt: null, firstFrameAt: null }),
      fromCopy: () => false,
      durationS: 24,
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(observed.count).toBe(0);

    video.dispatchEvent(new Event('loadeddata'));
    await vi.waitFor(() => expect(observed.count).toBe(5));
    dispatchEvent(new Event('pagehide'));
    const [events] = queue.pending().filter((report) => report.kind === 'events');
    expect(parseFieldReport(events)).toEqual({ report: events });
    expect(events).toMatchObject({
      events: expect.arrayContaining([
        { type: 'vital', name: 'CLS', value: 0.0123, metric: 'v5-1700000000000-cls' },
        { type: 'vital', name: 'LCP', value: 1521, metric: 'v5-1700000000000-lcp' },
      ]),
    });
    expect(events?.kind === 'events' && events.events).toHaveLength(5);
  });
  it('below the floor (no Array.prototype.at, which web-vitals 5 calls) are not watched at all', () => {
    const at = Object.getOwnPropertyDescriptor(Array.prototype, 'at')!;
    delete (Array.prototype as { at?: unknown }).at;
    try {
      const before = observed.count;
      watchVitals(() => {});
      expect(observed.count).toBe(before);
    } finally {
      Object.defineProperty(Array.prototype, 'at', at);
    }
  });
});
