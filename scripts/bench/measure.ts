/** A measurement: its figures and targets declared up front, a bounded run, one table out. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as timer } from 'node:timers/promises';
import { format } from 'prettier';
import { quantile } from '../test-support/load-generator';

/** The site under test; `pid` is the server's (its memory is read), `distDir` its build. */
export type Site = Record<'origin' | 'base' | 'username' | 'password' | 'distDir', string> & {
  pid: number;
};

type Measured = number | boolean | null;
/** `limit`: for whoever else checks it (the budget test). */
type Target = { label: string; limit: number | null; met(measured: Measured): boolean | null };
const target = (label: string, limit: number, met: (n: number) => boolean): Target => ({
  ...{ label, limit },
  met: (measured) => typeof measured === 'number' && met(measured),
});
export const atMost = (limit: number, format: (n: number) => string = String) =>
  target(`≤ ${format(limit)}`, limit, (n) => n <= limit);
export const atLeast = (limit: number, unit = '') =>
  target(`≥ ${limit}${unit}`, limit, (n) => n >= limit);
export const exactly = (limit: number) => target(String(limit), limit, (n) => n === limit);
export const holds = (label: string): Target => ({ label, limit: null, met: (m) => m === true });
export const REFERENCE: Target = { label: 'reference, no target', limit: null, met: () => null };

export type Figure = { figure: string; target: Target };
export const figure = (text: string, target = REFERENCE): Figure => ({ figure: text, target });

/** One figure's finding: `measured` is what the target judges, null if nothing was. */
export type Reading = { value: string; measured: Measured; note?: string };
export const reading = (value: string, measured: Measured, note?: string): Reading =>
  note === undefined ? { value, measured } : { value, measured, note };

/** A section of the table: its name, time limit and figures up front, then its run on a site. */
export const section = <K extends string>(
  name: string,
  timeoutMs: number,
  figures: Record<K, Figure>,
  // Releases what it holds (browser, servers) with atEnd(signal), or when `signal` aborts.
  run: (site: Site, signal: AbortSignal) => Promise<Record<K, Reading>>,
) => ({ name, timeoutMs, figures, run });
export type Measurement<K extends string> = ReturnType<typeof section<K>>;

/** One line of the table. `met` null: a reference, not a target. */
export type Row = Reading & { figure: string; target: string; met: boolean | null };

const endings = new WeakMap<AbortSignal, (() => Promise<unknown>)[]>();
/** Runs `stop` as the measurement behind `signal` ends (done, failed or timed out), awaited. */
export const atEnd = (signal: AbortSignal, stop: () => Promise<unknown>) =>
  endings.get(signal)?.push(stop);

/** The rows of a measurement (every row even after a timeout), and its crash if any. */
export async function runMeasurement<K extends string>(measurement: Measurement<K>, site: Site) {
  const { name, timeoutMs, figures } = measurement;
  const [started, controller] = [Date.now(), new AbortController()];
  const { signal } = controller;
  console.log(`\n▶ ${name} (at most ${timeoutMs / 1000} s)`);
  endings.set(signal, []);
  const rows = (reading: (key: K) => Reading): Row[] =>
    (Object.keys(figures) as K[]).map((key) => {
      const [{ figure, target }, found] = [figures[key], reading(key)];
      return { figure, target: target.label, met: target.met(found.measured), ...found };
    });
  const timedOut = new Error(`timed out after ${timeoutMs / 1000} s`);
  const timeout = timer(timeoutMs, null, { signal }).then(() => Promise.reject(timedOut));
  try {
    const readings = await Promise.race([measurement.run(site, signal), timeout]);
    console.log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { rows: rows((key) => readings[key]), error: null };
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const value = error === timedOut ? 'timeout' : 'error';
    console.log(`  ${value}: ${error.message}`);
    const missed = rows(() => ({ value, measured: null, note: error.message }));
    return { rows: missed, error: error === timedOut ? null : error };
  } finally {
    controller.abort(); // after a timeout the run goes on: what it opened is closed here
    timeout.catch(() => undefined);
    for (const stop of endings.get(signal)!.reverse()) await stop().catch(() => undefined);
  }
}

/** The median of the values, or null if any run measured nothing. */
export function median(values: (number | null)[]): number | null {
  if (!values.length || values.includes(null)) return null;
  const sorted = (values as number[]).toSorted((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
}

export const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
export const sleep = (ms: number) => timer(ms);
/** `step()` every `everyMs` until it gives something truthy or `ms` pass: its last answer. */
export async function poll<T>(step: () => Promise<T> | T, ms: number, everyMs = 100) {
  const giveUpAt = Date.now() + ms;
  let answer = await step();
  while (!answer && Date.now() < giveUpAt) answer = await sleep(everyMs).then(step);
  return answer;
}
export async function repeat<T>(count: number, run: (i: number) => Promise<T>) {
  const runs: T[] = [];
  for (let i = 0; i < count; i += 1) runs.push(await run(i));
  return runs;
}
export const seconds = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(2)} s`);
export const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
/** The p99 of latencies in ms, read in ms; the slowest of times in ms, read in seconds. */
export const p99Of = (ms: number[]) =>
  reading(`${quantile(ms, 0.99).toFixed(0)} ms`, quantile(ms, 0.99));
export const slowest = (ms: number[]) =>
  reading(seconds(Math.max(...ms)), Math.round(Math.max(...ms) / 100) / 10);
/** "runs 1.20 s, 1.31 s, -": every run of a figure, for its note. */
export const runsOf = <T>(values: (T | null)[], format: (value: T) => string) =>
  `runs ${values.map((value) => (value === null ? '-' : format(value))).join(', ')}`;
/** A median of runs in ms as a reading, every run in its note. */
export const medianOf = (runs: (number | null)[]) => {
  const value = median(runs);
  return reading(value === null ? 'none' : seconds(value), value, runsOf(runs, seconds));
};

export type Report = { date: string; durationS: number; conditions: Record<string, string> };

/** The report as Markdown, its table aligned by Prettier (which checks docs/benchmarks.md). */
export function toMarkdown({ date, durationS, conditions, rows }: Report & { rows: Row[] }) {
  const mark = (met: boolean | null) => (met === null ? '-' : met ? 'yes' : 'NO');
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const line = (cells: string[]) => `| ${cells.map(escape).join(' | ')} |`;
  const text = [
    `Measured ${date} by \`npm run bench\` (${durationS} s).`,
    '',
    ...Object.entries(conditions).map(([key, text]) => `- ${key}: ${escape(text)}`),
    '',
    line(['figure', 'value', 'target', 'met?']),
    line(['---', '---', '---', '---']),
    ...rows.map((row) => line([row.figure, row.value, row.target, mark(row.met)])),
  ];
  return format(text.join('\n'), { parser: 'markdown' });
}

/** Writes reports/bench.json (for tools) and reports/bench.md (docs/benchmarks.md's results). */
export async function writeReport(report: Report & { rows: Row[] }) {
  mkdirSync('reports', { recursive: true });
  writeFileSync('reports/bench.json', `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync('reports/bench.md', await toMarkdown(report));
}
