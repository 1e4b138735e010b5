/**
 * The first frame before hls.js: the start rendition's init and first segment, appended to a
 * Media Source of our own as soon as they arrive, which hls.js adopts when its chunk comes
 * (`attachMedia` with a MediaSource, hls.js 1.6+). On a slow link hls.js's 100 KB chunk came
 * after the first segment, and the frame waited for it. Kept free of hls.js: the boot bundles it.
 * The whole story: docs/video-start.md.
 */
import type { EarlyAnswer, MediaHandover } from './video-contract';

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

const event = (target: EventTarget, name: string) =>
  new Promise<void>((resolve, reject) => {
    target.addEventListener(name, () => resolve(), { once: true });
    target.addEventListener('error', () => reject(new Error(`error before ${name}`)), {
      once: true,
    });
  });

async function append(buffer: SourceBuffer, body: ArrayBuffer) {
  buffer.appendBuffer(body);
  await event(buffer, 'updateend');
}

const mimeType = (codecs: string) => `video/mp4; codecs="${codecs}"`;

/**
 * Whether the start can show the first frame itself here. Not with ManagedMediaSource (Safari
 * 17+, iPhones): it needs disableRemotePlayback and a test of its own; hls.js starts there.
 */
export const canShowFirstFrame = (codecs: string | undefined): codecs is string =>
  !!codecs && typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(mimeType(codecs));

/**
 * Shows `init` and `first` in `video` from `position` (seconds); `shown` settles with whether it
 * did. Where it cannot (no MediaSource or codecs, a failed request, an engine that does not
 * show it) hls.js starts as it always did. `more` appends a later segment while hls.js is not
 * there yet; `handOver` stops that and gives hls.js the Media Source. `attach` sets the source.
 */
export function showFirstFrame(
  video: HTMLVideoElement,
  { codecs, durationS }: { codecs?: string; durationS?: number },
  [init, first]: [EarlyAnswer, EarlyAnswer],
  position: number,
  attach: (url: string) => void,
) {
  const mediaSource = canShowFirstFrame(codecs) ? new MediaSource() : null;
  let buffer: SourceBuffer | null = null;
  let appending: Promise<unknown> = Promise.resolve();
  let handedOver = false;
  const shown = (async () => {
    if (!mediaSource) return false;
    const opened = event(mediaSource, 'sourceopen');
    attach(URL.createObjectURL(mediaSource));
    const [initAnswer, firstAnswer] = await Promise.all([init, first]);
    if (!initAnswer || !firstAnswer) return false;
    buffer = await within(
      (async () => {
        await opened;
        // Its length before hls.js reads the playlist: the controls do not change when it comes.
        if (durationS) mediaSource.duration = durationS;
        const made = mediaSource.addSourceBuffer(mimeType(codecs!));
        await append(made, initAnswer.body);
        await append(made, firstAnswer.body);
        if (position > 0 && video.paused) video.currentTime = position;
        if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) await event(video, 'loadeddata');
        return made;
      })(),
    );
    return true;
  })().catch(() => false);
  return {
    shown,
    /** Whether the element was given the start's own source (hls.js's would load it again). */
    attached: mediaSource !== null,
    more(answer: EarlyAnswer) {
      void Promise.all([shown, answer]).then(([ok, response]) => {
        if (ok && buffer && response && !handedOver) appending = append(buffer, response.body);
      });
    },
    async handOver(): Promise<MediaHandover | null> {
      const ok = await shown;
      handedOver = true;
      try {
        await within(appending);
      } catch {
        return null;
      }
      return ok && buffer ? { mediaSource: mediaSource!, buffer, codecs: codecs! } : null;
    },
  };
}
