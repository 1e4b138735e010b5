import { createContext, useContext } from 'react';
import type { Handoff } from './boot/handoff';

/** The boot's hand-off (src/boot/handoff.ts), for the screens that take part in the start. */
export const HandoffContext = createContext<Handoff | null>(null);

export function useHandoff(): Handoff {
  const handoff = useContext(HandoffContext);
  if (!handoff) throw new Error('useHandoff needs <App>');
  return handoff;
}
