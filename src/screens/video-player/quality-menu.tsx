import { useId } from 'react';
import { DEFAULT_CHOICE, allowed, megabytesPer10Min } from './quality';
import type { AdaptiveSource } from './use-adaptive-source';

const LOADING: AdaptiveSource = {
  renditions: [],
  playingHeight: null,
  choice: DEFAULT_CHOICE,
  choose: () => {},
};

/**
 * The visitor's say over the adaptive video: automatic (the default) or one rendition, and a
 * data saver that keeps automatic quality at 240p or less. Each choice shows what ten minutes
 * cost, for visitors who pay by the megabyte. Native controls: keyboard and screen readers work.
 *
 * Always rendered, and shown only where hls.js plays (video-player.css, data-adaptive): until it
 * has the master (source null) it holds its place, disabled, so nothing moves when it arrives.
 */
export function QualityMenu({ source }: { source: AdaptiveSource | null }) {
  const id = useId();
  const { choice, playingHeight } = source ?? LOADING;
  // Highest first, as every player lists them.
  const list = [...(source ?? LOADING).renditions].sort((a, b) => b.height - a.height);
  const offered = allowed(choice, [...list].reverse());
  const value = choice.quality === 'auto' ? 'auto' : String(choice.quality);
  const disabled = !source;
  return (
    <div className="quality">
      <label htmlFor={`${id}-quality`}>Calidad</label>{' '}
      <select
        id={`${id}-quality`}
        value={value}
        disabled={disabled}
        onChange={(event) => {
          const next = event.target.value;
          source?.choose({ quality: next === 'auto' ? 'auto' : Number(next) });
        }}
      >
        <option value="auto">Automática</option>
        {list.map((rendition) => (
          <option
            key={rendition.index}
            value={rendition.height}
            disabled={!offered.includes(rendition)}
          >
            {`${rendition.height}p (≈ ${megabytesPer10Min(rendition.bitrate)} MB cada 10 min)`}
          </option>
        ))}
      </select>{' '}
      <label className="quality__saver">
        <input
          type="checkbox"
          checked={choice.dataSaver}
          disabled={disabled}
          onChange={(event) => source?.choose({ dataSaver: event.target.checked })}
        />{' '}
        Ahorro de datos
      </label>{' '}
      <span className="quality__playing">
        {playingHeight ? `Reproduciendo en ${playingHeight}p` : 'Cargando…'}
      </span>
    </div>
  );
}
