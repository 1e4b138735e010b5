/**
 * The reports not yet known to be stored, kept in local storage so that a page closed with no
 * signal loses none, and how they are sent: `flush` with fetch, reading each answer; `beacon`
 * on leaving the page, when no answer can be read (the report stays until a flush confirms it;
 * the server stores a report id once). The contract: docs/field-reports.md.
 */
import type { FieldReport } from '../../config/field-report';
import { parseSession, SESSION_KEY, type SessionStorage } from '../../machines/session';

export const QUEUE_KEY = 'field-reports';
/** Reports kept at most; the oldest go first. A view is one or a few, so this is many visits. */
export const QUEUE_CAP = 20;

/**
 * How a flush ended: all sent; no link (a failed request); the session is not live (401: kept
 * until the next signin, never a reason to log out); the server asks for later (429, 503).
 */
export type FlushEnd = 'sent' | 'offline' | 'refused' | 'later';

export interface ReportQueue {
  add(report: FieldReport): void;
  pending(): FieldReport[];
  flush(): Promise<FlushEnd>;
  /** Sends, once per page, each report not sent yet; keeps them all. */
  beacon(): void;
}

export interface QueueDeps {
  url: string;
  storage: SessionStorage;
  fetch?: typeof fetch;
  sendBeacon?: (url: string, body: string) => boolean;
  online?: () => boolean;
  /** Whether this phone holds a live session: without one a report would only earn a 401. */
  signedIn?: () => boolean;
}

/** What was stored, if it is a list of reports at all (another build, a hand edit). */
function parse(raw: string | null): FieldReport[] {
  try {
    const value: unknown = JSON.parse(raw ?? '[]');
    return Array.isArray(value)
      ? value.filter((item): item is FieldReport => typeof item?.id === 'string')
      : [];
  } catch {
    return [];
  }
}

export function createReportQueue({
  url,
  storage,
  fetch: send = (...args) => fetch(...args),
  sendBeacon = (to, body) => navigator.sendBeacon?.(to, body) ?? false,
  online = () => navigator.onLine,
  signedIn = () => parseSession(storage.getItem(SESSION_KEY), Date.now()) !== null,
}: QueueDeps): ReportQueue {
  const read = () => parse(storage.getItem(QUEUE_KEY));
  const write = (reports: FieldReport[]) =>
    reports.length
      ? storage.setItem(QUEUE_KEY, JSON.stringify(reports.slice(-QUEUE_CAP)))
      : storage.removeItem(QUEUE_KEY);
  const forget = (id: string) => write(read().filter((report) => report.id !== id));
  const beaconed = new Set<string>();
  // A string goes as text/plain, as sendBeacon sends it: the route reads both as JSON.
  const post = (body: string, keepalive: boolean) =>
    send(url, {
      method: 'POST',
      body,
      credentials: 'same-origin',
      keepalive,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
  let flushing: Promise<FlushEnd> | null = null;

  async function sendAll(): Promise<FlushEnd> {
    if (!online()) return 'offline';
    for (const report of read()) {
      // After a signout or an expiry (even one during this flush) they wait for the next signin.
      if (!signedIn()) return 'refused';
      const status = await post(JSON.stringify(report), true).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 0) return 'offline';
      if (status === 401) return 'refused';
      if (status === 408 || status === 429 || status >= 500) return 'later';
      // Stored (204), or refused for good (400 is a bug of ours, 404 reports turned off).
      forget(report.id);
    }
    return 'sent';
  }

  return {
    add: (report) => write([...read(), report]),
    pending: read,
    flush: () => (flushing ??= sendAll().finally(() => (flushing = null))),
    beacon() {
      if (!online() || !signedIn()) return;
      for (const report of read()) {
        if (beaconed.has(report.id)) continue;
        beaconed.add(report.id);
        const body = JSON.stringify(report);
        if (!sendBeacon(url, body)) void post(body, true).catch(() => {});
      }
    },
  };
}
