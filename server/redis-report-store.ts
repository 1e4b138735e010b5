import type { Redis } from 'ioredis';
import type { FieldReport } from '../config/field-report.js';
import { defineScript, inStore, LUA_NOW, type Script } from './redis.js';
import { parseStored, type ReportStore, type StoredReport } from './report-store.js';

/**
 * Reports in Redis (REDIS_URL), one stream for every instance: entries are ordered and dated by
 * Redis's clock (the entry id), so a period is one XRANGE. A report's id is remembered for the
 * retention, so a replay to any instance counts once; the same script trims what is older. The
 * braces keep both keys in one slot for a cluster.
 */
const LOG = 'reports:{field}:log';
const SEEN = 'reports:{field}:id:';

/** Reads in pages: a long period never blocks Redis on one reply. */
const PAGE = 1000;

const ADD = `${LUA_NOW}
local keep = tonumber(ARGV[1])
if not redis.call('SET', KEYS[1], '1', 'PX', keep, 'NX') then return 0 end
redis.call('XADD', KEYS[2], 'MINID', tostring(now - keep), '*', 'r', ARGV[2])
return 1
`;

/** A stream id's milliseconds ("1732700000000-0"). */
const msOf = (id: string) => Number(id.slice(0, id.indexOf('-')));

export class RedisReportStore implements ReportStore {
  private readonly addScript: Script;

  constructor(
    private readonly redis: Redis,
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.addScript = defineScript(redis, 'reportAdd', 2, ADD);
  }

  async add(device: string, report: FieldReport): Promise<boolean> {
    const added = await inStore(() =>
      this.addScript(SEEN + report.id, LOG, this.retentionMs, JSON.stringify({ device, report })),
    );
    return added === 1;
  }

  async *since(sinceMs: number): AsyncGenerator<StoredReport[]> {
    // Trimmed at each report; between reports the reader leaves out what is past the retention.
    // As buffers: ioredis's decoding of every id and field name to a string cost more than the
    // reports' own JSON (docs/benchmarks.md); only the JSON and the ids are decoded here.
    const read = (start: string) =>
      inStore(() => this.redis.xrangeBuffer(LOG, start, '+', 'COUNT', PAGE));
    let next = read(String(Math.max(0, sinceMs, this.now() - this.retentionMs)));
    for (;;) {
      const page = await next;
      // The next page travels while this one is parsed.
      if (page.length === PAGE) next = read(`(${page.at(-1)![0].toString()}`);
      const batch: StoredReport[] = [];
      for (const [id, fields] of page) {
        const stored = parseStored(fields[1]?.toString() ?? '', msOf(id.toString()));
        if (stored) batch.push(stored);
      }
      if (batch.length) yield batch;
      if (page.length < PAGE) return;
    }
  }

  /** The client belongs to the app (or the report command), which closes it. */
  async close(): Promise<void> {}
}
