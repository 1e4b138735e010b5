import { StringDecoder } from 'node:string_decoder';
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

/** A stored line (`{ at, device, report }`); null when the text is not one (cut by a crash). */
export function parseStored(text: string): StoredReport | null {
  try {
    const stored = JSON.parse(text) as Partial<StoredReport>;
    const { at: when, device, report } = stored;
    // Written by this server after validation: only its shape is checked again here.
    if (typeof when !== 'number' || typeof device !== 'string') return null;
    if (typeof report !== 'object' || report === null) return null;
    return { at: when, device, report };
  } catch {
    return null;
  }
}

/** The lines of JSON-lines text read in chunks, a chunk's worth at a time. */
export async function* linesIn(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
): AsyncGenerator<string[]> {
  // A chunk may end inside a character as well as inside a line.
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of chunks) {
    // The chunk alone is split: joined to the rest first, all of it would be copied again.
    const lines = decoder.write(chunk).split('\n');
    lines[0] = rest + lines[0]!;
    rest = lines.pop()!;
    yield lines;
  }
  // A last line without its newline: cut by a crash, or still being written.
  rest += decoder.end();
  if (rest) yield [rest];
}

/** The reports received from `from` on in stored lines (`{ at, device, report }`), in batches. */
export async function* reportsIn(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  from: number,
): AsyncGenerator<StoredReport[]> {
  for await (const lines of linesIn(chunks)) {
    const batch: StoredReport[] = [];
    for (const line of lines) {
      const stored = parseStored(line);
      if (stored && stored.at >= from) batch.push(stored);
    }
    if (batch.length) yield batch;
  }
}
