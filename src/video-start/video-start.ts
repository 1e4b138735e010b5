/**
 * The video's start, created once per page by whoever runs first (the boot script, src/boot/;
 * `npm run dev`'s entry) and handed to the app: the requests that leave before the <video>
 * exists, and the <video>'s source. It is the one owner of that source: it assigns it once per
 * element, and later callers adopt that start; nothing else sets `src` or calls load(). Kept
 * free of React: the boot bundles it. The whole story: docs/video-start.md.
 */
import type { MediaInfo } from '../../config/media-layout';
import type { SessionStorage, VideoKey } from '../../machines/session';
import { readRecord } from '../offline/download-store';
import {
  hasMediaSource,
  mediaUrls,
  playsHlsNatively,
  unmarkAdaptive,
} from '../screens/video-player/media-support';
import { levelsFor, saveEstimate } from '../screens/video-player/quality';
import { readPosition } from '../screens/video-player/resume-position';
import type { AdaptivePlayer, LoadAdaptive } from './contract';
import { showFirstFrame } from './first-frame';
import { secondMayLeave } from './link-schedule';
import { mediaRequests } from './media-requests';
import { importSegmentKey } from './segment-crypto';
import { firstRequests, planStart, requestsAhead, type StartPlan } from './start-plan';
import { keyUrlPublish, knownVideoKey } from './video-key';

export interface VideoStart {
  /**
   * The login is on screen: an encrypted publish's first bytes (public, useless without the
   * key) leave now, while the visitor types, so that the first frame waits only for the signin.
   * Settles once they are in (or failed), at once when there are none to ask for.
   */
  fetchAhead(): Promise<void>;
  /**
   * A signin succeeded (the boot's or the app's): the start's other requests leave at once. Its
   * answer's key opens the video before the machine has stored it (a press the boot answered).
   */
  signedIn(videoKey?: VideoKey): void;
  /** Starts `video` once; later calls (the Player adopting the boot's video) get the same. */
  play(video: HTMLVideoElement): Promise<AdaptivePlayer | null>;
  /**
   * Asks for the video again after it failed (the visitor's retry, a server back from a 503).
   * Only then: a load() on a video that plays would stop it.
   */
  reload(video: HTMLVideoElement): void;
  /**
   * Lets `video` go (its screen left, or the app will not keep the one the boot started): hls.js
   * stops and nothing more is asked; a detached <video> would go on loading and playing.
   */
  stop(video: HTMLVideoElement): void;
  /**
   * For the view's report (src/field-report/): performance.now() at `video`'s first frame and at
   * the press of "Ingresar" that led to it (null: none yet; no press in this page, a return).
   */
  timing(video: HTMLVideoElement): { pressAt: number | null; firstFrameAt: number | null };
}

export function createVideoStart(options: {
  info: MediaInfo | null;
  storage: SessionStorage;
  loadAdaptive: LoadAdaptive;
}): VideoStart {
  const { info, storage } = options;
  const requests = mediaRequests();
  const playing = new WeakMap<HTMLVideoElement, Promise<AdaptivePlayer | null>>();
  // One plan per start: made by its first request, dropped when its video stops.
  let plan: StartPlan | null = null;
  // Whoever answers the press (the boot script or the login screen), it is a submit of the form.
  let pressedAt: number | null = null;
  let signedInPress: number | null = null;
  let signinKey: VideoKey | undefined;
  // The build's prerender makes one too, with no document.
  if (typeof document !== 'undefined') document.addEventListener('submit', pressed, true);
  const timings = new WeakMap<
    HTMLVideoElement,
    { pressAt: number | null; firstFrameAt: number | null }
  >();
  const planned = (known: MediaInfo) => (plan ??= planStart(known, storage));
  const ahead = async (signedIn: boolean) => {
    if (info && hasMediaSource()) await requests.ahead(requestsAhead(planned(info), signedIn));
  };
  // An encrypted publish's second segment (public, useless without the key) leaves at the press,
  // once the first's transfer is over: asked at the signin's answer, it came after the first
  // had played (a stall per visit on Slow 3G, docs/benchmarks.md).
  function pressed() {
    pressedAt = performance.now();
    if (!info?.encrypted || !hasMediaSource()) return;
    const { ownFrame, first, firstMs, segment } = planned(info);
    const asked = requests.asked(first);
    if (ownFrame && asked)
      void secondMayLeave(asked, firstMs).then(() => requests.ahead([segment(1)]));
  }
  return {
    fetchAhead: () => ahead(false),
    signedIn: (videoKey) => {
      signedInPress = pressedAt;
      signinKey = videoKey;
      void ahead(true);
    },
    play(video) {
      let started = playing.get(video);
      if (!started) {
        const timing = { pressAt: signedInPress, firstFrameAt: null as number | null };
        timings.set(video, timing);
        const frame = () => (timing.firstFrameAt ??= performance.now());
        if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) frame();
        else video.addEventListener('loadeddata', frame, { once: true });
        if (!info || !hasMediaSource()) started = startPlain(video);
        else if (navigator.onLine) started = startAdaptive(video, planned(info), info);
        // No signal: the stored copy's rendition (the worker answers it), not the estimate's.
        else
          started = readRecord().then((copy) =>
            startAdaptive(video, (plan = planStart(info, storage, copy)), info),
          );
        playing.set(video, started);
      }
      return started;
    },
    reload: (video) => video.load(),
    stop(video) {
      void playing.get(video)?.then((player) => player?.destroy());
      playing.delete(video);
      plan = null;
      signinKey = undefined;
      requests.forget();
      video.removeAttribute('src');
      video.load();
    },
    timing: (video) => timings.get(video) ?? { pressAt: null, firstFrameAt: null },
  };

  /** The MP4, or the browser's own HLS: the browser starts it. */
  function startPlain(video: HTMLVideoElement) {
    const urls = mediaUrls(info);
    showPoster(video, 'now');
    setSource(video, info && playsHlsNatively(video) ? urls.master : urls.video);
    resumeAt(video, readPosition(storage, urls.position));
    return Promise.resolve(null);
  }

  /**
   * With a published ladder and Media Source, hls.js plays it. The start asks for what the first
   * frame needs at once and shows that frame itself; hls.js's chunk comes after the second
   * segment.
   */
  async function startAdaptive(video: HTMLVideoElement, plan: StartPlan, info: MediaInfo) {
    const { urls, position, choice, estimateBps, rung, from, init, first, segment, ownFrame } =
      plan;
    showPoster(video, 'after first frame');
    // An encrypted publish's key: the signin's, else asked beside the first segment (a publish
    // made since the signin).
    const storedKey = info.encrypted ? knownVideoKey(storage, plan.publish, signinKey) : null;
    const early = requests.take(firstRequests(plan, !!storedKey));
    // The key's answer is taken out of the early ones: hls.js is handed the bytes (keyFor).
    const keyAnswer = plan.keyUrl ? early.get(plan.keyUrl) : undefined;
    if (plan.keyUrl) early.delete(plan.keyUrl);
    const videoKey = info.encrypted
      ? (keyAnswer ?? Promise.resolve(null)).then((answer) => {
          const bytes = storedKey ?? (answer ? new Uint8Array(answer.body) : null);
          return bytes ? { id: plan.publish, bytes } : null;
        })
      : null;
    const firstFrame = showFirstFrame(
      video,
      { codecs: rung.codecs, durationS: info.durationS },
      [early.get(init)!, early.get(first)!],
      from,
      (url) => setSource(video, url),
      videoKey && {
        key: videoKey.then((known) => (known ? importSegmentKey(known.bytes) : null)),
        sequence: plan.index,
      },
    );
    // Asked after the start's first requests: hls.js finds among its early answers those the
    // start did not append (first-frame.ts says when each next segment is asked for).
    const askLater = (url: string) => {
      const answer = requests.take([url]).get(url)!;
      early.set(url, answer);
      return answer;
    };
    const secondIn = ownFrame
      ? firstFrame.follow((step) => askLater(segment(step)), plan.firstMs)
      : null;
    void early.get(first)!.started.then(() => {
      if (!ownFrame) askLater(segment(1));
      else plan.playlists.forEach(askLater);
    });
    let player: AdaptivePlayer | null = null;
    try {
      // hls.js's chunk (and, for a returning visitor, the app's bundle: boot.ts) once the first
      // two segments are in: before, they would share the link with them and playback would wait.
      await secondIn;
      // No key to be had (the server lost it, or refuses it): hls.js could only fail on it.
      if (videoKey && !(await videoKey)) throw new Error('no key');
      const { attachAdaptive } = await options.loadAdaptive();
      const handover = await firstFrame.handOver();
      // hls.js's own source after the start's: its load algorithm pauses a play already pressed.
      const replay = !handover && firstFrame.attached && !video.paused;
      player = attachAdaptive({
        video,
        masterUrl: urls.master,
        fallBack: () => fallBack(video, urls.video, position),
        early,
        handover,
        startDir: rung.dir,
        position: from,
        estimateBps,
        levelsFor: (list) => levelsFor(choice, list),
        onEstimate: (bps) => saveEstimate(storage, bps),
        // A stored key the first segment refused is another publish's: hls.js asks the server.
        keyFor:
          videoKey && !firstFrame.keyRefused()
            ? (url) =>
                videoKey.then((known) =>
                  known && keyUrlPublish(url) === known.id ? known.bytes : null,
                )
            : null,
      });
      if (replay) video.play()?.catch(() => {});
    } catch {
      // The chunk or the key did not come (a dead link): the MP4 is the video's own way to play.
    }
    if (!player) fallBack(video, urls.video, position);
    return player;
  }
}

/**
 * The only assignment of a source. The same URL again would run the media load algorithm,
 * which aborts a play the visitor already pressed.
 */
function setSource(video: HTMLVideoElement, url: string) {
  if (video.getAttribute('src') !== url) video.src = url;
}

/**
 * The stored position, once the metadata says where the video ends; never over a play that
 * started meanwhile (the visitor chose where to watch).
 */
function resumeAt(video: HTMLVideoElement, seconds: number | null) {
  if (seconds === null) return;
  const apply = () => {
    if (!video.paused || video.currentTime > 0) return;
    const { duration } = video;
    if (Number.isFinite(duration) && seconds >= duration) return;
    video.currentTime = seconds;
  };
  if (video.readyState >= HTMLMediaElement.HAVE_METADATA) apply();
  else video.addEventListener('loadedmetadata', apply, { once: true });
}

/** hls.js gave up, or never came: the MP4 from the same place, and no quality menu. */
function fallBack(video: HTMLVideoElement, url: string, position: number | null) {
  unmarkAdaptive();
  setSource(video, url);
  resumeAt(video, position);
}

/**
 * The poster is in the markup as data-poster: a poster attribute is fetched as soon as the
 * element exists, sharing the link with the video's start. With hls.js it is asked for only if
 * the first frame finds the video still paused (once playing it is never seen); on the MP4 and
 * the browser's own HLS at once (their start is the browser's, and an iPhone loads nothing
 * before a press).
 */
function showPoster(video: HTMLVideoElement, when: 'now' | 'after first frame') {
  const poster = video.dataset.poster;
  if (!poster) return;
  const show = () => {
    if (video.paused && !video.currentTime) video.setAttribute('poster', poster);
  };
  if (when === 'now') return show();
  video.addEventListener('loadeddata', show, { once: true });
  video.addEventListener('error', show, { once: true });
}
