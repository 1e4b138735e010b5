/** The one way of watching the page's <video> in the video sections, on the page's clock. */
import type { Tab } from './browser';

// Stalls: each `waiting` → `playing` after the first frame; heightMs / playingMs: the rendition.
const WATCH = {
  firstFrameAt: null as number | null,
  ...{ stalls: 0, stalledMs: 0, heightMs: 0, playingMs: 0, heightAtEnd: 0, currentTime: 0 },
};
type Watch = typeof WATCH;
type Watched = typeof globalThis & { __benchWatch?: Watch };

// In the page before its scripts: its first <video> (media events do not bubble, but capture),
// play pressed, muted, at its `loadstart` if `play`.
function watchPage([watch, play]: [Watch, boolean]) {
  (globalThis as Watched).__benchWatch = watch;
  let [video, waitingSince] = [null as HTMLVideoElement | null, null as number | null];
  let last = performance.now();
  const height = (element: HTMLVideoElement) => Math.min(element.videoHeight, element.videoWidth);
  const loadstart = ({ target: element }: Event) => {
    if (video || !(element instanceof HTMLVideoElement)) return;
    video = element;
    element.requestVideoFrameCallback((now, frame) => {
      watch.firstFrameAt ??= frame.presentationTime || now;
    });
    element.muted = true;
    if (play) void element.play().catch(() => undefined);
    element.addEventListener('waiting', () => {
      if (watch.firstFrameAt !== null) waitingSince ??= performance.now();
    });
    element.addEventListener('playing', () => {
      if (waitingSince === null) return;
      watch.stalls += 1;
      watch.stalledMs += performance.now() - waitingSince;
      waitingSince = null;
    });
  };
  addEventListener('loadstart', loadstart, true);
  setInterval(() => {
    const now = performance.now();
    if (video && !video.paused && video.readyState >= 3 && waitingSince === null) {
      watch.heightMs += (now - last) * height(video);
      watch.playingMs += now - last;
    }
    last = now;
    if (video) [watch.heightAtEnd, watch.currentTime] = [height(video), video.currentTime];
  }, 250);
}

// In the page, once the video can play (the MP4 or hls.js): a seek to `fraction`, the ms to its
// first frame there (null: none in 15 s), and whether playback went on a second past it (in 10 s).
async function seekPage(fraction: number) {
  const video = document.querySelector('video');
  const until = async (done: () => boolean, ms: number) => {
    for (const end = performance.now() + ms; !done() && performance.now() < end;)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return done();
  };
  const ready = () => !!video && Number.isFinite(video.duration) && video.readyState >= 3;
  if (!video || !(await until(ready, 20_000))) return null;
  const [target, requestedAt] = [video.duration * fraction, performance.now()];
  video.currentTime = target;
  if (video.paused) {
    video.muted = true;
    void video.play().catch(() => undefined);
  }
  const frameAt = await new Promise<number | null>((resolve) => {
    setTimeout(() => resolve(null), 15_000);
    const check: VideoFrameRequestCallback = (now, frame) =>
      frame.mediaTime < target - 0.1
        ? video.requestVideoFrameCallback(check)
        : resolve(frame.presentationTime || now);
    video.requestVideoFrameCallback(check);
  });
  const playsOn = frameAt !== null && (await until(() => video.currentTime >= target + 1, 10_000));
  return { requestedAt, frameMs: frameAt === null ? null : frameAt - requestedAt, playsOn };
}

export type Seek = Awaited<ReturnType<typeof seekPage>>;

/** Watches the video in every document `tab` opens from now on. */
export async function watchVideo(tab: Tab, play = true) {
  await tab.beforeScripts(watchPage, [WATCH, play] as [Watch, boolean]);
  return {
    firstFrame: (timeoutMs: number) =>
      tab.waitFor(() => (globalThis as Watched).__benchWatch?.firstFrameAt != null, timeoutMs),
    read: () => tab.evaluate(() => (globalThis as Watched).__benchWatch!),
    seek: (fraction: number) => tab.evaluate(seekPage, fraction),
  };
}
