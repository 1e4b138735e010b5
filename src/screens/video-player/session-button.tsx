import { useEffect, useRef, useState, type RefObject } from 'react';
import { useHydrated } from '../use-hydrated';

const LOGOUT_LABEL = 'Cerrar sesion';

/** The button's width with its first label, plus `extraPx`, once the fonts are final. */
function useInitialWidth(ref: RefObject<HTMLElement | null>, extraPx: number): number | null {
  const [width, setWidth] = useState<number | null>(null);
  useEffect(() => {
    let live = true;
    // Measured before the fonts load, the width would be the fallback font's.
    const fontsReady: Promise<unknown> = document.fonts?.ready ?? Promise.resolve();
    void fontsReady.then(() => {
      if (live && ref.current) setWidth(ref.current.getBoundingClientRect().width + extraPx);
    });
    return () => {
      live = false;
    };
  }, [ref, extraPx]);
  return width;
}

interface Props {
  label: string;
  onLogout: () => void;
}

/**
 * "Hola {nombres} / {empresa}" that becomes "Cerrar sesion" while hovered or focused, and logs
 * out when pressed in that state. Its width is fixed to the first label's plus 10 px, so the
 * swap never moves anything. A touch screen has no hover: the first tap shows "Cerrar sesion",
 * the second logs out, so that a stray tap does not end the session.
 */
export function SessionButton({ label, onLogout }: Props) {
  const ref = useRef<HTMLButtonElement>(null);
  const hydrated = useHydrated();
  const width = useInitialWidth(ref, 10);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [tapped, setTapped] = useState(false);
  const touching = useRef(false);
  // Until measured, the label stays put: the measure must be of the first label.
  const armed = width !== null && (hovered || focused || tapped);

  return (
    <button
      ref={ref}
      className={width === null ? 'session-button' : 'session-button session-button--sized'}
      // Until React gives it its handlers, as the login's button.
      disabled={!hydrated}
      type="button"
      style={width === null ? undefined : { width: `${width}px` }}
      onPointerEnter={(event) => setHovered(event.pointerType !== 'touch')}
      onPointerLeave={() => setHovered(false)}
      onPointerDown={(event) => {
        touching.current = event.pointerType === 'touch';
      }}
      // A tap focuses the button on some phones: that must not count as "hovered".
      onFocus={() => setFocused(!touching.current)}
      onBlur={() => {
        setFocused(false);
        setTapped(false);
        touching.current = false;
      }}
      onClick={() => (armed ? onLogout() : setTapped(true))}
    >
      {armed ? LOGOUT_LABEL : label}
    </button>
  );
}
