import { useCallback, useMemo } from 'react';
import { chapterAt } from '../../../machines/webvtt';
import { config } from '../../config';
import { CueLabel } from './cue-label';
import { Panel } from './panel';
import { seekAndPlay, usePlayingIndex, type VideoRef } from './use-player-video';
import { useTrack } from './use-track';

export const CHAPTERS_NOTES = {
  failed: 'No se pudieron cargar los capítulos.',
  missing: 'Este video todavía no tiene capítulos.',
};

/**
 * "Capítulos": the video's chapters with their start times; the one playing is marked
 * (aria-current), and a click or Enter starts the video there. Fetched once `wanted`.
 */
export function Chapters({ videoRef, wanted }: { videoRef: VideoRef; wanted: boolean }) {
  const track = useTrack(config.chaptersUrl, wanted);
  const chapters = useMemo(() => (track.status === 'ready' ? track.cues : []), [track]);
  const pick = useCallback((timeS: number) => chapterAt(chapters, timeS), [chapters]);
  const current = usePlayingIndex(videoRef, pick);

  return (
    <Panel name="chapters" title="Capítulos" state={track} notes={CHAPTERS_NOTES}>
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
    </Panel>
  );
}
