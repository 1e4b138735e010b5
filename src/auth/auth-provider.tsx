import { createActorContext } from '@xstate/react';
import { useEffect } from 'react';
import { createAuthMachine, type AuthMachine } from '../../machines/auth-machine';
import { SESSION_KEY, memoryStorage, type SessionStorage } from '../../machines/session';
import { config } from '../config';

/** Ends the server-side session too; the answer does not matter, so errors are ignored. */
function endServerSession() {
  // keepalive: the request must survive a logout that is followed at once by a tab close.
  fetch(`${config.apiUrl}/api/users/signout`, {
    method: 'POST',
    credentials: 'include',
    keepalive: true,
  }).catch(() => {});
}

/** The auth machine as the app runs it: real storage, real clock, signout on the server. */
export function createAppAuthMachine(storage: SessionStorage, now: () => number = Date.now) {
  return createAuthMachine({ storage, now, sessionTimeoutMs: config.sessionTimeoutMs }).provide({
    actions: { endServerSession },
  });
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
