import type { ReactNode, Ref } from 'react';
import type { TrackState } from './use-track';

/** What a panel says while its track is not a list: loading, none published, or a failure. */
export interface PanelNotes {
  failed: string;
  missing: string;
}

/** One line for loading or for a track with nothing in it; the failure with its retry. */
function TrackNote({ state, notes }: { state: TrackState; notes: PanelNotes }) {
  if (state.status === 'loading') return <p className="panel__note">Cargando...</p>;
  if (state.status === 'ready') return null;
  if (state.status === 'missing') return <p className="panel__note">{notes.missing}</p>;
  return (
    <p className="panel__note panel__note--problem" role="alert">
      {notes.failed}{' '}
      <button className="button" type="button" onClick={state.retry}>
        Reintentar
      </button>
    </p>
  );
}

/**
 * The foldable box under the video that both Capítulos and Transcripción are: a title, maybe a
 * tool above the list (the search), and the list in a scroll box. `data-state` sizes the box
 * (panels.css): a list gets its fixed height, nothing to list gets one line.
 */
export function Panel({
  name,
  title,
  state,
  notes,
  tools,
  boxRef,
  children,
}: {
  /** The panel's class modifier and id stem: `chapters`, `transcript`. */
  name: string;
  title: string;
  state: TrackState;
  notes: PanelNotes;
  tools?: ReactNode;
  boxRef?: Ref<HTMLDivElement>;
  children: ReactNode;
}) {
  const titleId = `${name}-title`;
  return (
    <section className={`panel panel--${name}`} aria-labelledby={titleId} data-state={state.status}>
      <details className="panel__details" open>
        <summary className="panel__summary">
          <h2 id={titleId} className="panel__title">
            {title}
          </h2>
        </summary>
        {state.status !== 'missing' && tools}
        <div ref={boxRef} className={`panel__box panel__box--${name}`}>
          <TrackNote state={state} notes={notes} />
          {state.status === 'ready' && children}
        </div>
      </details>
    </section>
  );
}
