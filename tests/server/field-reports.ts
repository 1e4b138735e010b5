/** Reports as a phone sends them (config/field-report.ts), for the tests of the route and the staff page. */
import { randomBytes } from 'node:crypto';
import type { EventsReport, ViewReport } from '../../config/field-report.js';

export const randomId = () => randomBytes(16).toString('base64url');

/** What a phone sends after watching 0-20 and 60-70 of a 90 s video. */
export function viewReport(overrides: Partial<ViewReport> = {}): ViewReport {
  return {
    format: 1,
    id: randomId(),
    browser: { family: 'chrome', major: 131, engine: 'blink' },
    device: 'phone',
    kind: 'view',
    view: randomId(),
    part: 0,
    durationS: 90.04,
    firstFrameMs: 1840,
    stalls: 1,
    stallS: 2.5,
    seeks: 1,
    mediaBytes: 1_450_000,
    renditions: { '360p': 24, '240p': 6 },
    seen: [
      [0, 20],
      [60, 70],
    ],
    ...overrides,
  };
}

export function eventsReport(events: EventsReport['events']): EventsReport {
  return {
    format: 1,
    id: randomId(),
    browser: { family: 'safari', major: 17, engine: 'webkit' },
    device: 'phone',
    kind: 'events',
    events,
  };
}
