/**
 * Runs a download file by file: each one is stored as soon as it arrives, so a lost link or a
 * closed page loses at most the file in flight, and a new run skips what is stored. A failed
 * request is tried again (longer waits each time; with no network, when it comes back) until
 * the visitor cancels. A full storage stops the run and keeps what is stored.
 */
import { openDownload, writeRecord, type DownloadRecord } from './download-store';
import { copyUntil } from './offline-copy';

export type RunEnd = 'done' | 'refused' | 'noRoom' | 'cancelled';

export interface RunEvents {
  progress(record: DownloadRecord): void;
  /** True while the run waits for the network to come back. */
  waiting(offline: boolean): void;
}

const MAX_WAIT_MS = 15_000;

class Cancelled extends Error {}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    const online = () => done();
    function done() {
      clearTimeout(timer);
      window.removeEventListener('online', online);
      signal.removeEventListener('abort', stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      window.removeEventListener('online', online);
      reject(new Cancelled());
    }
    // Back online: at once, not at the end of the wait.
    window.addEventListener('online', online);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** The file's answer, asked again until one comes; a 401 or a 4xx is an answer too. */
async function fetchFile(
  file: DownloadRecord['files'][number],
  signal: AbortSignal,
  events: RunEvents,
): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    if (signal.aborted) throw new Cancelled();
    try {
      const headers: HeadersInit = file.range
        ? { range: `bytes=${file.range[0]}-${file.range[1]}` }
        : {};
      const response = await fetch(file.url, { headers, signal, credentials: 'same-origin' });
      const retry = response.status >= 500 || response.status === 408 || response.status === 429;
      if (!retry) {
        events.waiting(false);
        return response;
      }
    } catch {
      if (signal.aborted) throw new Cancelled();
    }
    events.waiting(!navigator.onLine);
    await pause(Math.min(1000 * 2 ** attempt, MAX_WAIT_MS), signal);
  }
}

const isQuotaError = (error: unknown) =>
  error instanceof DOMException && error.name === 'QuotaExceededError';

/** What is kept of an answer: its bytes and type, not its caching or session headers. */
async function keepable(response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? 'application/octet-stream';
  const status = response.status === 204 ? 204 : 200;
  const body = status === 204 ? null : await response.blob();
  return new Response(body, { status, headers: { 'content-type': type } });
}

/** The MP4 from its stored pieces, in order, at the player's URL; the pieces then go. */
async function joinPieces(cache: Cache, record: DownloadRecord) {
  const parts: Blob[] = [];
  for (const file of record.files.filter((f) => f.range)) {
    const piece = await cache.match(file.key);
    if (!piece) throw new Error(`missing piece ${file.key}`);
    parts.push(await piece.blob());
  }
  const whole = new Blob(parts, { type: record.finish.contentType });
  await cache.put(
    record.finish.url,
    new Response(whole, {
      headers: { 'content-type': record.finish.contentType, 'content-length': `${whole.size}` },
    }),
  );
  await Promise.all(record.files.filter((f) => f.range).map((f) => cache.delete(f.key)));
}

export async function runDownload(
  record: DownloadRecord,
  signal: AbortSignal,
  events: RunEvents,
): Promise<RunEnd> {
  // One handle for the whole run: a session that ends deletes the cache by name, and a file
  // still in flight then lands in the deleted cache, never in a new one.
  const cache = await openDownload();
  try {
    for (const file of record.files) {
      if (await cache.match(file.key)) continue;
      const response = await fetchFile(file, signal, events);
      if (response.status === 401) return 'refused';
      if (!response.ok && response.status !== 204) {
        // A file the publish does not have (captions, chapters, poster) is not needed.
        if (file.optional) continue;
        throw new Error(`${file.url} answered ${response.status}`);
      }
      const kept = await keepable(response);
      if (signal.aborted) return 'cancelled';
      await cache.put(file.key, kept.clone());
      const size = Number(kept.headers.get('content-length')) || (await kept.blob()).size;
      record = { ...record, storedBytes: record.storedBytes + size };
      await writeRecord(cache, record);
      events.progress(record);
    }
    if (record.kind === 'mp4') await joinPieces(cache, record);
    else if (record.finish.master)
      await cache.put(
        record.finish.url,
        new Response(record.finish.master, {
          headers: { 'content-type': record.finish.contentType },
        }),
      );
    record = {
      ...record,
      done: true,
      totalBytes: Math.max(record.storedBytes, 1),
      until: copyUntil(Date.now(), record.days ?? 0),
    };
    await writeRecord(cache, record);
    events.progress(record);
    return 'done';
  } catch (error) {
    if (error instanceof Cancelled || signal.aborted) return 'cancelled';
    if (isQuotaError(error)) return 'noRoom';
    throw error;
  }
}
