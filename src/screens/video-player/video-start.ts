/**
 * How the player's <video> starts, in one place for both callers: the boot script, for a
 * returning visitor before the bundle arrives (src/boot/boot.ts), and the Player otherwise. Kept
 * free of React (the boot bundles this file).
 *
 * With a published ladder (MEDIA_DIR, which the server writes into the page: MediaInfo) and
 * Media Source, hls.js plays it. Its chunk (~100 KB) and the four requests it would make one
 * after the other (master, playlist, init, first segment) go out together instead: on a 2 s
 * round trip that is the difference between a first frame at 8 s and at 14 s. hls.js is then
 * handed the answers with their real timings (adaptive-player.ts). Without Media Source but with
 * native HLS (iPhones before iOS 17.1) the browser plays the master itself; otherwise the MP4.
 */
import {
  MEDIA_INFO_ID,
  PUBLISHED,
  RUNG_DIR_PATTERN,
  VERSION_DIR_PATTERN,
  RUNG_FILES,
  SEGMENT_S,
  isCount,
  segmentName,
  type MediaInfo,
} from '../../../config/media-layout';
import type { SessionStorage } from '../../../machines/session';
import { config } from '../../config';
import type { AdaptivePlayer, AttachOptions } from './adaptive-player';
import {
  QUALITY_KEY,
  levelsFor,
  parseChoice,
  readEstimate,
  saveEstimate,
  startRung,
  type LinkHint,
} from './quality';
import { readPosition } from './resume-position';

declare global {
  interface HTMLVideoElement {
    /**
     * Set by startVideo: how this element plays (an AdaptivePlayer, or null for the MP4 or native
     * HLS). The boot script and the Player are two bundles; the element is what they share.
     */
    playback?: Promise<AdaptivePlayer | null>;
  }
  interface Navigator {
    connection?: LinkHint;
  }
}

/** What the server wrote into the page (null: only the single MP4), checked before use. */
export function readMediaInfo(doc: Document = document): MediaInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(doc.getElementById(MEDIA_INFO_ID)?.textContent ?? 'null');
  } catch {
    return null;
  }
  const { rungs, version } = (value as Partial<MediaInfo> | null) ?? {};
  if (!Array.isArray(rungs) || rungs.length === 0) return null;
  if (version !== undefined && !VERSION_DIR_PATTERN.test(version)) return null;
  const valid = rungs.every(
    (rung: Partial<MediaInfo['rungs'][number]> | null) =>
      typeof rung?.dir === 'string' &&
      RUNG_DIR_PATTERN.test(rung.dir) &&
      isCount(rung.height) &&
      isCount(rung.peakBandwidth),
  );
  return valid ? { version, rungs: rungs as MediaInfo['rungs'] } : null;
}

/**
 * The master and the MP4 of the version the page was given (media-info): a publish made while
 * this page plays changes none of the URLs it asks for. Without a version, the served publish.
 */
function versionUrls(info: MediaInfo | null): { masterUrl: string; videoUrl: string } {
  if (!info?.version) return config;
  const base = new URL(`${info.version}/`, new URL(config.masterUrl, location.href));
  const url = (name: string) => new URL(name, base).href;
  return { masterUrl: url(PUBLISHED.master), videoUrl: url(PUBLISHED.fallback) };
}

/** Media Source (Chromium, Firefox, Android, iPadOS, iOS 17.1+): hls.js plays there. */
const hasMediaSource = () =>
  typeof window !== 'undefined' && ('MediaSource' in window || 'ManagedMediaSource' in window);

/**
 * Whether hls.js will play `info`'s ladder here, said on the page's root element from the boot
 * on (data-adaptive), so that the quality menu has its place from the first paint instead of
 * pushing the page down when hls.js has the master (video-player.css).
 */
export function markAdaptive(info: MediaInfo | null): boolean {
  const adaptive = !!info && hasMediaSource();
  if (adaptive) document.documentElement.dataset.adaptive = '';
  return adaptive;
}

/** hls.js gave up, or never came: the MP4, and no quality menu. */
function fallBack(video: HTMLVideoElement, videoUrl: string) {
  delete document.documentElement.dataset.adaptive;
  video.src = videoUrl;
}

/** An answer fetched before hls.js was there, with when it was asked for and arrived. */
interface EarlyResponse {
  body: ArrayBuffer;
  /** performance.now() when asked, at the first byte (headers), and at the last. */
  askedAt: number;
  firstByteAt: number;
  endedAt: number;
}

/** By absolute URL; null when the request failed (hls.js then asks again, its own way). */
export type EarlyRequests = Map<string, Promise<EarlyResponse | null>>;

/** A dead link must not hold hls.js for ever: after this it asks again itself. */
const EARLY_TIMEOUT_MS = 60_000;

function requestEarly(urls: string[]): EarlyRequests {
  return new Map(
    urls.map((url) => {
      const askedAt = performance.now();
      const response = fetch(url, {
        credentials: 'same-origin',
        signal: AbortSignal.timeout(EARLY_TIMEOUT_MS),
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
function holdPoster(video: HTMLVideoElement) {
  const poster = video.getAttribute('poster');
  if (!poster) return;
  video.removeAttribute('poster');
  const show = () => {
    if (video.paused && !video.currentTime) video.setAttribute('poster', poster);
  };
  video.addEventListener('loadeddata', show, { once: true });
  video.addEventListener('error', show, { once: true });
}

export interface StartOptions {
  info: MediaInfo | null;
  storage: SessionStorage;
  /** The adaptive player's chunk (with hls.js): a dynamic import, by each caller its own way. */
  loadAdaptive: () => Promise<{ attachAdaptive(options: AttachOptions): AdaptivePlayer | null }>;
}

/** Starts `video` once; later calls (the Player adopting the boot's video) get the same. */
export function startVideo(video: HTMLVideoElement, options: StartOptions) {
  video.playback ??= start(video, options);
  return video.playback;
}

async function start(video: HTMLVideoElement, options: StartOptions) {
  const { info, storage } = options;
  const { videoUrl, masterUrl } = versionUrls(info);
  if (!info || !hasMediaSource()) {
    const native = info && video.canPlayType('application/vnd.apple.mpegurl') !== '';
    video.src = native ? masterUrl : videoUrl;
    return null;
  }
  const choice = parseChoice(storage.getItem(QUALITY_KEY));
  const estimateBps = readEstimate(storage, navigator.connection);
  const rung = startRung(info.rungs, choice, estimateBps);
  const position = readPosition(storage, config.videoUrl) ?? 0;
  const master = new URL(masterUrl, location.href);
  const inRung = (name: string) => new URL(`${rung.dir}/${name}`, master).href;
  holdPoster(video);
  const early = requestEarly([
    master.href,
    inRung(RUNG_FILES.playlist),
    inRung(RUNG_FILES.init),
    inRung(segmentName(Math.floor(position / SEGMENT_S))),
  ]);
  try {
    const { attachAdaptive } = await options.loadAdaptive();
    const player = attachAdaptive({
      video,
      masterUrl: master.href,
      fallBack: () => fallBack(video, videoUrl),
      early,
      startDir: rung.dir,
      position,
      estimateBps,
      levelsFor: (list) => levelsFor(choice, list),
      onEstimate: (bps) => saveEstimate(storage, bps),
    });
    if (!player) fallBack(video, videoUrl);
    return player;
  } catch {
    // The chunk did not come (a dead link): the MP4 is the video's own way to play.
    fallBack(video, videoUrl);
    return null;
  }
}
