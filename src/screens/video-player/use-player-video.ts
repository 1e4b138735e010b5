import { useEffect, useRef, useState, type RefObject } from 'react';

/**
 * The Player's <video>, found from any element of the screen. The Player does not render it
 * (it adopts the one index.html started, src/boot/videoShell.ts), so there is no ref to pass;
 * its layout effect has put it in the page before any passive effect here runs.
 */
const findPlayerVideo = (from: Element | null): HTMLVideoElement | null =>
  from?.closest('.video-main')?.querySelector<HTMLVideoElement>('video.player__video') ?? null;

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
  anchorRef: RefObject<Element | null>,
  pick: (timeS: number) => number | null,
): [index: number | null, video: () => HTMLVideoElement | null] {
  const [index, setIndex] = useState<number | null>(null);
  const pickRef = useRef(pick);
  useEffect(() => {
    pickRef.current = pick;
    const video = findPlayerVideo(anchorRef.current);
    if (video) setIndex(pick(video.currentTime));
  }, [pick, anchorRef]);

  useEffect(() => {
    const video = findPlayerVideo(anchorRef.current);
    if (!video) return;
    const update = () => setIndex(pickRef.current(video.currentTime));
    const events = ['timeupdate', 'seeking', 'seeked', 'loadedmetadata', 'emptied'];
    for (const event of events) video.addEventListener(event, update);
    return () => {
      for (const event of events) video.removeEventListener(event, update);
    };
  }, [anchorRef]);

  return [index, () => findPlayerVideo(anchorRef.current)];
}
