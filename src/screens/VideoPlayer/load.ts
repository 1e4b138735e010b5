import type { ComponentType } from 'react';

export interface VideoPlayerModule {
  default: ComponentType;
}

let first: Promise<VideoPlayerModule> | undefined;
let loaded: VideoPlayerModule | undefined;

const importScreen = () =>
  import('./VideoPlayerScreen').then((module) => {
    loaded = module;
    return module;
  });

/** The chunk, if it has arrived: a second visit to the route then renders at once. */
export const loadedVideoPlayerScreen = (): VideoPlayerModule | undefined => loaded;

/**
 * The VideoPlayer chunk. The first load is shared (a preload on submit or at start, then the
 * route); a retry after a failure calls `import()` again so that the browser asks the server
 * once more.
 */
export function loadVideoPlayerScreen(attempt = 0): Promise<VideoPlayerModule> {
  if (attempt > 0) return importScreen();
  first ??= importScreen().catch((error: unknown) => {
    first = undefined;
    throw error;
  });
  return first;
}

/** Starts the chunk's download without waiting for it; failures surface when it renders. */
export function preloadVideoPlayerScreen(): void {
  loadVideoPlayerScreen().catch(() => {});
}

export class ChunkTimeoutError extends Error {
  constructor(ms: number) {
    super(`The VideoPlayer chunk did not load within ${ms} ms`);
    this.name = 'ChunkTimeoutError';
  }
}

/** The spec's chunk timeout: a load still pending after `ms` counts as failed. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
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
