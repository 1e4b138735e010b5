import type { EarlyAnswer, EarlyRequests } from './video-contract';
import { timeoutSignal } from '../../api/timeout-signal';

/** A dead link must not hold hls.js for ever: after this it asks again itself. */
const EARLY_TIMEOUT_MS = 60_000;

/**
 * The requests hls.js would make one after the other (master, playlist, init, first segments),
 * made together before its chunk arrives: one after the other, each would cost a round trip of
 * its own on a slow link (docs/benchmarks.md). hls.js is handed the answers with their real
 * timings (adaptive-player.ts).
 */
export function requestEarly(urls: string[]): EarlyRequests {
  const ahead = window.startAhead;
  return new Map(
    urls.map((url) => {
      const asked = ahead?.get(url);
      return [url, asked && ahead?.delete(url) ? asked : ask(url)] as const;
    }),
  );
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

/**
 * Asks for `urls` before the video's element exists (the login, a signin that just succeeded),
 * each once; the start's own requestEarly takes these answers instead of asking again.
 */
export function requestAhead(urls: string[]) {
  const ahead = (window.startAhead ??= new Map());
  for (const url of urls) if (!ahead.has(url)) ahead.set(url, ask(url));
}

/**
 * The poster is in the markup as data-poster: a poster attribute is fetched as soon as the
 * element exists, sharing the link with the video's start. With hls.js it is asked for only if
 * the first frame finds the video still paused (once playing it is never seen); on the MP4 and
 * the browser's own HLS at once (their start is the browser's, and an iPhone loads nothing
 * before a press).
 */
export function showPoster(video: HTMLVideoElement, when: 'now' | 'after first frame') {
  const poster = video.dataset.poster;
  if (!poster) return;
  const show = () => {
    if (video.paused && !video.currentTime) video.setAttribute('poster', poster);
  };
  if (when === 'now') return show();
  video.addEventListener('loadeddata', show, { once: true });
  video.addEventListener('error', show, { once: true });
}
