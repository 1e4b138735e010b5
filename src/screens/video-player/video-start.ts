/**
 * How the player's <video> starts, for both callers: the boot script (a returning visitor,
 * before the bundle) and the Player. This file is the one owner of the video's source: it
 * assigns it once per element, and later callers adopt that start; nothing else sets `src` or
 * calls load() (the retry after a failure goes through reloadVideo, the leave through
 * video-stop.ts). Kept free of React: the boot bundles it. The whole story: docs/video-start.md.
 */
import {
  KEY_FILE,
  RUNG_FILES,
  SEGMENT_S,
  segmentAt,
  segmentName,
  type MediaInfo,
} from '../../../config/media-layout';
import type { SessionStorage } from '../../../machines/session';
import { requestAhead, requestEarly, showPoster } from './early-requests';
import { canShowFirstFrame, showFirstFrame } from './first-frame';
import { hasMediaSource, mediaUrls, playsHlsNatively, unmarkAdaptive } from './media-support';
import { levelsFor, readChoice, readEstimate, saveEstimate, startRung } from './quality';
import { readPosition } from './resume-position';
import { canDecrypt, importSegmentKey } from './segment-crypto';
import { keyUrlPublish, publishIdOf, storedVideoKey } from './video-key';
import type { AdaptivePlayer, LoadAdaptive } from './video-contract';

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

export interface StartOptions {
  info: MediaInfo | null;
  storage: SessionStorage;
  loadAdaptive: LoadAdaptive;
}

/** Starts `video` once; later calls (the Player adopting the boot's video) get the same. */
export function startVideo(video: HTMLVideoElement, options: StartOptions) {
  video.playback ??= start(video, options);
  return video.playback;
}

/**
 * Asks for the video again after it failed (the visitor's retry, a server back from a 503).
 * Only then: a load() on a video that plays would stop it.
 */
export function reloadVideo(video: HTMLVideoElement) {
  video.load();
}

/** What the start asks for first, from the page's media info and what this device stored. */
function planStart(info: MediaInfo, storage: SessionStorage) {
  const urls = mediaUrls(info);
  const position = readPosition(storage, urls.position);
  const choice = readChoice(storage);
  // eslint-disable-next-line compat/compat -- undefined in Safari and Firefox: readEstimate falls back.
  const estimateBps = readEstimate(storage, navigator.connection);
  const rung = startRung(info.rungs, choice, estimateBps);
  const from = position ?? 0;
  const index = segmentAt(from, info.firstSegmentS);
  const inRung = (file: string) => urls.inRung(rung.dir, file);
  const init = inRung(RUNG_FILES.init);
  const segment = (step: number) => inRung(segmentName(index + step));
  const first = segment(0);
  // An encrypted publish's key: the one stored at the signin, else asked beside the first
  // segment (a publish made since, or a signin whose answer the machine has not stored yet).
  const publish = publishIdOf(rung.dir);
  const storedKey = info.encrypted ? storedVideoKey(storage, publish) : null;
  const keyUrl = info.encrypted && !storedKey ? inRung(KEY_FILE) : null;
  const ownFrame = canShowFirstFrame(rung.codecs) && (!info.encrypted || canDecrypt());
  // Only what the first frame needs: anything else asked now would share the link with it.
  // Where the start shows that frame, hls.js's playlists are asked for once it is on its way.
  const playlists = [urls.master, inRung(RUNG_FILES.playlist)];
  const needed = keyUrl ? [keyUrl, init, first] : [init, first];
  const asked = ownFrame ? needed : [...playlists, ...needed];
  return {
    index,
    publish,
    storedKey,
    keyUrl,
    urls,
    position,
    choice,
    estimateBps,
    rung,
    from,
    init,
    first,
    segment,
    ownFrame,
    playlists,
    asked,
  };
}

/**
 * The video's first requests, made before its element exists: an encrypted publish's init and
 * first segment while the visitor types or beside the signin (they are public, and the key
 * comes in the signin's answer), so that the first frame waits for one round trip after the
 * press, not two; the rest (the playlists, which the server keeps for a live session, and an
 * older publish's files) once the signin succeeded.
 */
export function startAhead(info: MediaInfo | null, storage: SessionStorage, signedIn: boolean) {
  if (!info || !hasMediaSource() || (!signedIn && !info.encrypted)) return;
  const plan = planStart(info, storage);
  const before = [plan.init, plan.first];
  requestAhead(plan.asked.filter((url) => (signedIn ? url !== plan.keyUrl : before.includes(url))));
}

async function start(video: HTMLVideoElement, options: StartOptions) {
  const { info, storage } = options;
  if (!info || !hasMediaSource()) {
    const urls = mediaUrls(info);
    showPoster(video, 'now');
    setSource(video, info && playsHlsNatively(video) ? urls.master : urls.video);
    resumeAt(video, readPosition(storage, urls.position));
    return null;
  }
  // With a published ladder and Media Source, hls.js plays it. The start asks for what the
  // first frame needs at once and shows that frame itself; hls.js's chunk comes after the second
  // segment.
  const plan = planStart(info, storage);
  const { urls, position, choice, estimateBps, rung, from, init, first, segment, ownFrame } = plan;
  showPoster(video, 'after first frame');
  const early = requestEarly(plan.asked);
  const { keyUrl, storedKey } = plan;
  // The key's answer is taken out of the early ones: hls.js is handed the bytes (videoKey).
  const keyAnswer = keyUrl ? early.get(keyUrl) : undefined;
  if (keyUrl) early.delete(keyUrl);
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
    const answer = requestEarly([url]).get(url)!;
    early.set(url, answer);
    return answer;
  };
  const firstMs = (1000 * rung.peakBandwidth * (info.firstSegmentS ?? SEGMENT_S)) / estimateBps;
  const secondIn = ownFrame ? firstFrame.follow((step) => askLater(segment(step)), firstMs) : null;
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
