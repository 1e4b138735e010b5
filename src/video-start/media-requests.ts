import { timeoutSignal } from '../api/timeout-signal';
import type { EarlyAnswer, EarlyRequests } from './contract';

/** A dead link must not hold hls.js for ever: after this it asks again itself. */
const EARLY_TIMEOUT_MS = 60_000;

/**
 * The requests hls.js would make one after the other (master, playlist, init, first segments),
 * made together before its chunk arrives: one after the other, each would cost a round trip of
 * its own on a slow link (docs/benchmarks.md). hls.js is handed the answers with their real
 * timings (adaptive-player.ts). Some leave before the <video> exists (`ahead`: the login, a
 * signin that just succeeded); the start then `take`s them instead of asking again.
 */
export function mediaRequests() {
  let ahead = new Map<string, EarlyAnswer>();
  // Each file once per start: one taken is not asked ahead again.
  let taken = new Set<string>();
  return {
    /** Asks for `urls` now, each once; settles when their answers are in, or failed. */
    ahead(urls: string[]): Promise<void> {
      const fresh = urls.filter((url) => !taken.has(url));
      for (const url of fresh) if (!ahead.has(url)) ahead.set(url, ask(url));
      return Promise.all(fresh.map((url) => ahead.get(url))).then(() => {});
    },
    /** The answer to `url` asked ahead and not taken yet. */
    asked: (url: string) => ahead.get(url),
    /** The answers to `urls`: those asked ahead, the others asked now. */
    take(urls: string[]): EarlyRequests {
      return new Map(
        urls.map((url) => {
          taken.add(url);
          const asked = ahead.get(url);
          return [url, asked && ahead.delete(url) ? asked : ask(url)] as const;
        }),
      );
    },
    /** Drops what was asked ahead and not taken (a start that ended). */
    forget() {
      ahead = new Map();
      taken = new Set();
    },
  };
}

function ask(url: string): EarlyAnswer {
  const askedAt = performance.now();
  const started = fetch(url, {
    credentials: 'same-origin',
    signal: timeoutSignal(EARLY_TIMEOUT_MS),
  });
  // The body as it arrives, then whole (its parts dropped once it is, or once it failed).
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let whole: ArrayBuffer | null = null;
  let ended = false;
  const waiting: (() => void)[] = [];
  const arrived = () => waiting.splice(0).forEach((wake) => wake());
  const response = started
    .then(async (answer) => {
      const firstByteAt = performance.now();
      if (!answer.ok || !answer.body) return null;
      const reader = answer.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        parts.push(read.value);
        arrived();
      }
      whole = await new Blob(parts).arrayBuffer();
      return { body: whole, askedAt, firstByteAt, endedAt: performance.now() };
    })
    .catch(() => null)
    .finally(() => {
      [ended, parts.length] = [true, 0];
      arrived();
    });
  /** What has arrived since the last call, in one piece (one append), until the end. */
  async function* chunks() {
    let [next, sent] = [0, 0];
    for (;;) {
      if (whole) {
        if (sent < whole.byteLength) yield new Uint8Array(whole, sent);
        return;
      }
      if (ended) return;
      if (next === parts.length) {
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const fresh = parts.slice(next);
      next = parts.length;
      const piece = new Uint8Array(await new Blob(fresh).arrayBuffer());
      sent += piece.byteLength;
      yield piece;
    }
  }
  return Object.assign(response, { started: started.catch(() => null), askedAt, chunks });
}
