import type Hls from 'hls.js/light';
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { SessionStorage } from '../../../machines/session';
import {
  ADAPTIVE_KEY,
  MASTER_URL,
  QUALITY_KEY,
  hasMediaSource,
  hlsConfig,
  levelsFor,
  loadHls,
  parseChoice,
  playsHlsNatively,
  readEstimate,
  renditions,
  saveEstimate,
  serializeChoice,
  type QualityChoice,
  type Rendition,
} from './adaptive';

export interface AdaptiveSource {
  renditions: Rendition[];
  /** The height of the rendition on screen, null before the first one. */
  playingHeight: number | null;
  choice: QualityChoice;
  choose: (quality: QualityChoice['quality']) => void;
  setDataSaver: (on: boolean) => void;
}

/**
 * Plays the published HLS ladder in the player's <video> when the server has one (MEDIA_DIR),
 * with hls.js where there is Media Source and natively only where there is none; otherwise
 * leaves the <video>'s MP4 alone. hls.js does all the adaptive work (no ABR here); this hook
 * only applies the visitor's choice and reports what plays. Null until hls.js plays (and for
 * ever with native HLS or the single MP4): no quality menu then.
 *
 * When anything fails for good (the master, the network), hls.js lets go of the <video>, which
 * goes back to its MP4 source. A request refused with 401 (signout elsewhere) is reported at
 * once through `onRefused`.
 */
export function useAdaptiveSource(
  videoRef: RefObject<HTMLVideoElement | null>,
  storage: SessionStorage,
  /** A request refused with 401 (the session ended elsewhere): the Player checks and acts. */
  onRefused: () => void,
): AdaptiveSource | null {
  const hlsRef = useRef<Hls | null>(null);
  const [list, setList] = useState<Rendition[] | null>(null);
  const [playingHeight, setPlayingHeight] = useState<number | null>(null);
  const [choice, setChoice] = useState(() => parseChoice(storage.getItem(QUALITY_KEY)));
  const choiceRef = useRef(choice);
  const onRefusedRef = useRef(onRefused);
  useEffect(() => {
    onRefusedRef.current = onRefused;
  });

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let stopped = false;

    if (playsHlsNatively(video)) {
      // Old iPhones: the master only if the server has one (204: only the MP4).
      void fetch(MASTER_URL, { method: 'HEAD', credentials: 'include' })
        .then((response) => {
          if (stopped || response.status !== 200) return;
          const position = video.currentTime;
          video.src = MASTER_URL;
          if (position > 0) video.currentTime = position;
        })
        .catch(() => {});
      return () => {
        stopped = true;
      };
    }
    if (!hasMediaSource()) return;

    let hls: Hls | undefined;
    let mp4Source: HTMLSourceElement | null = null;
    let wasPlaying = false;
    let startAt = 0;
    const letGo = () => {
      if (hls) {
        saveEstimate(storage, hls.bandwidthEstimate);
        hls.destroy();
        hls = undefined;
      }
      // Back to the MP4.
      if (mp4Source && !mp4Source.isConnected) {
        video.prepend(mp4Source);
        video.load();
      }
    };
    // hls.js only where the server has adaptive video: asked for at once when this device saw
    // it last time, else after the master's answer (the single-MP4 site never loads it).
    const early = storage.getItem(ADAPTIVE_KEY) === '1' ? loadHls() : undefined;
    early?.catch(() => {});
    fetch(MASTER_URL, { method: 'HEAD', credentials: 'include' })
      .then((response) => {
        const adaptive = response.status === 200;
        if (adaptive) storage.setItem(ADAPTIVE_KEY, '1');
        else storage.removeItem(ADAPTIVE_KEY);
        if (!adaptive || stopped) return undefined;
        // The MP4 would share the link with hls.js and be replaced anyway: let it go now and
        // keep its <source> for a fall-back.
        wasPlaying = !video.paused;
        startAt = video.currentTime;
        mp4Source = video.querySelector('source');
        if (mp4Source) {
          mp4Source.remove();
          video.load();
        }
        return early ?? loadHls();
      })
      .then((module) => {
        if (!module) return;
        const { default: HlsClass, Events } = module;
        if (stopped) return;
        if (!HlsClass.isSupported()) return letGo();
        const instance = new HlsClass(hlsConfig(readEstimate(storage)));
        hls = instance;
        instance.on(Events.MANIFEST_PARSED, () => {
          const list = renditions(instance);
          const { level, cap } = levelsFor(choiceRef.current, list);
          instance.autoLevelCapping = cap;
          if (level !== -1) {
            instance.startLevel = level;
            instance.loadLevel = level;
          }
          // The MP4 may have been playing (the visitor was quick): go on from there.
          const position = startAt || video.currentTime;
          const playing = wasPlaying || !video.paused;
          instance.attachMedia(video);
          instance.startLoad(position > 0 ? position : -1);
          if (playing) video.play().catch(() => {});
          hlsRef.current = instance;
          setList(list);
        });
        instance.on(Events.LEVEL_SWITCHED, (_event, { level }) => {
          const rendition = renditions(instance)[level];
          setPlayingHeight(rendition?.height ?? null);
          saveEstimate(storage, instance.bandwidthEstimate);
        });
        instance.on(Events.ERROR, (_event, data) => {
          // An empty master (204) is the single-MP4 server. Anything fatal: back to the MP4.
          // A 401 is the session ended elsewhere: hls.js would try the other renditions first;
          // the MP4's own refusal takes the visitor to the login at once.
          if (!data.fatal && data.response?.code !== 401) return;
          hlsRef.current = null;
          // Not inside hls.js's own callback: destroying it there can throw half-way. The MP4
          // may then play from the browser's memory without asking the server: say so.
          setTimeout(() => {
            letGo();
            if (data.response?.code === 401) onRefusedRef.current();
          }, 0);
          setList(null);
          setPlayingHeight(null);
        });
        instance.loadSource(MASTER_URL);
      })
      // No answer, or the chunk did not arrive: the MP4 plays.
      .catch(letGo);

    return () => {
      stopped = true;
      letGo();
      hlsRef.current = null;
    };
  }, [videoRef, storage]);

  const apply = (next: QualityChoice) => {
    choiceRef.current = next;
    setChoice(next);
    storage.setItem(QUALITY_KEY, serializeChoice(next));
    const hls = hlsRef.current;
    if (!hls || !list) return;
    const { level, cap } = levelsFor(next, list);
    hls.autoLevelCapping = cap;
    // A chosen rendition replaces what is buffered at once; back to automatic, hls.js moves at
    // the next segment.
    if (level === -1) hls.nextLevel = -1;
    else hls.currentLevel = level;
  };

  if (!list) return null;
  return {
    renditions: list,
    playingHeight,
    choice,
    choose: (quality) => apply({ ...choice, quality }),
    setDataSaver: (on) => apply({ ...choice, dataSaver: on }),
  };
}
