import { assign, setup } from 'xstate';
import {
  SESSION_KEY,
  SESSION_TIMEOUT_MS,
  VIDEO_KEY_KEY,
  newSession,
  parseSession,
  type Session,
  type SessionStorage,
  type VideoKey,
} from './session';

/**
 * The auth machine: the single source of truth for the visitor's session.
 *
 * It makes no network call. The login screen sends `submit`, calls the server only when the
 * machine accepted it (`snapshot.can(event)`), and reports the answer as one `signin.*` event.
 */

export type AuthError = 'wrongPassword' | 'network' | 'rateLimited';

export interface AuthContext {
  session: Session | null;
  /** The shared username of the submit in flight; kept to build the session on success. */
  username: string | null;
  error: AuthError | null;
  /** Seconds to wait, when the server limited the attempts. */
  retryAfterS: number | null;
}

export type AuthEvent =
  | { type: 'submit'; username: string; password: string }
  | { type: 'signin.succeeded'; empresa: string; nombres: string; videoKey?: VideoKey }
  | { type: 'signin.rejected' }
  | { type: 'signin.failed' }
  | { type: 'signin.rateLimited'; retryAfterS: number }
  | { type: 'logout' }
  /** The server refused the session (the video answered 401). */
  | { type: 'session.refused' }
  /** Another tab wrote or removed the stored session; `value` is the raw new value. */
  | { type: 'session.changedElsewhere'; value: string | null };

export interface AuthDeps {
  storage: SessionStorage;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Overrides the 72,000,000 ms inactivity timer. */
  sessionTimeoutMs?: number;
}

/** The event XState sends itself when the inactivity timer fires. */
export const SESSION_TIMEOUT_EVENT = 'xstate.after.SESSION_TIMEOUT.auth.loggedIn';

export function createAuthMachine({
  storage,
  now,
  sessionTimeoutMs = SESSION_TIMEOUT_MS,
}: AuthDeps) {
  const sessionFrom = (event: AuthEvent) =>
    event.type === 'session.changedElsewhere' ? parseSession(event.value, now()) : null;

  const toSubmitting = {
    guard: 'hasPassword',
    target: 'submitting',
    actions: 'startSubmit',
  } as const;
  const adoptOtherTabLogin = {
    guard: 'otherTabLoggedIn',
    target: 'loggedIn',
    actions: 'adoptOtherTabSession',
  } as const;

  return setup({
    types: {
      context: {} as AuthContext,
      events: {} as AuthEvent,
    },
    guards: {
      hasStoredSession: ({ context }) => context.session !== null,
      hasPassword: ({ event }) => event.type === 'submit' && event.password.length > 0,
      otherTabLoggedIn: ({ event }) => sessionFrom(event) !== null,
    },
    actions: {
      startSubmit: assign(({ event }) => ({
        username: event.type === 'submit' ? event.username : null,
        error: null,
        retryAfterS: null,
      })),
      createSession: assign(({ context, event }) =>
        event.type === 'signin.succeeded'
          ? {
              session: newSession(
                {
                  username: context.username ?? '',
                  empresa: event.empresa,
                  nombres: event.nombres,
                },
                now(),
              ),
              username: null,
            }
          : {},
      ),
      persistSession: ({ context, event }) => {
        storage.setItem(SESSION_KEY, JSON.stringify(context.session));
        // The video's key from the signin's answer lives and goes with the session.
        const videoKey = event.type === 'signin.succeeded' ? event.videoKey : undefined;
        if (videoKey) storage.setItem(VIDEO_KEY_KEY, JSON.stringify(videoKey));
        else storage.removeItem(VIDEO_KEY_KEY);
      },
      adoptOtherTabSession: assign(({ event }) => ({
        session: sessionFrom(event),
        error: null,
        retryAfterS: null,
      })),
      failWith: assign((_, params: { error: AuthError; retryAfterS?: number }) => ({
        error: params.error,
        retryAfterS: params.retryAfterS ?? null,
        username: null,
      })),
      forgetSession: assign({ session: null }),
      removeStoredSession: () => {
        storage.removeItem(SESSION_KEY);
        storage.removeItem(VIDEO_KEY_KEY);
      },
      /** Ends the session on the server too; the app provides it, tests may spy on it. */
      endServerSession: () => {},
    },
    delays: {
      SESSION_TIMEOUT: sessionTimeoutMs,
    },
  }).createMachine({
    id: 'auth',
    context: () => ({
      session: parseSession(storage.getItem(SESSION_KEY), now()),
      username: null,
      error: null,
      retryAfterS: null,
    }),
    initial: 'rehydrating',
    states: {
      rehydrating: {
        always: [{ guard: 'hasStoredSession', target: 'loggedIn' }, { target: 'loggedOut' }],
      },
      loggedOut: {
        entry: ['forgetSession', 'removeStoredSession'],
        on: {
          submit: toSubmitting,
          'session.changedElsewhere': adoptOtherTabLogin,
        },
      },
      submitting: {
        on: {
          'signin.succeeded': { target: 'loggedIn', actions: ['createSession', 'persistSession'] },
          'signin.rejected': {
            target: 'error',
            actions: { type: 'failWith', params: { error: 'wrongPassword' } },
          },
          'signin.failed': {
            target: 'error',
            actions: { type: 'failWith', params: { error: 'network' } },
          },
          'signin.rateLimited': {
            target: 'error',
            actions: {
              type: 'failWith',
              params: ({ event }) => ({ error: 'rateLimited', retryAfterS: event.retryAfterS }),
            },
          },
          'session.changedElsewhere': adoptOtherTabLogin,
        },
      },
      error: {
        on: {
          submit: toSubmitting,
          'session.changedElsewhere': adoptOtherTabLogin,
        },
      },
      loggedIn: {
        after: {
          SESSION_TIMEOUT: { target: 'expired', actions: 'endServerSession' },
        },
        on: {
          logout: { target: 'loggedOut', actions: 'endServerSession' },
          'session.refused': { target: 'expired' },
          'session.changedElsewhere': [
            // Another tab logged in again: take its session and restart the timer.
            { ...adoptOtherTabLogin, reenter: true },
            { target: 'loggedOut' },
          ],
        },
      },
      expired: {
        entry: ['forgetSession', 'removeStoredSession'],
        on: {
          submit: toSubmitting,
          'session.changedElsewhere': adoptOtherTabLogin,
        },
      },
    },
  });
}

export type AuthMachine = ReturnType<typeof createAuthMachine>;
