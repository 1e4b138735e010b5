/** A download's steps as report events: started, finished, cancelled, no room on the phone. */
import type { DownloadRecord } from '../offline/download-store';
import { pageReporter, type FieldEvent } from './reporter';

type Outcome = Extract<FieldEvent, { type: 'download' }>['outcome'];

/** `bytes`: the size announced at the start and at no room, else what was stored. */
export function reportDownload(
  outcome: Outcome,
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
