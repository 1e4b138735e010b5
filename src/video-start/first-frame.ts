/**
 * The first frame before hls.js: the start rendition's init and first segment, appended to a
 * Media Source of our own as soon as they arrive, which hls.js adopts when its chunk comes
 * (`attachMedia` with a MediaSource, hls.js 1.6+). On a slow link hls.js's chunk came after the
 * first segment, and the frame waited for it. Kept free of hls.js: the boot bundles it.
 * The whole story: docs/video-start.md.
 */
import { SEGMENT_S } from '../../config/media-layout';
import type { EarlyAnswer, MediaHandover } from './contract';
import { FOLLOW_MAX, runsLow, secondMayLeave } from './link-schedule';
import { segmentDecrypter } from './segment-crypto';

/**
 * Once the bytes are here, opening, appending and showing the frame take milliseconds in
 * Chromium and Firefox. WebKitGTK's pipeline at times never shows it (readyState stays at
 * HAVE_METADATA, play() never settles) or never ends an append: after this, hls.js starts over
 * with a Media Source of its own, which it plays.
 */
const ENGINE_MS = 2_000;

function within<T>(work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('too slow')), ENGINE_MS)),
  ]);
}

/** Resolves once the video runs low (link-schedule.ts), `coming` seconds being on their way. */
const runningLow = (video: HTMLVideoElement, coming: () => number) =>
  new Promise<void>((resolve) => {
    const check = () => {
      const { buffered, currentTime, paused } = video;
      const bufferedEnd = buffered.length ? buffered.end(buffered.length - 1) : 0;
      if (!runsLow({ paused, bufferedEnd, currentTime }, coming())) return;
      video.removeEventListener('timeupdate', check);
      video.removeEventListener('play', check);
      resolve();
    };
    video.addEventListener('timeupdate', check);
    video.addEventListener('play', check);
    check();
  });

/** The next `name` or `error` on `target`; both listeners go (hls.js adopts the buffer). */
const event = (target: EventTarget, name: string) =>
  new Promise<void>((resolve, reject) => {
    const heard = (happened: Event) => {
      target.removeEventListener(name, heard);
      target.removeEventListener('error', heard);
      if (happened.type === name) resolve();
      else reject(new Error(`error before ${name}`));
    };
    target.addEventListener(name, heard);
    target.addEventListener('error', heard);
  });

async function append(buffer: SourceBuffer, body: BufferSource) {
  buffer.appendBuffer(body);
  await event(buffer, 'updateend');
}

const mimeType = (codecs: string) => `video/mp4; codecs="${codecs}"`;

class WrongKey extends Error {}

/** Whether `bytes` begin as an MP4 box does (a size, then four letters: styp, moof, sidx). */
const startsWithBox = (bytes: Uint8Array) =>
  bytes.byteLength >= 8 && /^[a-z]{4}$/.test(String.fromCharCode(...bytes.subarray(4, 8)));

/**
 * Appends `answer`'s bytes as they arrive (decrypted by `decrypter`): a Media Source shows each
 * fragment once it is whole, before the rest of the segment is there. Each append, not the link,
 * is bounded. False when the link failed part-way: what came stays.
 */
async function appendArriving(
  buffer: SourceBuffer,
  answer: EarlyAnswer,
  decrypter: ReturnType<typeof segmentDecrypter> | null,
): Promise<boolean> {
  let checked = !decrypter;
  for await (const chunk of answer.chunks()) {
    const bytes = decrypter ? await decrypter.next(chunk) : chunk;
    if (!bytes.byteLength) continue;
    // A wrong key gives noise: never appended (the element would fail), nor given to hls.js.
    if (!checked && !(checked = startsWithBox(bytes))) throw new WrongKey();
    await within(append(buffer, bytes));
  }
  if (!(await answer)) return false;
  // The last block and its padding: a wrong key fails here if no append failed before.
  const rest = decrypter && (await decrypter.end());
  if (rest?.byteLength) await within(append(buffer, rest));
  return true;
}

/**
 * Whether the start can show the first frame itself here. Not with ManagedMediaSource (Safari
 * 17+, iPhones): it needs disableRemotePlayback and a test of its own; hls.js starts there.
 */
export const canShowFirstFrame = (codecs: string | undefined): codecs is string =>
  !!codecs && typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(mimeType(codecs));

/**
 * An encrypted publish's key (null: it could not be had, hls.js starts) and the media sequence
 * number of the first segment, which the segment's IV is.
 */
export interface FirstFrameKey {
  key: Promise<CryptoKey | null>;
  sequence: number;
}

/**
 * Shows `init` and `first` in `video` from `position` (seconds): from 0, as soon as the first
 * fragment is appended (decrypted as it arrives when `encrypted`); `shown` settles, once all of
 * `first` is, with whether it showed. Where it cannot (no MediaSource or codecs, a failed
 * request, an engine that does not show it) hls.js starts as it always did. `follow` appends
 * the next segments while hls.js is not there yet; `handOver` stops that and gives hls.js the
 * Media Source. `attach` sets the source.
 */
export function showFirstFrame(
  video: HTMLVideoElement,
  { codecs, durationS }: { codecs?: string; durationS?: number },
  [init, first]: [EarlyAnswer, EarlyAnswer],
  position: number,
  attach: (url: string) => void,
  encrypted: FirstFrameKey | null = null,
) {
  const mediaSource = canShowFirstFrame(codecs) ? new MediaSource() : null;
  let buffer: SourceBuffer | null = null;
  let key: CryptoKey | null = null;
  let keyRefused = false;
  /** The decrypter of the segment `step` after the first, or null for a clear publish. */
  const decrypterOf = (step: number) =>
    key && encrypted ? segmentDecrypter(key, encrypted.sequence + step) : null;
  let appending: Promise<unknown> = Promise.resolve();
  // The whole segments appended, once the first is.
  let segments = 0;
  let handedOver = false;
  const opened = mediaSource && event(mediaSource, 'sourceopen');
  const shown = (async () => {
    if (!mediaSource) return false;
    attach(URL.createObjectURL(mediaSource));
    const initAnswer = await init;
    if (!initAnswer) return false;
    await within(opened!);
    // Its length before hls.js reads the playlist: the controls do not change when it comes.
    if (durationS) mediaSource.duration = durationS;
    const made = mediaSource.addSourceBuffer(mimeType(codecs!));
    await within(append(made, initAnswer.body));
    if (encrypted) key = await encrypted.key;
    if (encrypted && !key) return false;
    // The first segment's first fragment (prepare-video cuts it short) shows the frame.
    if (!(await appendArriving(made, first, decrypterOf(0)))) return false;
    // Played or not: a play pressed as the screen came finds data only there (it waited for
    // hls.js's start-over, 2 s). A place the visitor chose (currentTime moved) stands.
    if (position > 0 && video.currentTime === 0) video.currentTime = position;
    if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA)
      await within(event(video, 'loadeddata'));
    buffer = made;
    segments = 1;
    return true;
  })().catch((error: unknown) => {
    keyRefused = error instanceof WrongKey;
    return false;
  });
  return {
    shown,
    /** Once `shown` settled: the key did not open the first segment (a key of another publish). */
    keyRefused: () => keyRefused,
    /** Whether the element was given the start's own source (hls.js's would load it again). */
    attached: mediaSource !== null,
    /**
     * Until hls.js takes over, appends the segments after the first as they arrive, in order
     * (`ask(1)`, `ask(2)`, ...), each when link-schedule.ts lets it leave (`firstMs`: the first's
     * transfer as estimated), the third and later once the one before begins to arrive. Settles
     * when the second is appended, or will not be.
     */
    follow(ask: (step: number) => EarlyAnswer, firstMs: number): Promise<void> {
      let queue: Promise<unknown> = shown;
      let stopped = false;
      // The seconds asked for and not appended yet.
      let asked = 0;
      let secondIn!: () => void;
      const second = new Promise<void>((resolve) => (secondIn = resolve));
      // No frame of its own: hls.js starts over at once (what was asked is in its early answers).
      void shown.then((ok) => ok || ((stopped = true), secondIn()));
      void (async () => {
        let previous = first;
        for (let step = 1; step <= FOLLOW_MAX; step += 1) {
          // Not before the source is open: a closed one is a source replaced (hls.js's, the MP4).
          if (step === 1) await Promise.all([secondMayLeave(first, firstMs), opened]);
          else await Promise.all([previous.started, runningLow(video, () => asked)]);
          if (stopped || handedOver || mediaSource?.readyState !== 'open') return;
          const answer = ask(step);
          asked += SEGMENT_S;
          queue = queue.then(async () => {
            // Once hls.js has it, an answer not appended yet is its own (it asks by URL).
            if (handedOver) return;
            if (!buffer) throw new Error('not appended');
            const made = buffer;
            // Cut short by the link: the parser forgets its half box, or hls.js's next append
            // would be read as its rest.
            appending = appendArriving(made, answer, decrypterOf(step)).then((whole) => {
              if (!whole && mediaSource?.readyState === 'open') made.abort();
              return whole;
            });
            if (!(await appending)) throw new Error('cut short');
            asked -= SEGMENT_S;
            segments += 1;
          });
          // A segment that could not be appended (the link, the source replaced) ends the chain.
          queue.catch(() => (stopped = true)).finally(secondIn);
          previous = answer;
        }
      })()
        .catch(() => {})
        .finally(secondIn);
      return second;
    },
    async handOver(): Promise<MediaHandover | null> {
      const ok = await shown;
      handedOver = true;
      // The segment arriving goes on to its end (each append is bounded): hls.js then asks
      // for the one after it.
      try {
        await appending;
      } catch {
        return null;
      }
      return ok && buffer ? { mediaSource: mediaSource!, buffer, codecs: codecs!, segments } : null;
    },
  };
}
