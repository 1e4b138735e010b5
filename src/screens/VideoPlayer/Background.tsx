import { useEffect, useState } from 'react';

function useWindowSize() {
  const [size, setSize] = useState(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
  }));
  useEffect(() => {
    const onResize = () => setSize({ width: window.innerWidth, height: window.innerHeight });
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return size;
}

/** The full-window backdrop; the spec has it follow the window's size when it is resized. */
export function Background() {
  const { width, height } = useWindowSize();
  return (
    <div
      className="video-screen__background"
      data-testid="background"
      aria-hidden="true"
      style={{ width, height }}
    />
  );
}
