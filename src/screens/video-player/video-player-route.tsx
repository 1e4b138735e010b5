import { Suspense, lazy, useState } from 'react';
import { useChunks, type AppChunks } from '../../chunks';
import { ErrorBoundary } from '../../error-boundary';

export const CHUNK_ERROR_MESSAGE =
  'No se pudo cargar el reproductor de video. Revise su conexión e intente nuevamente.';

// Once the chunk is here, no lazy wrapper: React would still suspend (and show the fallback for
// its 300 ms minimum) on the first render of every new lazy component.
const screenOf = (chunk: AppChunks['videoPlayer'], attempt: number) =>
  chunk.loaded()?.default ?? lazy(() => (attempt === 0 ? chunk.load() : chunk.retry()));

/**
 * The eager part of the video route: everything else is in the lazy chunk. React.lazy keeps a
 * failed load forever, so a retry makes a new lazy component (and a new boundary).
 */
export function VideoPlayerRoute() {
  const chunk = useChunks().videoPlayer;
  const [{ attempt, Screen }, setLoad] = useState(() => ({
    attempt: 0,
    Screen: screenOf(chunk, 0),
  }));
  const retry = () =>
    setLoad((current) => ({
      attempt: current.attempt + 1,
      Screen: screenOf(chunk, current.attempt + 1),
    }));
  return (
    <ErrorBoundary key={attempt} message={CHUNK_ERROR_MESSAGE} onRetry={retry}>
      <Suspense
        fallback={
          <p className="screen-message" role="status">
            Cargando el video...
          </p>
        }
      >
        <Screen />
      </Suspense>
    </ErrorBoundary>
  );
}
