import { useSyncExternalStore } from 'react';

const subscribe = (onChange: () => void) => {
  window.addEventListener('resize', onChange);
  return () => window.removeEventListener('resize', onChange);
};
// One string, so that an unchanged size is an unchanged snapshot.
const windowSize = () => `${window.innerWidth}x${window.innerHeight}`;

/**
 * The full-window backdrop; the spec has it follow the window's size when it is resized. The
 * prerendered page has no size to give (its CSS covers the window until React measures it).
 */
export function Background() {
  const size = useSyncExternalStore(subscribe, windowSize, () => null);
  const [width, height] = size?.split('x').map(Number) ?? [];
  return (
    <div
      className="video-screen__background"
      aria-hidden="true"
      style={size === null ? undefined : { width, height }}
    />
  );
}
