import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { FieldReport } from '../config/field-report.js';
import { DAY_MS, linesIn, parseStored, reportsIn } from './report-store.js';
import type { ReportStore, StoredReport } from './report-store.js';

/** In DATA_DIR: one JSON line per report, appended; `npm run report` reads the same file. */
export const REPORTS_FILE = 'field-reports.jsonl';

/** Bytes read at once: a period of reports is read whole, in a few large reads. */
const READ_CHUNK = 1024 * 1024;

/** The file's bytes, a read's worth at a time; none when there is no file yet. */
async function* chunksOf(file: string): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!handle) return;
  try {
    yield* handle.createReadStream({ highWaterMark: READ_CHUNK, autoClose: false });
  } finally {
    await handle.close();
  }
}

async function endsWithNewline(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return true;
  try {
    const { size } = await handle.stat();
    if (size === 0) return true;
    const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

interface Options {
  dir: string;
  retentionMs: number;
  now: () => number;
}

/**
 * Reports without Redis: an append-only file (decisions #16). One process writes it (an instance
 * per DATA_DIR); reports arriving in the same tick go out in one write, answered once the
 * operating system has them, so a stop or a crash of the process loses none. Old reports, and a
 * line cut by a crash, go at the first report after a start and then daily: the kept lines are
 * written to a new file that replaces the old one at once (rename), never half written.
 */
export class FileReportStore implements ReportStore {
  private readonly file: string;
  /** The ids of the kept reports: a report sent again is recognised without reading the file. */
  private readonly ids = new Set<string>();
  private handle: Promise<FileHandle> | null = null;
  /** Writes and compactions, one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private pending: { id: string; line: string }[] = [];
  private batch: Promise<void> | null = null;
  private compactedAt = 0;

  constructor(private readonly options: Options) {
    this.file = join(options.dir, REPORTS_FILE);
  }

  async add(device: string, report: FieldReport): Promise<boolean> {
    await this.opened();
    if (this.ids.has(report.id)) return false;
    this.ids.add(report.id);
    const at = this.options.now();
    if (at - this.compactedAt >= DAY_MS) void this.serially(() => this.compact());
    this.pending.push({ id: report.id, line: `${JSON.stringify({ at, device, report })}\n` });
    this.batch ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.serially(() => this.writePending()),
    );
    await this.batch;
    return true;
  }

  async *since(sinceMs: number): AsyncGenerator<StoredReport[]> {
    // What this process has accepted is in the file before it is read.
    await this.settled();
    const from = Math.max(sinceMs, this.options.now() - this.options.retentionMs);
    yield* reportsIn(chunksOf(this.file), from);
  }

  async close(): Promise<void> {
    await this.settled();
    const handle = this.handle;
    if (!handle) return;
    this.handle = null;
    await this.serially(async () => (await handle.catch(() => null))?.close());
  }

  /** The file's ids are read, and the file compacted, before the first report is kept. */
  private opened(): Promise<FileHandle> {
    return (this.handle ??= this.watched(this.serially(() => this.reopen())));
  }

  private async reopen(): Promise<FileHandle> {
    await mkdir(this.options.dir, { recursive: true });
    await this.rewrite();
    return open(this.file, 'a');
  }

  /** A folder that cannot be written is tried again by the next report. */
  private watched(handle: Promise<FileHandle>): Promise<FileHandle> {
    handle.catch(() => {
      if (this.handle === handle) this.handle = null;
    });
    return handle;
  }

  /** Every report accepted so far is in the file. */
  private async settled(): Promise<void> {
    await this.batch?.catch(() => undefined);
    await this.queue;
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async writePending(): Promise<void> {
    const lines = this.pending;
    this.pending = [];
    this.batch = null;
    try {
      if (!this.handle) throw new Error('the reports file is closed');
      await (await this.handle).appendFile(lines.map(({ line }) => line).join(''));
    } catch (error) {
      // Not kept: the page's retry must not be taken for a replay.
      for (const { id } of lines) this.ids.delete(id);
      throw error;
    }
  }

  /** Runs inside the queue with the append handle open: closes it around the rewrite. */
  private async compact(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    await (await handle).close();
    this.handle = this.watched(this.reopen());
    await this.handle;
  }

  /** Reads the ids; replaces the file by its kept lines when any line goes. */
  private async rewrite(): Promise<void> {
    const now = this.options.now();
    this.compactedAt = now;
    const cutoff = now - this.options.retentionMs;
    const kept: string[] = [];
    let dropped = 0;
    this.ids.clear();
    for await (const lines of linesIn(chunksOf(this.file)))
      for (const line of lines) {
        const stored = parseStored(line);
        if (!stored || stored.at < cutoff) dropped += 1;
        else {
          kept.push(line);
          this.ids.add(stored.report.id);
        }
      }
    // A last line cut just before its newline parses, but the next append would join it.
    if (dropped === 0 && (await endsWithNewline(this.file))) return;
    const temporary = `${this.file}.tmp`;
    const out = await open(temporary, 'w');
    try {
      await out.writeFile(kept.map((line) => `${line}\n`).join(''));
      await out.sync();
    } finally {
      await out.close();
    }
    await rename(temporary, this.file);
    // The rename itself survives a power cut once the folder is synced.
    const folder = await open(this.options.dir, 'r');
    await folder.sync().finally(() => folder.close());
  }
}
