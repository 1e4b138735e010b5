/**
 * The page's reports once their code is here (page-reports.ts loads it): a view of one <video>
 * handed to the page's reporter (reporter.ts) with what the screen knows of it, and a download's
 * steps as events.
 */
import type { DownloadRecord } from '../offline/download-store';
import { readRecord } from '../offline/download-store';
import { readMediaInfo } from '../screens/video-player/media-support';
import type { VideoStart } from '../video-start/video-start';
import { pageReporter, type FieldEvent } from './reporter';

/**
 * `site`: the video screen, whose start (video-start.ts) knows the first frame's timing, and
 * which plays from the download when the link is gone (the service worker answers). `copy`: the
 * copy screen, all of it from the phone.
 */
export type ViewSource = 'site' | 'copy';

export type DownloadOutcome = Extract<FieldEvent, { type: 'download' }>['outcome'];

const NO_TIMING = { pressAt: null, firstFrameAt: null };

/** Views by element: a screen's effect run again on the same <video> goes on with its view. */
const watching = new WeakMap<HTMLVideoElement, () => void>();

/** Starts recording `video`'s view, once per element; the returned function ends it. */
export function watchView(
  video: HTMLVideoElement,
  source: ViewSource,
  start: Pick<VideoStart, 'timing'>,
): () => void {
  const known = watching.get(video);
  if (known) return known;
  const reporter = pageReporter();
  if (!reporter) return () => {};
  let copyStored = false;
  const lookForCopy = () =>
    void readRecord()
      .then((record) => (copyStored = !!record?.done))
      .catch(() => {});
  if (source === 'site') {
    lookForCopy();
    addEventListener('offline', lookForCopy);
  }
  const stop = reporter.watch(video, {
    timing: () => (source === 'site' ? start.timing(video) : NO_TIMING),
    fromCopy: () => source === 'copy' || (copyStored && !navigator.onLine),
    durationS: readMediaInfo()?.durationS ?? null,
  });
  const end = () => {
    removeEventListener('offline', lookForCopy);
    watching.delete(video);
    stop();
  };
  watching.set(video, end);
  return end;
}

/** `bytes`: the size announced at the start and at no room, else what was stored. */
export function reportDownload(
  outcome: DownloadOutcome,
  record: DownloadRecord,
  video: HTMLVideoElement | null,
): void {
  // The MP4 has no rendition of its own: its short side, as the player shows it.
  const side = record.height ?? (video ? Math.min(video.videoWidth, video.videoHeight) : 0);
  if (side < 10 || side > 9999) return;
  const bytes =
    outcome === 'started' || outcome === 'noRoom' ? record.totalBytes : record.storedBytes;
  pageReporter()?.event({
    type: 'download',
    outcome,
    rendition: `${side}p`,
    bytes: Math.round(bytes),
  });
}
