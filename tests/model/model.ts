/**
 * The test model: paths through the real auth machine, generated with @xstate/graph, once per
 * rehydration input. The machine level runs them here; `npm run test:paths` writes them as
 * plain JSON for the React app (tests/app) and the browser (e2e) to replay.
 */
import { TestModel, serializeSnapshot } from '@xstate/graph';
import { __unsafe_getAllOwnEventDescriptors, type SnapshotFrom } from 'xstate';
import {
  SESSION_TIMEOUT_EVENT,
  createAuthMachine,
  type AuthContext,
  type AuthEvent,
} from '../../machines/auth-machine';
import { memoryStorage, type Session } from '../../machines/session';

/** A fixed "now" (whole seconds) so that every path is the same on every run. */
const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 0);
const NOW_S = NOW_MS / 1000;

/** The spec's numbers (§4, §9), written here again so that a change in the code is noticed. */
export const SPEC_MAX_AGE_S = 7_200;
export const SPEC_TIMEOUT_MS = 72_000_000;

export const USERNAME = 'capacitacion';
export const EMPRESA = 'Agro Demo S.A.';
export const NOMBRES = 'Visitante Demo';
const RETRY_AFTER_S = 60;

const stored = (fields: Record<string, unknown>) =>
  JSON.stringify({
    loggedIn: true,
    username: USERNAME,
    timestamp: NOW_S,
    empresa: EMPRESA,
    nombres: NOMBRES,
    ...fields,
  });

/** What another tab writes when it logs in. */
const OTHER_TAB_SESSION: Session = {
  loggedIn: true,
  username: USERNAME,
  timestamp: NOW_S,
  empresa: EMPRESA,
  nombres: NOMBRES,
};

export type StateName = 'loggedOut' | 'submitting' | 'error' | 'loggedIn' | 'expired';

/** The rehydration inputs: what local storage holds when the app starts. */
export const SCENARIOS = {
  empty: { seed: null, initial: 'loggedOut' },
  // One second inside the 7,200 s limit, and exactly on it.
  fresh: { seed: stored({ timestamp: NOW_S - (SPEC_MAX_AGE_S - 1) }), initial: 'loggedIn' },
  stale: { seed: stored({ timestamp: NOW_S - SPEC_MAX_AGE_S }), initial: 'loggedOut' },
  malformed: { seed: '{"loggedIn":true,"username":', initial: 'loggedOut' },
  wrongType: { seed: stored({ timestamp: String(NOW_S) }), initial: 'loggedOut' },
  future: { seed: stored({ timestamp: NOW_S + 1 }), initial: 'loggedOut' },
  notLoggedIn: { seed: stored({ loggedIn: false }), initial: 'loggedOut' },
} as const satisfies Record<string, { seed: string | null; initial: StateName }>;

export type ScenarioName = keyof typeof SCENARIOS;

const EVENT_SAMPLES: AuthEvent[] = [
  { type: 'submit', username: USERNAME, password: '' },
  { type: 'submit', username: USERNAME, password: 'clave-de-prueba' },
  { type: 'signin.succeeded', empresa: EMPRESA, nombres: NOMBRES },
  { type: 'signin.rateLimited', retryAfterS: RETRY_AFTER_S },
  { type: 'session.changedElsewhere', value: JSON.stringify(OTHER_TAB_SESSION) },
  { type: 'session.changedElsewhere', value: null },
];

export type PathEvent =
  AuthEvent | { type: 'xstate.init' } | { type: typeof SESSION_TIMEOUT_EVENT };

export interface PlainStep {
  event: PathEvent;
  state: StateName;
  context: AuthContext;
}

export interface PlainPath {
  title: string;
  scenario: ScenarioName;
  nowMs: number;
  /** The raw `session` value in local storage before the app starts. */
  seed: string | null;
  steps: PlainStep[];
}

export function machineFor(scenario: ScenarioName) {
  const storage = memoryStorage();
  const { seed } = SCENARIOS[scenario];
  if (seed !== null) storage.setItem('session', seed);
  return createAuthMachine({ storage, now: () => NOW_MS });
}

type AuthSnapshot = SnapshotFrom<ReturnType<typeof createAuthMachine>>;

/**
 * Each vertex is a state reached by an event from a state, so the shortest paths to all
 * vertices take every transition, the guard-blocked ones and the self-loops included.
 */
function serializeTransition(
  snapshot: AuthSnapshot,
  event: AuthEvent | undefined,
  previous: AuthSnapshot | undefined,
) {
  const from = previous ? JSON.stringify(previous.value) : '';
  return `${serializeSnapshot(snapshot)} via ${JSON.stringify(event ?? null)} from ${from}`;
}

function eventsFor(snapshot: AuthSnapshot): AuthEvent[] {
  return __unsafe_getAllOwnEventDescriptors(snapshot).flatMap((type) => {
    const samples = EVENT_SAMPLES.filter((event) => event.type === type);
    // Own events with no sample carry no payload; the timer's event is one of them.
    return samples.length ? samples : [{ type } as AuthEvent];
  });
}

function generatePaths(scenario: ScenarioName) {
  const model = new TestModel(machineFor(scenario), {
    events: eventsFor,
    serializeState: serializeTransition,
  });
  return model.getShortestPaths();
}

const describeEvent = (event: PathEvent): string => {
  if (event.type === SESSION_TIMEOUT_EVENT) return 'timer fires';
  if (event.type === 'submit') return event.password ? 'submit(password)' : 'submit(empty)';
  if (event.type === 'session.changedElsewhere')
    return event.value ? 'other tab logs in' : 'other tab logs out';
  return event.type;
};

function toPlainPaths(scenario: ScenarioName): PlainPath[] {
  return generatePaths(scenario).map((path) => {
    const steps = path.steps.map(({ event, state }) => ({
      event: event as PathEvent,
      state: state.value as StateName,
      context: state.context,
    }));
    const route = steps
      .map(
        ({ event, state }) =>
          `${event.type === 'xstate.init' ? 'start' : describeEvent(event)} ⇒ ${state}`,
      )
      .join(' → ');
    return {
      title: `[${scenario}] ${route}`,
      scenario,
      nowMs: NOW_MS,
      seed: SCENARIOS[scenario].seed,
      steps,
    };
  });
}

export function allPlainPaths(): PlainPath[] {
  const paths = (Object.keys(SCENARIOS) as ScenarioName[]).flatMap(toPlainPaths);
  // Playwright needs unique titles; the index also makes a failing path easy to find.
  return paths.map((path, index) => ({ ...path, title: `#${index + 1} ${path.title}` }));
}
