import {
  MEDIA_INFO_ID,
  PUBLISHED,
  parseMediaInfo,
  type MediaInfo,
} from '../../../config/media-layout';
import { config } from '../../config';

/** What the server wrote into the page (null: only the single MP4), checked before use. */
export const readMediaInfo = (doc: Document = document): MediaInfo | null =>
  parseMediaInfo(doc.getElementById(MEDIA_INFO_ID)?.textContent);

/**
 * Every media URL the start asks for, built here only: the single MP4, the master, and a file
 * of a rendition's folder (relative to the master, as the master itself names them). With a
 * version in the page's media-info, those of that publish: a publish made while the page plays
 * changes nothing it asks for (docs/publishing.md).
 */
export function mediaUrls(info: MediaInfo | null) {
  const served = new URL(config.masterUrl, location.href);
  const version = info?.version ? new URL(`${info.version}/`, served) : null;
  const master = version ? new URL(PUBLISHED.master, version) : served;
  return {
    /** The key of the resume position: the same whichever publish plays. */
    position: config.videoUrl,
    video: version ? new URL(PUBLISHED.fallback, version).href : config.videoUrl,
    master: master.href,
    inRung: (dir: string, name: string) => new URL(`${dir}/${name}`, master).href,
  };
}

/** Media Source (Chromium, Firefox, Android, iPadOS, iOS 17.1+): hls.js plays there. */
export const hasMediaSource = () =>
  typeof window !== 'undefined' && ('MediaSource' in window || 'ManagedMediaSource' in window);

/** Without Media Source, native HLS (iPhones before iOS 17.1) plays the master itself. */
export const playsHlsNatively = (video: HTMLVideoElement) =>
  video.canPlayType('application/vnd.apple.mpegurl') !== '';

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

/** hls.js gave up, or never came: no quality menu. */
export const unmarkAdaptive = () => delete document.documentElement.dataset.adaptive;
