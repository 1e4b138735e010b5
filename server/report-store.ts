import type { FieldReport } from '../config/field-report.js';

/** A report as kept: when the server received it and from which session (a keyed digest). */
export interface StoredReport {
  /** Milliseconds since the epoch, by the store's clock. */
  at: number;
  /** The same for every report of one session, and nothing else: "devices" counts these. */
  device: string;
  report: FieldReport;
}

/**
 * Where reports survive a restart: Redis with REDIS_URL (redis-report-store.ts), a file in
 * DATA_DIR without it (file-report-store.ts). The server writes, `npm run report` reads.
 */
export interface ReportStore {
  /** Keeps the report unless one with its id is kept already; true when it is new. */
  add(device: string, report: FieldReport): Promise<boolean>;
  /**
   * The reports received since `sinceMs` and within the retention, oldest first, in batches as
   * they are read: an await per report adds up over a long period (docs/benchmarks.md).
   */
  since(sinceMs: number): AsyncIterable<StoredReport[]>;
  /** Writes what is pending; the process may exit after it. */
  close(): Promise<void>;
}

export const DAY_MS = 24 * 3600 * 1000;

/**
 * A stored line (`{ at, device, report }`) or stream entry (`{ device, report }`, `at` from its
 * id); null when the text is not one (a line cut by a crash).
 */
export function parseStored(text: string, at?: number): StoredReport | null {
  try {
    const stored = JSON.parse(text) as Partial<StoredReport>;
    const when = at ?? stored.at;
    const { device, report } = stored;
    // Written by this server after validation: only its shape is checked again here.
    if (typeof when !== 'number' || typeof device !== 'string') return null;
    if (typeof report !== 'object' || report === null) return null;
    return { at: when, device, report };
  } catch {
    return null;
  }
}
