import { useId } from 'react';
import { useHydrated } from '../screens/use-hydrated';
import type { VideoRef } from '../screens/video-player/use-player-video';
import { megabytes } from './download-plan';
import { untilText } from './offline-copy';
import { useOfflineDownload } from './use-offline-download';
import { useNetworkWait } from './use-network-wait';
import { useOnline } from './use-online';

const mb = (bytes: number) => (bytes / 1e6).toLocaleString('es-AR', { maximumFractionDigits: 1 });

/**
 * "Descargar para ver sin conexión" on the video screen, and the download's progress and end.
 * Its box is in the prerendered markup with a fixed height, so that nothing moves when its
 * content arrives after the first frame.
 */
export function OfflineDownload({ wanted, videoRef }: { wanted: boolean; videoRef: VideoRef }) {
  const id = useId();
  const hydrated = useHydrated();
  const online = useOnline();
  const networkWait = useNetworkWait(videoRef);
  const { state, ended, choose, download, resume, remove } = useOfflineDownload(
    wanted && hydrated,
    videoRef,
  );

  let content = null;
  if (state.status === 'offer') {
    const { offer, choice } = state;
    content = (
      <>
        {offer.kind === 'hls' && (
          <>
            <label htmlFor={`${id}-rendition`}>Resolución para descargar</label>{' '}
            <select
              id={`${id}-rendition`}
              value={choice.height ?? ''}
              onChange={(event) => {
                const next = offer.choices.find((c) => c.height === Number(event.target.value));
                if (next) choose(next);
              }}
            >
              {[...offer.choices].reverse().map((c) => (
                <option key={c.dir} value={c.height ?? ''}>
                  {`${c.height}p (${megabytes(c.bytes)})`}
                </option>
              ))}
            </select>{' '}
          </>
        )}
        <button className="button" type="button" onClick={() => void download(choice)}>
          Descargar para ver sin conexión{' '}
          <span className="offline__size">({megabytes(choice.bytes)})</span>
        </button>
      </>
    );
  } else if (state.status === 'running') {
    const { storedBytes, totalBytes } = state.record;
    const percent = Math.min(99, Math.floor((storedBytes / Math.max(totalBytes, 1)) * 100));
    content = (
      <>
        <label htmlFor={`${id}-progress`}>Descargando para ver sin conexión</label>
        <progress id={`${id}-progress`} max={100} value={percent} />
        <span className="offline__numbers">
          {`${mb(storedBytes)} de ${mb(totalBytes)} MB (${percent} %)`}
        </span>{' '}
        {state.waiting && (
          <span role="status">Sin conexión: la descarga sigue cuando vuelva la señal.</span>
        )}{' '}
        <button className="button" type="button" onClick={() => void remove()}>
          Cancelar descarga
        </button>
      </>
    );
  } else if (state.status === 'done') {
    const { record, outdated } = state;
    content = (
      <>
        <strong role="status">Lista para ver sin conexión</strong>
        {` (${megabytes(record.storedBytes)}). `}
        {typeof record.until === 'number' && (
          <span>Disponible sin conexión hasta el {untilText(record.until)}. </span>
        )}
        {!online && <span>Sin conexión: se reproduce la copia guardada en este teléfono. </span>}
        {outdated && (
          <span>Hay una versión más nueva del video; la copia guardada es de la anterior. </span>
        )}
        <button className="button" type="button" onClick={() => void remove()}>
          {outdated ? 'Borrar la copia anterior' : 'Borrar descarga'}
        </button>
      </>
    );
  } else if (state.status === 'noRoom') {
    content = (
      <>
        <span role="alert">
          No hay espacio suficiente en este teléfono para la descarga ({megabytes(state.needBytes)}
          ). Libere espacio y vuelva a intentar.
        </span>{' '}
        {state.record && (
          <button className="button" type="button" onClick={() => resume(state.record!)}>
            Reintentar
          </button>
        )}
      </>
    );
  } else if (state.status === 'failed') {
    content = (
      <>
        <span role="alert">No se pudo descargar el video. </span>
        <button className="button" type="button" onClick={() => void remove()}>
          Empezar de nuevo
        </button>
      </>
    );
  }

  return (
    <section className="offline" aria-label="Ver sin conexión">
      {networkWait && (
        <p className="offline__wait" role="status">
          Sin conexión: el video sigue cuando vuelva la señal
        </p>
      )}
      {ended && (
        <p className="offline__wait" role="status">
          {ended}
        </p>
      )}
      {content}
    </section>
  );
}
