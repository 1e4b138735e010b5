import { createActorContext } from '@xstate/react';
import { useEffect } from 'react';
import { createActor } from 'xstate';
import { createAuthMachine, type AuthEvent, type AuthMachine } from '../../machines/auth-machine';
import { SESSION_KEY, memoryStorage, type SessionStorage } from '../../machines/session';
import type { SigninResult } from '../api/signin';
import { config } from '../config';
import type { EarlySignin } from '../screens/login/first-press';
import { endPendingSignout, endServerSession } from './server-session';
import { resilientStorage } from './storage';

/**
 * The auth machine as the app runs it: real storage, real clock, signout on the server (sent
 * again when the link returns if it could not leave: server-session.ts).
 */
export function createAppAuthMachine(storage: SessionStorage, now: () => number = Date.now) {
  return createAuthMachine({ storage, now, sessionTimeoutMs: config.sessionTimeoutMs }).provide({
    actions: { endServerSession: () => void endServerSession(storage) },
  });
}

/** The machine's event for a signin's result. */
export function signinEvent(result: SigninResult): AuthEvent {
  switch (result.kind) {
    case 'ok': {
      const { empresa, nombres, videoKey } = result;
      return { type: 'signin.succeeded', empresa, nombres, videoKey };
    }
    case 'wrong':
      return { type: 'signin.rejected' };
    case 'rateLimited':
      return { type: 'signin.rateLimited', retryAfterS: result.retryAfterS };
    case 'failed':
      return { type: 'signin.failed' };
  }
}

/**
 * A signin the boot script answered, and showed the video screen for, before the app came
 * (src/boot/boot.ts): the machine decides it as the login screen would (submit, then its
 * result) and stores the session, which the app's own actor then starts from, as a returning
 * visitor's. Nothing happens for a signin still out.
 */
export function settleEarlySignin(storage: SessionStorage, early: EarlySignin | undefined) {
  if (!early?.settled) return;
  const actor = createActor(createAppAuthMachine(storage)).start();
  actor.send({ type: 'submit', username: config.username, password: early.password });
  actor.send(signinEvent(early.settled));
  actor.stop();
}

/**
 * The one auth actor of the app. The default logic only gives the context its types: the app
 * always passes its own machine to the Provider (`logic`), built with the page's storage.
 */
export const AuthActor = createActorContext<AuthMachine>(createAppAuthMachine(memoryStorage()));

export const useIsLoggedIn = () => AuthActor.useSelector((state) => state.matches('loggedIn'));

/**
 * Another tab logged in or out: local storage fires `storage` in every other tab. The machine
 * decides what it means; this only forwards the new raw value (null when the key was removed
 * or the whole storage cleared).
 */
export function useCrossTabSession() {
  const actorRef = AuthActor.useActorRef();
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== SESSION_KEY && event.key !== null) return;
      actorRef.send({
        type: 'session.changedElsewhere',
        value: event.key === null ? null : event.newValue,
      });
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [actorRef]);
}

/**
 * A signout still owed to the server (made with no signal): sent whenever the link comes back,
 * while the page has no session of its own and no signin on its way (whose new cookie the
 * signout's answer would clear). At the page's start the boot script sends it (boot.ts).
 */
export function usePendingSignout() {
  const actorRef = AuthActor.useActorRef();
  useEffect(() => {
    const storage = resilientStorage();
    const onOnline = () => {
      const state = actorRef.getSnapshot();
      if (!state.matches('loggedIn') && !state.matches('submitting'))
        void endPendingSignout(storage);
    };
    window.addEventListener('online', onOnline);
    return () => window.removeEventListener('online', onOnline);
  }, [actorRef]);
}
