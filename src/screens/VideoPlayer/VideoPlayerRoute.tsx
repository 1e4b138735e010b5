import { Suspense, lazy, useState } from 'react';
import { config } from '../../config';
import { ChunkErrorBoundary } from './ChunkErrorBoundary';
import { loadVideoPlayerScreen, loadedVideoPlayerScreen, withTimeout } from './load';

// Once the chunk is here, no lazy wrapper: React would still suspend (and show the fallback for
// its 300 ms minimum) on the first render of every new lazy component.
const lazyScreen = (attempt: number) =>
  loadedVideoPlayerScreen()?.default ??
  lazy(() => withTimeout(loadVideoPlayerScreen(attempt), config.chunkTimeoutMs));

/**
 * The eager part of the video route: everything else is in the lazy chunk. React.lazy keeps a
 * failed load forever, so a retry makes a new lazy component (and a new boundary).
 */
export function VideoPlayerRoute() {
  const [{ attempt, Screen }, setLoad] = useState(() => ({ attempt: 0, Screen: lazyScreen(0) }));
  const retry = () =>
    setLoad((current) => ({
      attempt: current.attempt + 1,
      Screen: lazyScreen(current.attempt + 1),
    }));
  return (
    <ChunkErrorBoundary key={attempt} onRetry={retry}>
      <Suspense
        fallback={
          <p className="screen-message" role="status">
            Cargando el video...
          </p>
        }
      >
        <Screen />
      </Suspense>
    </ChunkErrorBoundary>
  );
}
