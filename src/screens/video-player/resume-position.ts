import type { SessionStorage } from '../../../machines/session';

/** Under this, the visitor has barely started: start from the beginning next time. */
const MIN_RESUME_S = 5;

const positionKey = (videoUrl: string) => `videoPosition:${videoUrl}`;

/** Where the visitor stopped this video on this device, or null (pure: the boot reads it too). */
export function readPosition(storage: SessionStorage, videoUrl: string): number | null {
  const raw = storage.getItem(positionKey(videoUrl));
  const seconds = raw === null ? NaN : Number(raw);
  return Number.isFinite(seconds) && seconds >= MIN_RESUME_S ? seconds : null;
}

/** Saves `seconds`, or forgets the place when the visitor barely started or reached the end. */
export function savePosition(
  storage: SessionStorage,
  videoUrl: string,
  seconds: number,
  ended: boolean,
): void {
  if (ended || !(seconds >= MIN_RESUME_S)) storage.removeItem(positionKey(videoUrl));
  else storage.setItem(positionKey(videoUrl), seconds.toFixed(1));
}
