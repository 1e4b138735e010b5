import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientConfig } from '../../config/settings';
import { SESSION_MAX_AGE_S, SESSION_TIMEOUT_MS, parseSession } from '../../machines/session';
import { loadConfig } from '../../server/config';
import { fakeClock, sessionCookie, signin, testServer } from '../server/helpers';

// The session's three numbers, which is which: machines/session.ts, docs/decisions.md #8.

const watch = (app: FastifyInstance, cookie: string) =>
  app.inject({ url: '/api/video', headers: { cookie, range: 'bytes=0-1' } });

describe("the spec's two numbers", () => {
  it('are 7,200 s for the check at start and 72,000,000 ms for the timer', () => {
    expect(SESSION_MAX_AGE_S).toBe(7_200);
    expect(SESSION_TIMEOUT_MS).toBe(72_000_000);
  });

  it("are the defaults of the app's timer and of the server's session", () => {
    expect(clientConfig({}).sessionTimeoutMs).toBe(72_000_000);
    expect(loadConfig({}).sessionTtlS).toBe(7_200);
  });

  it("stay the app's whatever the server's session lifetime is set to", () => {
    expect(clientConfig({ SESSION_TTL_S: '900' })).toEqual(clientConfig({}));
    const stored = (ageS: number) =>
      JSON.stringify({
        ...{ loggedIn: true, username: 'capacitacion', empresa: 'E', nombres: 'N' },
        timestamp: 1_800_000_000 - ageS,
      });
    expect(parseSession(stored(7_199), 1_800_000_000_000)).not.toBeNull();
    expect(parseSession(stored(7_200), 1_800_000_000_000)).toBeNull();
  });
});

describe("the server's session lifetime (SESSION_TTL_S)", () => {
  it.each([
    [900, 'shorter'],
    [86_400, 'longer'],
  ])(
    'set to %i s (%s than the default): the cookie says so and the video is refused from then on',
    async (ttlS) => {
      const clock = fakeClock();
      const app = await testServer({ SESSION_TTL_S: String(ttlS) }, { now: clock.now });
      try {
        const answer = await signin(app);
        expect(String(answer.headers['set-cookie'])).toContain(`Max-Age=${ttlS};`);
        const cookie = sessionCookie(answer.headers['set-cookie']);
        clock.advance(ttlS * 1000 - 1_000);
        expect((await watch(app, cookie)).statusCode).toBe(206);
        clock.advance(1_000);
        expect((await watch(app, cookie)).statusCode).toBe(401);
      } finally {
        await app.close();
      }
    },
  );

  it('refuses a value that is not a whole number of seconds from 1', () => {
    for (const value of ['0', '-5', '2h', '7200.5'])
      expect(() => loadConfig({ SESSION_TTL_S: value }), value).toThrow(/SESSION_TTL_S/);
  });
});
