import type { EarlyRequests } from './video-contract';
import { timeoutSignal } from '../../api/timeout-signal';

/** A dead link must not hold hls.js for ever: after this it asks again itself. */
const EARLY_TIMEOUT_MS = 60_000;

/**
 * The requests hls.js would make one after the other (master, playlist, init, first segment),
 * made together before its chunk arrives: on a 2 s round trip that is a first frame at 8 s
 * instead of 14 s. hls.js is handed the answers with their real timings (adaptive-player.ts).
 */
export function requestEarly(urls: string[]): EarlyRequests {
  return new Map(
    urls.map((url) => {
      const askedAt = performance.now();
      const response = fetch(url, {
        credentials: 'same-origin',
        signal: timeoutSignal(EARLY_TIMEOUT_MS),
      })
        .then(async (answer) => {
          const firstByteAt = performance.now();
          if (!answer.ok) return null;
          const body = await answer.arrayBuffer();
          return { body, askedAt, firstByteAt, endedAt: performance.now() };
        })
        .catch(() => null);
      return [url, response] as const;
    }),
  );
}

/**
 * The poster would share the link with the first segment, and once playing it is never seen:
 * it is asked for only if the first frame finds the video still paused.
 */
export function holdPoster(video: HTMLVideoElement) {
  const poster = video.getAttribute('poster');
  if (!poster) return;
  video.removeAttribute('poster');
  const show = () => {
    if (video.paused && !video.currentTime) video.setAttribute('poster', poster);
  };
  video.addEventListener('loadeddata', show, { once: true });
  video.addEventListener('error', show, { once: true });
}
