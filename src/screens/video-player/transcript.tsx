import {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import { cueAt, searchCues } from '../../../machines/webvtt';
import { CueLabel } from './cue-label';
import { Panel } from './panel';
import { seekAndPlay, usePlayingIndex, type VideoRef } from './use-player-video';
import type { TrackState } from './use-track';

export const TRANSCRIPT_NOTES = {
  failed: 'No se pudo cargar la transcripción.',
  missing: 'Este video todavía no tiene transcripción.',
};

/** After the visitor scrolls the transcript, it leaves it where they put it for this long. */
const READING_PAUSE_MS = 6_000;

/** How the search's result is announced (and shown) once there is a query. */
function matchesLabel(count: number): string {
  if (count === 0) return 'Ninguna línea contiene esas palabras.';
  return count === 1 ? '1 línea encontrada.' : `${count} líneas encontradas.`;
}

/**
 * Keeps the current line in view inside the transcript's own scroll box, never the page's,
 * and not while the visitor is reading elsewhere in the box: a scroll they made pauses it.
 */
function useFollowCurrentLine(boxRef: RefObject<HTMLElement | null>, current: number | null) {
  const ours = useRef<number | null>(null);
  const readingUntil = useRef(0);

  useEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    const onScroll = () => {
      // Our own scroll reports the position we set; any other is the visitor's.
      if (ours.current !== null && Math.abs(box.scrollTop - ours.current) < 2) return;
      ours.current = null;
      readingUntil.current = Date.now() + READING_PAUSE_MS;
    };
    box.addEventListener('scroll', onScroll, { passive: true });
    return () => box.removeEventListener('scroll', onScroll);
  }, [boxRef]);

  useEffect(() => {
    const box = boxRef.current;
    const line = box?.querySelector<HTMLElement>('[aria-current="true"]');
    // A closed <details> has no layout; a paused follow waits for the next line.
    if (!box || !line || box.clientHeight === 0 || Date.now() < readingUntil.current) return;
    const top = line.offsetTop;
    const bottom = top + line.offsetHeight;
    if (top >= box.scrollTop && bottom <= box.scrollTop + box.clientHeight) return;
    // A third from the top: the lines to come stay visible below it.
    box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    ours.current = box.scrollTop;
  }, [boxRef, current]);
}

/**
 * The arrow keys, Home and End move between the lines, so that the list is one stop for Tab
 * rather than one per line (a long video has hundreds).
 */
function moveBetweenLines(event: KeyboardEvent<HTMLButtonElement>) {
  const buttons = [...(event.currentTarget.closest('ol')?.querySelectorAll('button') ?? [])];
  const at = buttons.indexOf(event.currentTarget);
  const moves: Record<string, number> = {
    ArrowDown: at + 1,
    ArrowUp: at - 1,
    Home: 0,
    End: buttons.length - 1,
  };
  const next = moves[event.key];
  if (at < 0 || next === undefined) return;
  event.preventDefault();
  buttons[Math.max(0, Math.min(buttons.length - 1, next))]?.focus();
}

/**
 * "Transcripción": the Spanish captions as text to read, the line playing highlighted and kept in
 * view, a click on a line plays from there, and a search that keeps only the lines holding
 * every word typed (accents and case aside). `track` is fetched apart from the video (the
 * screen's): it reads even when the video cannot load.
 */
export function Transcript({ videoRef, track }: { videoRef: VideoRef; track: TrackState }) {
  const boxRef = useRef<HTMLDivElement>(null);
  const [query, setQuery] = useState('');
  const cues = useMemo(() => (track.status === 'ready' ? track.cues : []), [track]);
  const shown = useMemo(() => searchCues(cues, query), [cues, query]);
  const pick = useCallback((timeS: number) => cueAt(cues, timeS), [cues]);
  const current = usePlayingIndex(videoRef, pick);
  useFollowCurrentLine(boxRef, current);
  const searching = query.trim() !== '';
  // Tab stays on the line the visitor moved to; otherwise it lands on the line playing, or on
  // the first line shown.
  const [focused, setFocused] = useState<number | null>(null);
  const tabStop =
    [focused, current].find((index) => index !== null && shown.includes(index)) ?? shown[0];

  return (
    <Panel
      name="transcript"
      title="Transcripción"
      state={track}
      notes={TRANSCRIPT_NOTES}
      boxRef={boxRef}
      tools={
        <div className="transcript__search">
          <label htmlFor="transcript-search">Buscar en la transcripción</label>
          <input
            id="transcript-search"
            className="transcript__input"
            type="search"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            disabled={track.status !== 'ready'}
            autoComplete="off"
            enterKeyHint="search"
          />
          <p className="transcript__count" role="status">
            {searching && track.status === 'ready' ? matchesLabel(shown.length) : null}
          </p>
        </div>
      }
    >
      <ol className="transcript">
        {shown.map((index) => {
          const cue = cues[index];
          if (!cue) return null;
          return (
            <li key={index}>
              <button
                type="button"
                className="panel__item"
                aria-current={index === current ? 'true' : undefined}
                tabIndex={index === tabStop ? 0 : -1}
                onKeyDown={moveBetweenLines}
                onFocus={() => setFocused(index)}
                onBlur={(event) => {
                  if (!event.currentTarget.closest('ol')?.contains(event.relatedTarget))
                    setFocused(null);
                }}
                onClick={() => seekAndPlay(videoRef.current, cue.startS)}
              >
                <CueLabel cue={cue} />
              </button>
            </li>
          );
        })}
      </ol>
    </Panel>
  );
}
