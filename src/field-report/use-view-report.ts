/**
 * The video screen's and the downloaded copy's view, recorded while the screen is on the page
 * (reporter.ts). Renders nothing and costs nothing with reporting off.
 */
import { useEffect } from 'react';
import { useHandoff } from '../handoff-context';
import { readRecord } from '../offline/download-store';
import { readMediaInfo } from '../screens/video-player/media-support';
import type { VideoRef } from '../screens/video-player/use-player-video';
import { pageReporter } from './reporter';

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
    const reporter = pageReporter();
    if (!video || !reporter) return;
    let copyStored = false;
    const lookForCopy = () =>
      void readRecord()
        .then((record) => (copyStored = !!record?.done))
        .catch(() => {});
    if (source === 'site') {
      lookForCopy();
      addEventListener('offline', lookForCopy);
    }
    if (!watching.has(video))
      watching.set(
        video,
        reporter.watch(video, {
          timing: () => (source === 'site' ? start.timing(video) : NO_TIMING),
          fromCopy: () => source === 'copy' || (copyStored && !navigator.onLine),
          durationS: readMediaInfo()?.durationS ?? null,
        }),
      );
    return () => {
      removeEventListener('offline', lookForCopy);
      // React removed the element before this cleanup: the view is over.
      if (video.isConnected) return;
      watching.get(video)?.();
      watching.delete(video);
    };
  }, [videoRef, source, start]);
}
