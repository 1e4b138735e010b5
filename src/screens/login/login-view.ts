import type { SnapshotFrom } from 'xstate';
import type { AuthMachine } from '../../../machines/auth-machine';

/** Shown while the signin is out (the spec's words); the boot script shows it too (first-press.ts). */
export const SUBMITTING_MESSAGE = 'Cargando...';

/** What the login screen shows, derived from the machine; one small value for cheap renders. */
export type LoginView =
  | { kind: 'idle' }
  | { kind: 'submitting' }
  | { kind: 'expired' }
  | { kind: 'wrongPassword' }
  | { kind: 'network' }
  | { kind: 'rateLimited'; retryAfterS: number };

export function selectLoginView(state: SnapshotFrom<AuthMachine>): LoginView {
  // Signed in, the login stays until the video screen can replace it (routes.tsx): still loading.
  if (state.matches('submitting') || state.matches('loggedIn')) return { kind: 'submitting' };
  if (state.matches('expired')) return { kind: 'expired' };
  if (state.matches('error')) {
    const { error, retryAfterS } = state.context;
    if (error === 'rateLimited') return { kind: 'rateLimited', retryAfterS: retryAfterS ?? 0 };
    return { kind: error === 'network' ? 'network' : 'wrongPassword' };
  }
  return { kind: 'idle' };
}

export const sameLoginView = (a: LoginView, b: LoginView) =>
  a.kind === b.kind &&
  (a.kind !== 'rateLimited' || (b.kind === 'rateLimited' && a.retryAfterS === b.retryAfterS));
