import { useEffect, type RefObject } from 'react';
import type { SessionStorage } from '../../../machines/session';
import { savePosition } from './resume-position';

/** timeupdate fires about four times a second; storage needs far fewer writes. */
const SAVE_EVERY_MS = 5_000;

/**
 * Remembers where the visitor stopped, per video, in this browser: saved now and then while
 * playing and at once on pause or when the page goes away, forgotten at the end or when under
 * 5 s. The start applies it (video-start.ts), where the source is set.
 */
export function useResumePosition(
  videoRef: RefObject<HTMLVideoElement | null>,
  videoUrl: string,
  storage: SessionStorage,
) {
  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let lastSaveMs = 0;

    const save = () => {
      lastSaveMs = Date.now();
      savePosition(storage, videoUrl, video.currentTime, video.ended);
    };
    const saveNowAndThen = () => {
      if (Date.now() - lastSaveMs >= SAVE_EVERY_MS) save();
    };
    const forget = () => savePosition(storage, videoUrl, 0, true);

    video.addEventListener('timeupdate', saveNowAndThen);
    video.addEventListener('pause', save);
    video.addEventListener('ended', forget);
    window.addEventListener('pagehide', save);
    return () => {
      video.removeEventListener('timeupdate', saveNowAndThen);
      video.removeEventListener('pause', save);
      video.removeEventListener('ended', forget);
      window.removeEventListener('pagehide', save);
      // Leaving the screen (logout, expiry) is one more place where the visitor stops.
      if (video.currentTime > 0) save();
    };
  }, [videoRef, videoUrl, storage]);
}
