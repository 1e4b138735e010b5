import { useEffect, useMemo, useState } from 'react';
import type { Cue } from '../../../machines/webvtt';
import { fetchTrack } from '../../api/track';
import { AuthActor } from '../../auth/auth-provider';

export type TrackState =
  | { status: 'loading' }
  /** At least one cue. */
  | { status: 'ready'; cues: Cue[]; text: string }
  /** None published (204, 404), or a file without a cue (prepare-video's captions stub). */
  | { status: 'missing' }
  | { status: 'failed'; retry: () => void };

/**
 * The cues of a track, fetched apart from the video so that they arrive even when the video
 * cannot, once `wanted` (after the first frame: they must not share the link with it). Starts
 * as "loading" on the server and in the first client render alike. A refused session ends the
 * local one, as a refused video does (use-video-problem.ts).
 */
export function useTrack(url: string, wanted: boolean): TrackState {
  const actorRef = AuthActor.useActorRef();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<TrackState>({ status: 'loading' });

  useEffect(() => {
    if (!wanted) return;
    const controller = new AbortController();
    void fetchTrack(url, controller.signal).then((result) => {
      if (controller.signal.aborted) return;
      if (result.kind === 'refused') actorRef.send({ type: 'session.refused' });
      setState(
        result.kind === 'cues' && result.cues.length > 0
          ? { status: 'ready', cues: result.cues, text: result.text }
          : result.kind === 'cues' || result.kind === 'missing'
            ? { status: 'missing' }
            : {
                status: 'failed',
                retry: () => {
                  setState({ status: 'loading' });
                  setAttempt((n) => n + 1);
                },
              },
      );
    });
    return () => controller.abort();
  }, [url, wanted, attempt, actorRef]);

  return state;
}

/**
 * The captions track's source: the text the transcript fetched, as a blob URL, so that the file
 * crosses the link once. Undefined until then.
 */
export function useTrackSource(track: TrackState): string | undefined {
  const text = track.status === 'ready' ? track.text : null;
  const source = useMemo(
    () => (text === null ? undefined : URL.createObjectURL(new Blob([text], { type: 'text/vtt' }))),
    [text],
  );
  useEffect(
    () => () => {
      if (source) URL.revokeObjectURL(source);
    },
    [source],
  );
  return source;
}
