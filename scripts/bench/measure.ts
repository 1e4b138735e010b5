/**
 * What a measurement is: figures declared up front, each with its target (limit and label
 * written once), and a bounded run. A timeout or a crash still yields one row per figure
 * ("timeout", not met), so the table keeps its shape from run to run.
 */
import type { Row } from './report';

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

/** A number the figure is held to, and how the table writes it. */
export interface Target {
  label: string;
  /** The limit itself, for whoever else checks it (the byte budget test). */
  limit: number | null;
  met(measured: number | boolean | null): boolean | null;
}

const isNumber = (value: number | boolean | null): value is number => typeof value === 'number';

export const atMost = (limit: number, format: (n: number) => string = String): Target => ({
  label: `≤ ${format(limit)}`,
  limit,
  met: (measured) => isNumber(measured) && measured <= limit,
});

export const atLeast = (limit: number, unit = ''): Target => ({
  label: `≥ ${limit}${unit}`,
  limit,
  met: (measured) => isNumber(measured) && measured >= limit,
});

export const exactly = (limit: number): Target => ({
  label: String(limit),
  limit,
  met: (measured) => measured === limit,
});

/** A yes/no figure: met when the measurement says true. */
export const holds = (label: string): Target => ({
  label,
  limit: null,
  met: (measured) => measured === true,
});

export const REFERENCE: Target = { label: 'reference, no target', limit: null, met: () => null };

export interface Figure {
  figure: string;
  target: Target;
}

/** What a measurement found for one figure; `met` follows from `measured` and the target. */
export interface Reading {
  value: string;
  /** The number (or yes/no) the target judges, in `unit`; null when nothing was measured. */
  measured: number | boolean | null;
  unit?: string;
  /** Why a figure is what it is: runs, the slow resource, failing audits. */
  note?: string;
}

export interface Measurement<K extends string> {
  name: string;
  timeoutMs: number;
  figures: Record<K, Figure>;
  /** Must release what it holds (browser, child process) when `signal` aborts. */
  run(signal: AbortSignal): Promise<Record<K, Reading>>;
}

interface Outcome {
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
  const rowsFrom = (reading: (key: K) => Reading) =>
    keys.map((key) => {
      const { figure, target } = measurement.figures[key];
      const found = reading(key);
      return { figure, target: target.label, met: target.met(found.measured), ...found };
    });
  try {
    const readings = await Promise.race([
      measurement.run(controller.signal),
      timeoutAfter(measurement.timeoutMs, controller.signal),
    ]);
    console.log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { rows: rowsFrom((key) => readings[key]), error: null };
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const timedOut = error instanceof Timeout;
    console.log(`  ${timedOut ? 'timeout' : 'error'}: ${error.message}`);
    // Nothing measured: every target is missed (a reference stays without one).
    const rows = rowsFrom(() => ({
      value: timedOut ? 'timeout' : 'error',
      measured: null,
      note: error.message,
    }));
    return { rows, error: timedOut ? null : error };
  } finally {
    // Tells the measurement to close what it opened; after a timeout it is still running.
    controller.abort();
  }
}

/** The value at quantile `q` (0..1) by the nearest-rank method, as load generators report. */
export function quantile(values: number[], q: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
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
