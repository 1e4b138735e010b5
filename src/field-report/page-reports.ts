/**
 * How the screens take part in the company's reports (docs/field-reports.md): made once per app,
 * null with reporting off. Small and in the app's entry, so that no screen's chunk carries report
 * code: the recorder's (page-recorder.ts) comes after the first frame, or with a download.
 */
import { createContext, useContext, useEffect } from 'react';
import { config } from '../config';
import type { DownloadRecord } from '../offline/download-store';
import type { VideoRef } from '../screens/video-player/use-player-video';
import type { VideoStart } from '../video-start/video-start';
import type { DownloadOutcome, ViewSource } from './page-recorder';

export interface PageReports {
  /** Records `video`'s view from its first frame; the returned function is the effect's cleanup. */
  watch(video: HTMLVideoElement, source: ViewSource): () => void;
  /** A download's step, with the <video> whose rendition it stores. */
  download(outcome: DownloadOutcome, record: DownloadRecord, video: HTMLVideoElement | null): void;
}

export function createPageReports(start: Pick<VideoStart, 'timing'>): PageReports | null {
  if (!config.reportsUrl) return null;
  // The chunk did not come (no signal, a new build): this goes unreported, the video plays on.
  const recorder = () => import('./page-recorder');
  return {
    watch(video, source) {
      let end: (() => void) | undefined;
      let gone = false;
      // What played before the recorder came is in the element's own `played` (view-recorder.ts).
      const attach = () =>
        void recorder()
          .then(({ watchView }) => {
            if (!gone) end = watchView(video, source, start);
          })
          .catch(() => {});
      if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) attach();
      else video.addEventListener('loadeddata', attach, { once: true });
      return () => {
        video.removeEventListener('loadeddata', attach);
        // React removed the element before this cleanup: the view is over. Otherwise the effect
        // runs again on the same <video> (StrictMode), and watchView goes on with its view.
        if (video.isConnected) return;
        gone = true;
        end?.();
      };
    },
    download(outcome, record, video) {
      void recorder()
        .then(({ reportDownload }) => reportDownload(outcome, record, video))
        .catch(() => {});
    },
  };
}

export const PageReportsContext = createContext<PageReports | null>(null);

export const usePageReports = () => useContext(PageReportsContext);

/** The view of the screen's <video>, while the screen is on the page. */
export function useViewReport(videoRef: VideoRef, source: ViewSource) {
  const reports = usePageReports();
  useEffect(() => {
    const video = videoRef.current;
    if (video && reports) return reports.watch(video, source);
  }, [videoRef, source, reports]);
}
