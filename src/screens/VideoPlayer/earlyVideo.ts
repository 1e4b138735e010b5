/**
 * The video element, made before the VideoPlayer chunk arrives. On a slow link the chunk takes
 * a round trip or more; a visitor whose session is known at start should not wait for it to
 * start the video's own requests (metadata, poster, captions). This module is eager and tiny:
 * main.tsx starts the element, the Player adopts that very element (a second one would ask the
 * server again: the media answers `Cache-Control: private, no-cache`).
 */
import { config } from '../../config';

/** What an error before the Player adopted the element said: the Player reports it then. */
const failedEarly = new WeakSet<HTMLVideoElement>();
let early: HTMLVideoElement | undefined;

/** The player's `<video>`, with its source and captions: the same markup whoever makes it. */
export function createPlayerVideo(): HTMLVideoElement {
  const video = document.createElement('video');
  video.className = 'player__video';
  video.controls = true;
  // The attribute itself: not every engine reflects the playsInline property.
  video.setAttribute('playsinline', '');
  video.preload = 'metadata';
  video.poster = config.posterUrl;
  video.setAttribute('aria-label', 'Video de la capacitación');
  // With <source>, a failed load is reported on the source, not on the video.
  const source = document.createElement('source');
  source.src = config.videoUrl;
  source.type = 'video/mp4';
  const track = document.createElement('track');
  track.kind = 'captions';
  track.src = config.captionsUrl;
  track.srclang = 'es';
  track.label = 'Español';
  track.default = true;
  video.append(source, track);
  return video;
}

/**
 * Starts the video's requests now, in a hidden element in the document (where it loads like
 * the Player's, and where media events reach document listeners). Once only.
 */
export function startVideoEarly(): void {
  if (early) return;
  const video = createPlayerVideo();
  const failed = () => failedEarly.add(video);
  video.addEventListener('error', failed);
  video.querySelector('source')?.addEventListener('error', failed);
  video.hidden = true;
  document.body.append(video);
  early = video;
}

/** The early element for the Player (once), shown, and whether it already failed to load. */
export function takeEarlyVideo(): { video: HTMLVideoElement; failed: boolean } | undefined {
  const video = early;
  if (!video) return undefined;
  early = undefined;
  video.hidden = false;
  return { video, failed: failedEarly.has(video) };
}
