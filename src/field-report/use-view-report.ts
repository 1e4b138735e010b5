/**
 * The video screen's and the downloaded copy's view, recorded while the screen is on the page
 * (reporter.ts). Renders nothing and costs nothing with reporting off.
 */
import { useEffect } from 'react';
import { config } from '../config';
import { useHandoff } from '../handoff-context';
import { readRecord } from '../offline/download-store';
import { readMediaInfo } from '../screens/video-player/media-support';
import type { VideoRef } from '../screens/video-player/use-player-video';

/** Views by element: an effect run again on the same <video> (StrictMode) goes on with it. */
const watching = new WeakMap<HTMLVideoElement, () => void>();

const NO_TIMING = { pressAt: null, firstFrameAt: null };

/**
 * `site`: the video screen, whose start (video-start.ts) knows the first frame's timing, and
 * which plays from the download when the link is gone (the service worker answers). `copy`: the
 * copy screen, all of it from the phone.
 */
export function useViewReport(videoRef: VideoRef, source: 'site' | 'copy') {
  const start = useHandoff().video;
  useEffect(() => {
    const video = videoRef.current;
    if (!video || !config.reportsUrl) return;
    let copyStored = false;
    let gone = false;
    const lookForCopy = () =>
      void readRecord()
        .then((record) => (copyStored = !!record?.done))
        .catch(() => {});
    if (source === 'site') {
      lookForCopy();
      addEventListener('offline', lookForCopy);
    }
    // The recorder's code comes after the first frame, never beside it on the link; what played
    // before it came is in the element's own `played` (view-recorder.ts).
    const attach = () =>
      void import('./reporter')
        .then(({ pageReporter }) => {
          const reporter = pageReporter();
          if (gone || !reporter || watching.has(video)) return;
          watching.set(
            video,
            reporter.watch(video, {
              timing: () => (source === 'site' ? start.timing(video) : NO_TIMING),
              fromCopy: () => source === 'copy' || (copyStored && !navigator.onLine),
              durationS: readMediaInfo()?.durationS ?? null,
            }),
          );
        })
        // The chunk did not come (no signal, a new build): this view goes unreported.
        .catch(() => {});
    if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) attach();
    else video.addEventListener('loadeddata', attach, { once: true });
    return () => {
      video.removeEventListener('loadeddata', attach);
      removeEventListener('offline', lookForCopy);
      // React removed the element before this cleanup: the view is over.
      if (video.isConnected) return;
      gone = true;
      watching.get(video)?.();
      watching.delete(video);
    };
  }, [videoRef, source, start]);
}
