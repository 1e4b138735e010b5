/**
 * Runs one measurement with a time bound. A measurement declares its figures up front, so that
 * a timeout or a crash still yields one row per figure ("timeout", not met) and the table keeps
 * its shape from run to run.
 */
import type { Figure, Row, Value } from './report';

export interface Measurement<K extends string> {
  name: string;
  timeoutMs: number;
  figures: Record<K, Figure>;
  /** Must release what it holds (browser, child process) when `signal` aborts. */
  run(signal: AbortSignal): Promise<Record<K, Value>>;
}

export interface Outcome {
  rows: Row[];
  /** A crash of the measurement itself (not a missed target): the bench exits non-zero. */
  error: Error | null;
}

class Timeout extends Error {}

function timeoutAfter(ms: number, signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const timer = setTimeout(() => reject(new Timeout(`timed out after ${ms / 1000} s`)), ms);
    signal.addEventListener('abort', () => clearTimeout(timer));
  });
}

export async function runMeasurement<K extends string>(
  measurement: Measurement<K>,
): Promise<Outcome> {
  const started = Date.now();
  console.log(`\n▶ ${measurement.name} (at most ${measurement.timeoutMs / 1000} s)`);
  const controller = new AbortController();
  const keys = Object.keys(measurement.figures) as K[];
  const rowsFrom = (values: (key: K) => Value) =>
    keys.map((key) => ({ ...measurement.figures[key], ...values(key) }));
  try {
    const values = await Promise.race([
      measurement.run(controller.signal),
      timeoutAfter(measurement.timeoutMs, controller.signal),
    ]);
    console.log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { rows: rowsFrom((key) => values[key]), error: null };
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const timedOut = error instanceof Timeout;
    console.log(`  ${timedOut ? 'timeout' : 'error'}: ${error.message}`);
    const rows = rowsFrom(() => ({
      value: timedOut ? 'timeout' : 'error',
      met: false,
      note: error.message,
    }));
    return { rows, error: timedOut ? null : error };
  } finally {
    // Tells the measurement to close what it opened; after a timeout it is still running.
    controller.abort();
  }
}

export function median(values: number[]): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value at quantile `q` (0..1) by the nearest-rank method, as load generators report. */
export function quantile(values: number[], q: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
