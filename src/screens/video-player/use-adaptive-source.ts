import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { SessionStorage } from '../../../machines/session';
import { useHandoff } from '../../handoff-context';
import { readRecord } from '../../offline/download-store';
import type { AdaptivePlayer, AdaptiveState, Rendition } from '../../video-start/contract';
import { levelsFor, readChoice, saveChoice, type QualityChoice } from './quality';

export interface AdaptiveSource {
  renditions: Rendition[];
  /** The height of the rendition on screen, null before the first one. */
  playingHeight: number | null;
  choice: QualityChoice;
  /** Applies and remembers a change to the choice (one field or more). */
  choose: (change: Partial<QualityChoice>) => void;
}

/**
 * Starts the player's <video> (the hand-off's start), or adopts what the boot script started, and
 * gives the quality menu what hls.js plays and the visitor's choice. Null while there is no
 * adaptive video playing (the single MP4, native HLS, or hls.js gave up): no menu then.
 */
export function useAdaptiveSource(
  videoRef: RefObject<HTMLVideoElement | null>,
  storage: SessionStorage,
  /** A request refused with 401 (the session ended elsewhere): the Player checks and acts. */
  onRefused: () => void,
): AdaptiveSource | null {
  const start = useHandoff().video;
  const [player, setPlayer] = useState<AdaptivePlayer | null>(null);
  const [state, setState] = useState<AdaptiveState | null>(null);
  const [choice, setChoice] = useState(() => readChoice(storage));
  const onRefusedRef = useRef(onRefused);
  useEffect(() => {
    onRefusedRef.current = onRefused;
  });

  // A layout effect: the source is set in the task that puts the video on the page, before a
  // visitor can press play on a video without one (a later source would abort that play).
  useLayoutEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let live = true;
    let unsubscribe = () => {};
    void start.play(video).then((started) => {
      if (!live || !started) return;
      const update = () => {
        const next = started.state();
        setState(next);
        if (next.refused) onRefusedRef.current();
      };
      unsubscribe = started.subscribe(update);
      update();
      setPlayer(started);
    });
    return () => {
      live = false;
      unsubscribe();
      // Only a video that left the page stops (React removed it before this cleanup). An effect
      // run again on the same element (StrictMode, a remount) adopts the same start instead of
      // setting its source again, which would undo a play.
      if (!video.isConnected) start.stop(video);
    };
  }, [videoRef, start]);

  const list = state?.renditions;
  // The link drops: hls.js plays on from the stored download's rendition, if there is one (the
  // service worker answers it), else stops loading; back online, the visitor's choice again.
  useEffect(() => {
    if (!player || !list) return;
    let live = true;
    const offline = async () => {
      const record = await readRecord();
      const stored = record?.done && record.kind === 'hls' ? record.height : null;
      if (live && !navigator.onLine)
        player.offline(list.findIndex((rendition) => rendition.height === stored));
    };
    const online = () => player.online(levelsFor(choice, list));
    const onOffline = () => void offline();
    window.addEventListener('offline', onOffline);
    window.addEventListener('online', online);
    return () => {
      live = false;
      window.removeEventListener('offline', onOffline);
      window.removeEventListener('online', online);
    };
  }, [player, list, choice]);

  if (!player || !list) return null;
  return {
    renditions: list,
    playingHeight: state.playingHeight,
    choice,
    choose: (change) => {
      const next = { ...choice, ...change };
      setChoice(next);
      saveChoice(storage, next);
      player.apply(levelsFor(next, list));
    },
  };
}
