import { useEffect, type RefObject } from 'react';

const SEEK_STEP_S = 10;

type IOSVideo = HTMLVideoElement & { webkitEnterFullscreen?: () => void };

const seekBy = (video: HTMLVideoElement, deltaS: number) => {
  const end = Number.isFinite(video.duration) ? video.duration : Infinity;
  video.currentTime = Math.min(end, Math.max(0, video.currentTime + deltaS));
};

const togglePlay = (video: HTMLVideoElement) => {
  // play() rejects when the browser refuses (autoplay rules, no source): nothing to add then.
  if (video.paused || video.ended) video.play()?.catch(() => {});
  else video.pause();
};

const toggleFullscreen = (video: IOSVideo) => {
  if (document.fullscreenElement) void document.exitFullscreen?.().catch(() => {});
  else if (video.requestFullscreen) void video.requestFullscreen().catch(() => {});
  else video.webkitEnterFullscreen?.(); // iPhone Safari: only the video itself goes full screen.
};

const toggleCaptions = (video: HTMLVideoElement) => {
  const tracks = Array.from(video.textTracks ?? []);
  const captions = tracks.find((track) => track.kind === 'captions' || track.kind === 'subtitles');
  if (captions) captions.mode = captions.mode === 'showing' ? 'hidden' : 'showing';
};

const ACTIONS: Record<string, (video: HTMLVideoElement) => void> = {
  ' ': togglePlay,
  k: togglePlay,
  j: (video) => seekBy(video, -SEEK_STEP_S),
  ArrowLeft: (video) => seekBy(video, -SEEK_STEP_S),
  l: (video) => seekBy(video, SEEK_STEP_S),
  ArrowRight: (video) => seekBy(video, SEEK_STEP_S),
  m: (video) => {
    video.muted = !video.muted;
  },
  f: toggleFullscreen,
  c: toggleCaptions,
};

/** Keys that belong to whatever has the focus: typing, pressing a button, following a link. */
const ownsKeys = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable ||
    target.closest('input, textarea, select, button, a[href], [contenteditable="true"]') !== null);

/**
 * The shortcuts of the big video sites, for the whole page except where a key already means
 * something. The browser's own handling on a focused video is replaced, not doubled.
 */
export function useKeyboardShortcuts(videoRef: RefObject<HTMLVideoElement | null>) {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const video = videoRef.current;
      if (!video || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey)
        return;
      if (ownsKeys(event.target)) return;
      const action = ACTIONS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
      if (!action) return;
      event.preventDefault();
      action(video);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [videoRef]);
}
