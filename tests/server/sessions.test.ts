import { afterEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../server/sessions.js';
import { fakeClock } from './helpers.js';

const stores: MemorySessionStore[] = [];
function setup(options: { ttlMs?: number; maxSessions?: number } = {}) {
  const clock = fakeClock();
  const store = new MemorySessionStore({
    ttlMs: options.ttlMs ?? 7_200_000,
    maxSessions: options.maxSessions ?? 100,
    now: clock.now,
  });
  stores.push(store);
  return { clock, store };
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

describe('in-memory session store', () => {
  it('issues 256-bit random tokens, a different one every time', async () => {
    const { store } = setup();
    const tokens = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { token } = await store.create();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      tokens.add(token);
    }
    expect(tokens.size).toBe(50);
  });

  it('finds a live session by its token and nothing for an unknown token', async () => {
    const { store } = setup();
    const { token, session } = await store.create();
    expect(await store.get(token)).toEqual(session);
    expect(await store.get(`${token.slice(0, -1)}x`)).toBeNull();
  });

  it('ends a session at its lifetime, to the millisecond', async () => {
    const { clock, store } = setup({ ttlMs: 7_200_000 });
    const { token } = await store.create();
    clock.advance(7_199_999);
    expect(await store.get(token)).not.toBeNull();
    clock.advance(1);
    expect(await store.get(token)).toBeNull();
  });

  it('ends a session for good when it is deleted', async () => {
    const { store } = setup();
    const { token } = await store.create();
    await store.delete(token);
    expect(await store.get(token)).toBeNull();
  });

  it('stays within its size, dropping the least recently used session', async () => {
    const { store } = setup({ maxSessions: 3 });
    const a = await store.create();
    const b = await store.create();
    const c = await store.create();
    await store.get(a.token); // a is now the most recent
    await store.create();
    expect(store.size).toBe(3);
    expect(await store.get(b.token)).toBeNull();
    expect(await store.get(a.token)).not.toBeNull();
    expect(await store.get(c.token)).not.toBeNull();
  });

  it('sweeps expired sessions away', async () => {
    const { clock, store } = setup({ ttlMs: 1000 });
    for (let i = 0; i < 10; i++) await store.create();
    clock.advance(1000);
    store.sweep();
    expect(store.size).toBe(0);
  });

  it('does not keep the process alive with its sweep timer', () => {
    const { store } = setup();
    const timer = (store as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
  });
});
