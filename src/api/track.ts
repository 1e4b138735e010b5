import { parseWebVtt, type Cue } from '../../machines/webvtt';
import { timeoutSignal } from './timeout-signal';

/**
 * A WebVTT track (the captions, the chapters) fetched as text, for the transcript and the
 * chapters list. Every outcome is one of these results; nothing here throws or navigates.
 */
export type TrackResult =
  | { kind: 'cues'; cues: Cue[] }
  /** The server refused the session (signed out elsewhere, restarted). */
  | { kind: 'refused' }
  /** This video has no such track (204 from a published video without chapters, or 404). */
  | { kind: 'missing' }
  | { kind: 'failed' };

/** A few kilobytes; on a link too slow for that, the visitor gets the message and a retry. */
const TRACK_TIMEOUT_MS = 30_000;

export async function fetchTrack(url: string, signal?: AbortSignal): Promise<TrackResult> {
  try {
    const response = await fetch(url, {
      // The session cookie, also when the captions come from the API's host.
      credentials: 'include',
      signal: timeoutSignal(TRACK_TIMEOUT_MS, signal),
    });
    if (response.status === 401) return { kind: 'refused' };
    if (response.status === 204 || response.status === 404) return { kind: 'missing' };
    if (!response.ok) return { kind: 'failed' };
    const cues = parseWebVtt(await response.text());
    return cues ? { kind: 'cues', cues } : { kind: 'failed' };
  } catch {
    return { kind: 'failed' };
  }
}
