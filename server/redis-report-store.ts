import type { Redis } from 'ioredis';
import type { FieldReport } from '../config/field-report.js';
import { defineScript, inStore, LUA_NOW, type Script } from './redis.js';
import { DAY_MS, parseStored, reportsIn } from './report-store.js';
import type { ReportStore, StoredReport } from './report-store.js';

/**
 * Reports in Redis (REDIS_URL), shared by every instance: a string per day, the file store's JSON
 * lines appended to it, dated by Redis's clock. A period is a few long reads (a stream's reply
 * entry per report cost more than the reports' own JSON: docs/benchmarks.md). A report's id is
 * remembered for the retention, so a replay to any instance counts once; a day's string expires
 * once its reports are past the retention. The braces keep every key in one slot for a cluster.
 */
const DAY = 'reports:{field}:day:';
const SEEN = 'reports:{field}:id:';
/** Where versions before 2026-11-28 kept them: read until its reports pass the retention. */
const OLD_LOG = 'reports:{field}:log';

/** Bytes read at once: a long period never blocks Redis on one reply. */
const READ_BYTES = 1024 * 1024;

// The day is the instance's (a script names its keys up front); the date in the line is Redis's.
// So a day's string may hold a few reports of the day beside it: the reader reads one more each
// side and keeps each day a day longer.
const ADD = `${LUA_NOW}
local keep = tonumber(ARGV[1])
if not redis.call('SET', KEYS[1], '1', 'PX', keep, 'NX') then return 0 end
redis.call('APPEND', KEYS[2], '{"at":' .. now .. ',' .. string.sub(ARGV[2], 2) .. '\\n')
redis.call('PEXPIREAT', KEYS[2], tonumber(ARGV[3]) + keep)
if redis.call('PTTL', KEYS[3]) == -1 then redis.call('PEXPIRE', KEYS[3], keep) end
return 1
`;

const dayOf = (ms: number) => ms - (ms % DAY_MS);

export class RedisReportStore implements ReportStore {
  private readonly addScript: Script;

  constructor(
    private readonly redis: Redis,
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.addScript = defineScript(redis, 'reportAdd', 3, ADD);
  }

  async add(device: string, report: FieldReport): Promise<boolean> {
    const day = dayOf(this.now());
    const [line, expires] = [JSON.stringify({ device, report }), day + 2 * DAY_MS];
    const added = await inStore(() =>
      this.addScript(SEEN + report.id, DAY + day, OLD_LOG, this.retentionMs, line, expires),
    );
    return added === 1;
  }

  async *since(sinceMs: number): AsyncGenerator<StoredReport[]> {
    const now = this.now();
    const from = Math.max(0, sinceMs, now - this.retentionMs);
    yield* this.oldLog(from);
    const days: string[] = [];
    for (let day = dayOf(from) - DAY_MS; day <= dayOf(now) + DAY_MS; day += DAY_MS)
      days.push(DAY + day);
    // A year's days are asked at once (one round trip, not 367), and only those with reports read.
    const lengths = await inStore(() => Promise.all(days.map((key) => this.redis.strlen(key))));
    for (const [index, key] of days.entries())
      if (lengths[index]) yield* reportsIn(this.chunks(key), from);
  }

  /** A day's string, READ_BYTES at a time; the next read travels while one is parsed. */
  private async *chunks(key: string): AsyncGenerator<Buffer> {
    const read = (start: number) =>
      inStore(() => this.redis.getrangeBuffer(key, start, start + READ_BYTES - 1));
    let next = read(0);
    for (let start = 0; ; start += READ_BYTES) {
      const chunk = await next;
      if (chunk.length === READ_BYTES) next = read(start + READ_BYTES);
      if (chunk.length) yield chunk;
      if (chunk.length < READ_BYTES) return;
    }
  }

  /** The stream of versions before 2026-11-28 (`{ device, report }` entries dated by their id). */
  private async *oldLog(from: number): AsyncGenerator<StoredReport[]> {
    const entries = await inStore(() => this.redis.xrange(OLD_LOG, String(from), '+'));
    const batch = entries
      .map(([id, [, text = '']]) => parseStored(`{"at":${id.split('-')[0]},${text.slice(1)}`))
      .filter((stored) => stored !== null);
    if (batch.length) yield batch;
  }

  /** The client belongs to the app (or the report command), which closes it. */
  async close(): Promise<void> {}
}
