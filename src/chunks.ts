import { createContext, useContext, type ComponentType } from 'react';
import { config } from './config';

class ChunkTimeoutError extends Error {
  constructor(ms: number) {
    super(`A chunk did not load within ${ms} ms`);
    this.name = 'ChunkTimeoutError';
  }
}

/** The spec's chunk timeout: a load still pending after `ms` counts as failed. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkTimeoutError(ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * A lazy chunk of the app. `load` is shared (a preload and the route wait for the same import);
 * `retry` calls `import()` again, so that the browser asks the server once more; `loaded` is the
 * module once here, so that a later visit renders at once.
 */
export interface Chunk<M> {
  load(): Promise<M>;
  retry(): Promise<M>;
  loaded(): M | undefined;
}

function createChunk<M>(importer: () => Promise<M>, timeoutMs: number): Chunk<M> {
  let pending: Promise<M> | undefined;
  let module: M | undefined;
  const attempt = () => {
    pending = withTimeout(importer(), timeoutMs).then(
      (value) => (module = value),
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
  return { load: () => pending ?? attempt(), retry: attempt, loaded: () => module };
}

export interface AppChunks {
  videoPlayer: Chunk<{ default: ComponentType }>;
}

/** Made once per app (main.tsx; each test its own), never kept in a module. */
export const createAppChunks = (
  importVideoPlayer = () => import('./screens/video-player/video-player-screen'),
): AppChunks => ({ videoPlayer: createChunk(importVideoPlayer, config.chunkTimeoutMs) });

export const Chunks = createContext<AppChunks | null>(null);

export function useChunks(): AppChunks {
  const chunks = useContext(Chunks);
  if (!chunks) throw new Error('useChunks needs <App>');
  return chunks;
}

/** Starts a chunk's download without waiting for it; a failure shows when it renders. */
export const preload = (chunk: Chunk<unknown>) => void chunk.load().catch(() => {});
