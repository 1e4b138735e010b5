import { SimulatedClock, createActor } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { createAuthMachine, type AuthEvent } from '../../machines/auth-machine';
import { SESSION_KEY, VIDEO_KEY_KEY, memoryStorage } from '../../machines/session';
import { SPEC_TIMEOUT_MS as SESSION_TIMEOUT_MS } from '../model/model';

const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 0);
const submit = (password: string): AuthEvent => ({
  type: 'submit',
  username: 'capacitacion',
  password,
});
const succeeded: AuthEvent = { type: 'signin.succeeded', empresa: 'Agro', nombres: 'Ana' };

function start(options: { seed?: string; sessionTimeoutMs?: number } = {}) {
  const clock = new SimulatedClock();
  clock.set(NOW_MS);
  const storage = memoryStorage(options.seed ? { [SESSION_KEY]: options.seed } : {});
  const endServerSession = vi.fn();
  const machine = createAuthMachine({
    storage,
    now: () => clock.now(),
    sessionTimeoutMs: options.sessionTimeoutMs,
  }).provide({ actions: { endServerSession } });
  const actor = createActor(machine, { clock }).start();
  return { actor, clock, storage, endServerSession };
}

function loggedIn(options: { sessionTimeoutMs?: number } = {}) {
  const started = start(options);
  started.actor.send(submit('secreto'));
  started.actor.send(succeeded);
  return started;
}

describe('the auth machine, for what the generated paths do not show', () => {
  it('ignores an empty password in every state that accepts a submit', () => {
    for (const reach of [
      () => start(),
      () => {
        const s = start();
        s.actor.send(submit('x'));
        s.actor.send({ type: 'signin.rejected' });
        return s;
      },
      () => {
        const s = loggedIn();
        s.actor.send({ type: 'session.refused' });
        return s;
      },
    ]) {
      const { actor } = reach();
      const before = actor.getSnapshot();
      expect(before.can(submit(''))).toBe(false);
      actor.send(submit(''));
      expect(actor.getSnapshot().value).toBe(before.value);
      expect(actor.getSnapshot().context).toEqual(before.context);
    }
  });

  it('lets the visitor try again after a wrong password and after an expiry', () => {
    const afterError = start();
    afterError.actor.send(submit('x'));
    afterError.actor.send({ type: 'signin.rejected' });
    afterError.actor.send(submit('y'));
    expect(afterError.actor.getSnapshot().value).toBe('submitting');

    const afterExpiry = loggedIn();
    afterExpiry.clock.increment(SESSION_TIMEOUT_MS);
    afterExpiry.actor.send(submit('y'));
    afterExpiry.actor.send(succeeded);
    expect(afterExpiry.actor.getSnapshot().value).toBe('loggedIn');
  });

  it('lets a login in another tab in from every logged-out state', () => {
    const other = (nowMs: number) =>
      JSON.stringify({
        loggedIn: true,
        username: 'capacitacion',
        timestamp: Math.floor(nowMs / 1000),
        empresa: 'Agro',
        nombres: 'Ana',
      });
    const reach = {
      loggedOut: () => start(),
      submitting: () => {
        const s = start();
        s.actor.send(submit('x'));
        return s;
      },
      error: () => {
        const s = start();
        s.actor.send(submit('x'));
        s.actor.send({ type: 'signin.failed' });
        return s;
      },
      expired: () => {
        const s = loggedIn();
        s.actor.send({ type: 'session.refused' });
        return s;
      },
    };
    for (const [state, make] of Object.entries(reach)) {
      const { actor, clock } = make();
      expect(actor.getSnapshot().value).toBe(state);
      actor.send({ type: 'session.changedElsewhere', value: other(clock.now()) });
      expect(actor.getSnapshot().value, `from ${state}`).toBe('loggedIn');
    }
  });

  it('accepts no second submit while the first is in flight', () => {
    const { actor } = start();
    actor.send(submit('x'));
    expect(actor.getSnapshot().can(submit('x'))).toBe(false);
  });

  it('expires exactly 72,000,000 ms after login by default', () => {
    const { actor, clock, storage, endServerSession } = loggedIn();
    clock.increment(SESSION_TIMEOUT_MS - 1);
    expect(actor.getSnapshot().value).toBe('loggedIn');
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('expired');
    expect(storage.getItem(SESSION_KEY)).toBeNull();
    expect(endServerSession).toHaveBeenCalledTimes(1);
  });

  it('takes another timeout from its dependencies or from provide()', () => {
    const { actor, clock } = loggedIn({ sessionTimeoutMs: 1_000 });
    clock.increment(1_000);
    expect(actor.getSnapshot().value).toBe('expired');

    const clock2 = new SimulatedClock();
    const machine = createAuthMachine({ storage: memoryStorage(), now: () => 0 }).provide({
      delays: { SESSION_TIMEOUT: 5 },
    });
    const actor2 = createActor(machine, { clock: clock2 }).start();
    actor2.send(submit('x'));
    actor2.send(succeeded);
    clock2.increment(5);
    expect(actor2.getSnapshot().value).toBe('expired');
  });

  it('restarts the timer when a rehydrated session is found at start', () => {
    const seed = JSON.stringify({
      loggedIn: true,
      username: 'capacitacion',
      timestamp: NOW_MS / 1000 - 7_000,
      empresa: 'Agro',
      nombres: 'Ana',
    });
    const { actor, clock } = start({ seed });
    expect(actor.getSnapshot().value).toBe('loggedIn');
    clock.increment(SESSION_TIMEOUT_MS - 1);
    expect(actor.getSnapshot().value).toBe('loggedIn');
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('expired');
  });

  it('restarts the timer when another tab logs in again', () => {
    const { actor, clock } = loggedIn();
    clock.increment(SESSION_TIMEOUT_MS / 2);
    const other = JSON.stringify({
      loggedIn: true,
      username: 'capacitacion',
      timestamp: Math.floor(clock.now() / 1000),
      empresa: 'Otra',
      nombres: 'Eva',
    });
    actor.send({ type: 'session.changedElsewhere', value: other });
    expect(actor.getSnapshot().context.session?.nombres).toBe('Eva');
    clock.increment(SESSION_TIMEOUT_MS - 1);
    expect(actor.getSnapshot().value).toBe('loggedIn');
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('expired');
  });

  it('cancels the timer on logout', () => {
    const { actor, clock, endServerSession } = loggedIn();
    actor.send({ type: 'logout' });
    expect(endServerSession).toHaveBeenCalledTimes(1);
    clock.increment(SESSION_TIMEOUT_MS * 2);
    expect(actor.getSnapshot().value).toBe('loggedOut');
  });

  it('does not call the server back when the server itself refused the session', () => {
    const { actor, storage, endServerSession } = loggedIn();
    actor.send({ type: 'session.refused' });
    expect(actor.getSnapshot().value).toBe('expired');
    expect(storage.getItem(SESSION_KEY)).toBeNull();
    expect(endServerSession).not.toHaveBeenCalled();
  });

  it('treats a stale or broken session written by another tab as a logout', () => {
    const { actor } = loggedIn();
    actor.send({ type: 'session.changedElsewhere', value: '{"loggedIn":true' });
    expect(actor.getSnapshot().value).toBe('loggedOut');
  });

  it('keeps the wait the server asked for, and forgets it on the next submit', () => {
    const { actor } = start();
    actor.send(submit('x'));
    actor.send({ type: 'signin.rateLimited', retryAfterS: 42 });
    expect(actor.getSnapshot().context).toMatchObject({ error: 'rateLimited', retryAfterS: 42 });
    actor.send(submit('x'));
    expect(actor.getSnapshot().context).toMatchObject({ error: null, retryAfterS: null });
  });

  it('never keeps the password, and holds only plain data in its context', () => {
    const { actor } = start();
    actor.send(submit('muy-secreta'));
    const { context } = actor.getSnapshot();
    expect(JSON.stringify(context)).not.toContain('muy-secreta');
    expect(JSON.parse(JSON.stringify(context))).toEqual(context);
  });

  it('touches no storage until an actor is created', () => {
    const storage = { getItem: vi.fn(() => null), setItem: vi.fn(), removeItem: vi.fn() };
    createAuthMachine({ storage, now: () => NOW_MS });
    expect(storage.getItem).not.toHaveBeenCalled();
  });
});

describe("the video's key lives and goes with the session", () => {
  const videoKey = { id: 'k3f9a1c2', key: 'AAECAwQFBgcICQoLDA0ODw==' };
  const withKey: AuthEvent = { ...succeeded, videoKey } as AuthEvent;

  it('is stored beside the session from the signin, and only then', () => {
    const { actor, storage } = start();
    actor.send(submit('secreto'));
    expect(storage.getItem(VIDEO_KEY_KEY)).toBeNull();
    actor.send(withKey);
    expect(JSON.parse(storage.getItem(VIDEO_KEY_KEY)!)).toEqual(videoKey);
  });

  it('is removed at signout, at expiry, when the server refuses the session, and by a signin without one', () => {
    const ends: ((s: ReturnType<typeof start>) => void)[] = [
      ({ actor }) => actor.send({ type: 'logout' }),
      ({ clock }) => clock.increment(SESSION_TIMEOUT_MS),
      ({ actor }) => actor.send({ type: 'session.refused' }),
    ];
    for (const end of ends) {
      const started = start();
      started.actor.send(submit('secreto'));
      started.actor.send(withKey);
      end(started);
      expect(started.actor.getSnapshot().value).not.toBe('loggedIn');
      expect(started.storage.getItem(VIDEO_KEY_KEY)).toBeNull();
    }
    const again = start();
    again.storage.setItem(VIDEO_KEY_KEY, JSON.stringify(videoKey));
    again.actor.send(submit('secreto'));
    again.actor.send(succeeded);
    expect(again.storage.getItem(VIDEO_KEY_KEY)).toBeNull();
  });

  it('does not outlive a stored session that expired while the page was closed', () => {
    const clock = new SimulatedClock();
    clock.set(NOW_MS);
    const storage = memoryStorage({ [VIDEO_KEY_KEY]: JSON.stringify(videoKey) });
    createActor(createAuthMachine({ storage, now: () => clock.now() }), { clock }).start();
    expect(storage.getItem(VIDEO_KEY_KEY)).toBeNull();
  });
});
