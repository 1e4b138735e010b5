import { useEffect, useRef, useState, type RefObject } from 'react';
import type { SessionStorage } from '../../../machines/session';
import type { AdaptivePlayer, AdaptiveState } from './adaptive-player';
import {
  QUALITY_KEY,
  levelsFor,
  parseChoice,
  serializeChoice,
  type QualityChoice,
  type Rendition,
} from './quality';
import { readMediaInfo, startVideo } from './video-start';
import { stopVideo } from './video-stop';

export interface AdaptiveSource {
  renditions: Rendition[];
  /** The height of the rendition on screen, null before the first one. */
  playingHeight: number | null;
  choice: QualityChoice;
  choose: (quality: QualityChoice['quality']) => void;
  setDataSaver: (on: boolean) => void;
}

/**
 * Starts the player's <video> (video-start.ts), or adopts what the boot script started, and
 * gives the quality menu what hls.js plays and the visitor's choice. Null while there is no
 * adaptive video playing (the single MP4, native HLS, or hls.js gave up): no menu then.
 */
export function useAdaptiveSource(
  videoRef: RefObject<HTMLVideoElement | null>,
  storage: SessionStorage,
  /** A request refused with 401 (the session ended elsewhere): the Player checks and acts. */
  onRefused: () => void,
): AdaptiveSource | null {
  const [player, setPlayer] = useState<AdaptivePlayer | null>(null);
  const [state, setState] = useState<AdaptiveState | null>(null);
  const [choice, setChoice] = useState(() => parseChoice(storage.getItem(QUALITY_KEY)));
  const onRefusedRef = useRef(onRefused);
  useEffect(() => {
    onRefusedRef.current = onRefused;
  });

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let live = true;
    let unsubscribe = () => {};
    void startVideo(video, {
      info: readMediaInfo(),
      storage,
      loadAdaptive: () => import('./adaptive-player'),
    }).then((started) => {
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
      stopVideo(video);
    };
  }, [videoRef, storage]);

  const list = state?.renditions;
  if (!player || !list) return null;
  const apply = (next: QualityChoice) => {
    setChoice(next);
    storage.setItem(QUALITY_KEY, serializeChoice(next));
    player.apply(levelsFor(next, list));
  };
  return {
    renditions: list,
    playingHeight: state.playingHeight,
    choice,
    choose: (quality) => apply({ ...choice, quality }),
    setDataSaver: (on) => apply({ ...choice, dataSaver: on }),
  };
}
