import { useEffect, useRef, useState, type RefObject } from 'react';
import { APP_WAIT_MS } from '../../boot/boot-config';

/** The screen's one <video>, which the Player renders and the panels follow and seek. */
export type VideoRef = RefObject<HTMLVideoElement | null>;

/** Seeks and plays; play() is refused without a source or by autoplay rules: nothing to add. */
export function seekAndPlay(video: HTMLVideoElement | null, timeS: number): void {
  if (!video) return;
  video.currentTime = timeS;
  video.play()?.catch(() => {});
}

/**
 * `pick(currentTime)` as the video plays and seeks: the current chapter or line. Null until the
 * video is there, on the server as in the first client render. Re-renders only when the pick
 * changes, not at every timeupdate.
 */
export function usePlayingIndex(
  videoRef: VideoRef,
  pick: (timeS: number) => number | null,
): number | null {
  const [index, setIndex] = useState<number | null>(null);
  const pickRef = useRef(pick);
  useEffect(() => {
    pickRef.current = pick;
    const video = videoRef.current;
    if (video) setIndex(pick(video.currentTime));
  }, [pick, videoRef]);

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    const update = () => setIndex(pickRef.current(video.currentTime));
    const events = ['timeupdate', 'seeking', 'seeked', 'loadedmetadata', 'emptied'];
    for (const event of events) video.addEventListener(event, update);
    return () => {
      for (const event of events) video.removeEventListener(event, update);
    };
  }, [videoRef]);

  return index;
}

/**
 * Whether the video is past its start: a first frame, a failure, or APP_WAIT_MS without either
 * (the bound the boot script gives the bundle). Until then the link is the first frame's; the
 * captions and chapters wait for this.
 */
export function useAfterFirstFrame(videoRef: VideoRef): boolean {
  const [after, setAfter] = useState(false);
  useEffect(() => {
    const video = videoRef.current;
    if (!video || video.error || video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
      setAfter(true);
      return;
    }
    const done = () => setAfter(true);
    const timer = setTimeout(done, APP_WAIT_MS);
    video.addEventListener('loadeddata', done);
    video.addEventListener('error', done);
    return () => {
      clearTimeout(timer);
      video.removeEventListener('loadeddata', done);
      video.removeEventListener('error', done);
    };
  }, [videoRef]);
  return after;
}
