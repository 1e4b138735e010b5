/**
 * What the spec says each event must do, written down independently of the machine, so that a
 * change to the machine cannot also change what the tests expect. Every level (machine, app,
 * browser) can ask it for the state and stored session a step must end in.
 */
import { SESSION_TIMEOUT_EVENT } from '../../machines/auth-machine';
import type { Session } from '../../machines/session';
import {
  SCENARIOS,
  SPEC_MAX_AGE_S,
  USERNAME,
  type PathEvent,
  type PlainPath,
  type StateName,
} from './model';

export interface Expected {
  state: StateName;
  /** The session local storage must hold afterwards; null means the key is absent. */
  stored: Session | null;
}

const isFresh = (value: string | null, nowMs: number): Session | null => {
  if (value === null) return null;
  const session = JSON.parse(value) as Session;
  const age = nowMs / 1000 - session.timestamp;
  return age >= 0 && age < SPEC_MAX_AGE_S ? session : null;
};

/** The expected outcome of `event`, given the outcome of the step before it. */
export function expectAfter(
  previous: Expected | null,
  event: PathEvent,
  path: Pick<PlainPath, 'scenario' | 'nowMs'>,
): Expected {
  const seed = SCENARIOS[path.scenario].seed;
  switch (event.type) {
    case 'xstate.init':
      return SCENARIOS[path.scenario].initial === 'loggedIn'
        ? { state: 'loggedIn', stored: JSON.parse(seed ?? 'null') as Session }
        : { state: 'loggedOut', stored: null };
    case 'submit':
      // An empty password does nothing at all.
      if (event.password === '') return previous!;
      return previous!.state === 'submitting' ? previous! : { state: 'submitting', stored: null };
    case 'signin.succeeded':
      return {
        state: 'loggedIn',
        stored: {
          loggedIn: true,
          username: USERNAME,
          timestamp: Math.floor(path.nowMs / 1000),
          empresa: event.empresa,
          nombres: event.nombres,
        },
      };
    case 'signin.rejected':
    case 'signin.failed':
    case 'signin.rateLimited':
      return { state: 'error', stored: null };
    case 'logout':
      return { state: 'loggedOut', stored: null };
    case 'session.refused':
    case SESSION_TIMEOUT_EVENT:
      return { state: 'expired', stored: null };
    case 'session.changedElsewhere': {
      const session = isFresh(event.value, path.nowMs);
      if (session) return { state: 'loggedIn', stored: session };
      return previous!.state === 'loggedIn' ? { state: 'loggedOut', stored: null } : previous!;
    }
  }
}

/** The error a login screen shows after each failing event. */
export const ERROR_AFTER = {
  'signin.rejected': 'wrongPassword',
  'signin.failed': 'network',
  'signin.rateLimited': 'rateLimited',
} as const;
