import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/**
 * False while React adopts server-made (index.html) markup, true once the page is live. The
 * static markup must render the same as React's first render, so anything that only works with
 * JavaScript is switched on by this, not by an effect that would flash.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
