import { SimulatedClock, createActor, type Actor } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  SESSION_TIMEOUT_EVENT,
  createAuthMachine,
  type AuthMachine,
} from '../../machines/auth-machine';
import { SESSION_KEY, memoryStorage } from '../../machines/session';
import { SCENARIOS, SPEC_TIMEOUT_MS, allPlainPaths, type PlainStep } from '../model/model';
import { ERROR_AFTER, expectAfter, type Expected } from '../model/oracle';

describe('every generated path of the auth machine, run against a real actor', () => {
  for (const path of allPlainPaths()) {
    it(path.title, () => {
      const clock = new SimulatedClock();
      clock.set(path.nowMs);
      const storage = memoryStorage();
      if (path.seed !== null) storage.setItem(SESSION_KEY, path.seed);
      let actor: Actor<AuthMachine> | undefined;
      let expected: Expected | null = null;

      const run = (step: PlainStep) => {
        const { event } = step;
        if (event.type === 'xstate.init') {
          const machine = createAuthMachine({ storage, now: () => clock.now() });
          actor = createActor(machine, { clock }).start();
        } else if (event.type === SESSION_TIMEOUT_EVENT) {
          // One millisecond early nothing happens; on the dot the session expires.
          clock.increment(SPEC_TIMEOUT_MS - 1);
          expect(actor!.getSnapshot().value).toBe('loggedIn');
          clock.increment(1);
        } else if (event.type === 'session.changedElsewhere') {
          // Another tab writes local storage first; this tab hears of it afterwards.
          if (event.value === null) storage.removeItem(SESSION_KEY);
          else storage.setItem(SESSION_KEY, event.value);
          actor!.send(event);
        } else {
          actor!.send(event);
        }
      };

      for (const step of path.steps) {
        run(step);
        expected = expectAfter(expected, step.event, path);
        const snapshot = actor!.getSnapshot();

        // What the model predicted, and what the spec says, must both hold.
        expect(snapshot.value).toBe(step.state);
        expect(snapshot.context).toEqual(step.context);
        expect(snapshot.value).toBe(expected.state);
        const stored = storage.getItem(SESSION_KEY);
        expect(stored === null ? null : JSON.parse(stored)).toEqual(expected.stored);
        expect(snapshot.context.session).toEqual(expected.stored);
        if (step.event.type in ERROR_AFTER) {
          expect(snapshot.context.error).toBe(
            ERROR_AFTER[step.event.type as keyof typeof ERROR_AFTER],
          );
        }
      }
      actor!.stop();
    });
  }

  it('generates paths for every rehydration input', () => {
    const scenarios = new Set(allPlainPaths().map((path) => path.scenario));
    expect([...scenarios].sort()).toEqual(Object.keys(SCENARIOS).sort());
  });
});
