/**
 * A measurement: its figures and targets declared up front (a timeout still yields every row),
 * a bounded run; and the one output, a table written as JSON and Markdown.
 */
import { mkdirSync, writeFileSync } from 'node:fs';

/** What every measurement knows about the site under test. */
export interface Site {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** e.g. /capacitacion */
  base: string;
  username: string;
  password: string;
  /** The built front end the server serves (DIST_DIR, as the server reads it). */
  distDir: string;
  /** The server's process id, to read its memory. */
  pid: number;
}

/** A limit the figure is held to; `limit` is there for whoever else checks it (the budget test). */
export interface Target {
  label: string;
  limit: number | null;
  met(measured: number | boolean | null): boolean | null;
}

const target = (label: string, limit: number | null, met: (n: number) => boolean): Target => ({
  label,
  limit,
  met: (measured) => typeof measured === 'number' && met(measured),
});
export const atMost = (limit: number, format: (n: number) => string = String) =>
  target(`≤ ${format(limit)}`, limit, (n) => n <= limit);
export const atLeast = (limit: number, unit = '') =>
  target(`≥ ${limit}${unit}`, limit, (n) => n >= limit);
export const exactly = (limit: number) => target(String(limit), limit, (n) => n === limit);
/** A yes/no figure: met when the measurement says true. */
export const holds = (label: string): Target => ({ label, limit: null, met: (m) => m === true });
export const REFERENCE: Target = { label: 'reference, no target', limit: null, met: () => null };

export interface Figure {
  figure: string;
  target: Target;
}
export const figure = (text: string, target = REFERENCE): Figure => ({ figure: text, target });

/** What a measurement found for one figure; `met` follows from `measured` and the target. */
export interface Reading {
  value: string;
  /** The number (or yes/no) the target judges, in `unit`; null when nothing was measured. */
  measured: number | boolean | null;
  unit?: string;
  /** Why a figure is what it is (runs, the other kind of server). */
  note?: string;
}

export interface Measurement<K extends string> {
  name: string;
  timeoutMs: number;
  figures: Record<K, Figure>;
  /** Must release what it holds (browser, child process) when `signal` aborts. */
  run(signal: AbortSignal): Promise<Record<K, Reading>>;
}

/** One line of the table. `met` null: a reference, not a target. */
export interface Row extends Reading {
  figure: string;
  target: string;
  met: boolean | null;
}

class Timeout extends Error {}

/** The rows of `measurement`, and its crash (not a missed target, nor a timeout) if any. */
export async function runMeasurement<K extends string>(measurement: Measurement<K>) {
  const started = Date.now();
  console.log(`\n▶ ${measurement.name} (at most ${measurement.timeoutMs / 1000} s)`);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const rows = (reading: (key: K) => Reading): Row[] =>
    (Object.keys(measurement.figures) as K[]).map((key) => {
      const { figure, target } = measurement.figures[key];
      const found = reading(key);
      return { figure, target: target.label, met: target.met(found.measured), ...found };
    });
  try {
    const readings = await Promise.race([
      measurement.run(controller.signal),
      new Promise<never>((_resolve, reject) => {
        const ms = measurement.timeoutMs;
        timer = setTimeout(() => reject(new Timeout(`timed out after ${ms / 1000} s`)), ms);
      }),
    ]);
    console.log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { rows: rows((key) => readings[key]), error: null };
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const value = error instanceof Timeout ? 'timeout' : 'error';
    console.log(`  ${value}: ${error.message}`);
    const missed = rows(() => ({ value, measured: null, note: error.message }));
    return { rows: missed, error: error instanceof Timeout ? null : error };
  } finally {
    clearTimeout(timer);
    // Tells the measurement to close what it opened; after a timeout it is still running.
    controller.abort();
  }
}

/** The value at quantile `q` (0..1) by the nearest-rank method, as load generators report. */
export function quantile(values: number[], q: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

/** The median of the values, or null if any run measured nothing. */
export function median(values: (number | null)[]): number | null {
  if (!values.length || values.some((value) => value === null)) return null;
  const sorted = [...(values as number[])].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const seconds = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(2)} s`);
export const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
/** "runs 1.20 s, 1.31 s, -": every run of a figure, for its note. */
export const runsOf = <T>(values: (T | null)[], format: (value: T) => string) =>
  `runs ${values.map((value) => (value === null ? '-' : format(value))).join(', ')}`;

/** A Markdown table with its columns aligned, as Prettier writes it (docs/benchmarks.md). */
function markdownTable(header: string[], lines: string[][]): string {
  const cells = [header, ...lines].map((line) => line.map((cell) => cell.replaceAll('|', '\\|')));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((line) => line[i]!.length)));
  const line = (parts: string[]) => `| ${parts.map((p, i) => p.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = line(widths.map((width) => '-'.repeat(width)));
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n');
}

export interface Report {
  date: string;
  durationS: number;
  conditions: Record<string, string>;
  rows: Row[];
}

const mark = (met: boolean | null) => (met === null ? '-' : met ? 'yes' : 'NO');

/** The report as Markdown: its date, its conditions, the table. */
export function toMarkdown({ date, durationS, conditions, rows }: Report): string {
  const cells = rows.map((row) => [row.figure, row.value, row.target, mark(row.met)]);
  return [
    `Measured ${date} by \`npm run bench\` (${durationS} s).`,
    '',
    ...Object.entries(conditions).map(([key, text]) => `- ${key}: ${text.replaceAll('|', '\\|')}`),
    '',
    markdownTable(['figure', 'value', 'target', 'met?'], cells),
    '',
  ].join('\n');
}

/** Writes reports/bench.json (for tools) and reports/bench.md (for docs/benchmarks.md). */
export function writeReport(report: Report): void {
  mkdirSync('reports', { recursive: true });
  writeFileSync('reports/bench.json', `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync('reports/bench.md', toMarkdown(report));
}
