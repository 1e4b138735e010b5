import { useEffect, useState, type RefObject } from 'react';
import type { Cue } from '../../../machines/webvtt';
import { fetchTrack } from '../../api/track';
import { AuthActor } from '../../auth/auth-provider';

export type TrackState =
  | { status: 'loading' }
  /** At least one cue. */
  | { status: 'ready'; cues: Cue[] }
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
          ? { status: 'ready', cues: result.cues }
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
 * Shows `textTrack` and adds `cues` to it; returns how to take them out again. The cues go in a
 * task later: WebKit empties a track's cues when its mode leaves "disabled" (it starts loading
 * the src the element does not have).
 */
function fillTrack(textTrack: TextTrack, cues: Cue[]): () => void {
  if (textTrack.mode === 'disabled') textTrack.mode = 'showing';
  const added = cues.map((cue) => new VTTCue(cue.startS, cue.endS, cue.text));
  const timer = setTimeout(() => {
    for (const cue of added) textTrack.addCue(cue);
  }, 0);
  return () => {
    clearTimeout(timer);
    for (const cue of added) if (cue.track === textTrack) textTrack.removeCue(cue);
  };
}

/**
 * The captions: the cues the transcript fetched, added to the <track>'s own TextTrack, so that
 * the file crosses the link once (a src would fetch it again). Shown, as the track's `default`
 * asks: a track filled after the video's load is not chosen automatically.
 */
export function useTrackCues(trackRef: RefObject<HTMLTrackElement | null>, track: TrackState) {
  const cues = track.status === 'ready' ? track.cues : null;
  useEffect(() => {
    // jsdom has no TextTrack.
    const textTrack = trackRef.current?.track as TextTrack | undefined;
    if (cues && textTrack) return fillTrack(textTrack, cues);
  }, [trackRef, cues]);
}
