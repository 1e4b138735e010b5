import { useCallback, useMemo } from 'react';
import { chapterAt } from '../../../machines/webvtt';
import { config } from '../../config';
import { CueLabel } from './cue-label';
import { seekAndPlay, usePlayingIndex, type VideoRef } from './use-player-video';
import { useTrack, type TrackState } from './use-track';

export const CHAPTERS_FAILED = 'No se pudieron cargar los capítulos.';
export const CHAPTERS_MISSING = 'Este video no tiene capítulos.';

/** Loading, no such track, or the failure and its retry: the box keeps its height whatever is in it. */
export function TrackNote({
  state,
  failed,
  missing,
}: {
  state: TrackState;
  failed: string;
  missing: string;
}) {
  if (state.status === 'loading') return <p className="panel__note">Cargando...</p>;
  if (state.status === 'ready') return null;
  if (state.status === 'missing') return <p className="panel__note">{missing}</p>;
  return (
    <p className="panel__note panel__note--problem" role="alert">
      {failed}{' '}
      <button className="button" type="button" onClick={state.retry}>
        Reintentar
      </button>
    </p>
  );
}

/**
 * "Capítulos": the video's chapters with their start times; the one playing is marked
 * (aria-current), and a click or Enter starts the video there.
 */
export function Chapters({ videoRef }: { videoRef: VideoRef }) {
  const track = useTrack(config.chaptersUrl);
  const chapters = useMemo(() => (track.status === 'ready' ? track.cues : []), [track]);
  const pick = useCallback((timeS: number) => chapterAt(chapters, timeS), [chapters]);
  const current = usePlayingIndex(videoRef, pick);

  return (
    <section className="panel panel--chapters" aria-labelledby="chapters-title">
      <details className="panel__details" open>
        <summary className="panel__summary">
          <h2 id="chapters-title" className="panel__title">
            Capítulos
          </h2>
        </summary>
        <div className="panel__box">
          <TrackNote state={track} failed={CHAPTERS_FAILED} missing={CHAPTERS_MISSING} />
          <ol className="chapters">
            {chapters.map((chapter, index) => (
              <li key={`${chapter.startS}-${index}`}>
                <button
                  type="button"
                  className="panel__item"
                  aria-current={index === current ? 'true' : undefined}
                  onClick={() => seekAndPlay(videoRef.current, chapter.startS)}
                >
                  <CueLabel cue={chapter} />
                </button>
              </li>
            ))}
          </ol>
        </div>
      </details>
    </section>
  );
}
