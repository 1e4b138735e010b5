/** The one load generator of the load test and the bench, and how both read its latencies. */
import autocannon from 'autocannon';

/** autocannon, whose emitter is also its result's promise. */
export const cannon = (options: autocannon.Options) =>
  autocannon(options) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;

/** The value at quantile `q` (0..1) by the nearest-rank method, as load generators report. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]! : Number.NaN;
}
