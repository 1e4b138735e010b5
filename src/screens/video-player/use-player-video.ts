import { useEffect, useRef, useState, type RefObject } from 'react';

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
