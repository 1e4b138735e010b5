/**
 * A scripted password-guessing attack through a real loopback port. The attacker sends from
 * 127.0.0.1 and a visitor from 127.0.0.2 (all of 127/8 is loopback on Linux). Simulated time:
 * `Date` is faked (only `Date`, so sockets and timers stay real) and the server reads it both
 * in the signin limiter (`deps.now`) and in @fastify/rate-limit's per-minute cap, so three
 * hours of attack cost a few seconds.
 */
import type { FastifyInstance } from 'fastify';
import { Agent } from 'node:http';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildServer } from '../../server/app.js';
import { verifyPassword } from '../../server/password.js';
import { HOUR_MS } from '../../server/signin-limiter.js';
import { signIn } from '../../scripts/test-support/test-server.js';
import { USERNAME, cheapPasswordHash, listen, testConfig } from './helpers.js';

// Spies that keep the real implementation: every hash the server computes is counted.
vi.mock('../../server/password.js', { spy: true });

const PASSWORD = 'la-clave-que-el-atacante-no-sabe';
const ATTACK_MS = 3 * HOUR_MS;
/** The attacker's pause after an answer that was not a refusal (a fast script). */
const THINK_MS = 100;
/** Guesses sent at once from the attacker's address, each on its own connection. */
const PARALLEL = 4;
const MAX_REQUESTS = 6_000;
/** The visitor signs in every 20 simulated minutes, whatever the attacker is doing. */
const VISIT_EVERY_MS = 20 * 60_000;

/** ASVS 4.0.3 V2.2.1: no more than 100 failed attempts per hour. */
const ASVS_CAP = 100;

/** Everything the config lets an operator loosen, loosened as far as it goes. */
const MOST_PERMISSIVE = {
  SIGNIN_FREE_FAILURES: '20',
  SIGNIN_BACKOFF_BASE_MS: '1',
  SIGNIN_BACKOFF_MAX_MS: '1',
  SIGNIN_MAX_FAILURES_PER_HOUR: '100',
  SIGNIN_MAX_CONCURRENT_HASHES: '64',
  SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000',
};

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** A client bound to one local address, like one machine on the network. */
function client(origin: string, localAddress: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL });
  const signin = async (password: string): Promise<Answer> => {
    const answer = await signIn({ origin, username: USERNAME, password, localAddress, agent });
    return { status: answer.status, retryAfter: answer.headers['retry-after'], body: answer.body };
  };
  return { signin, close: () => agent.destroy() };
}

/** The most timestamps inside any half-open window [t, t + 1 h). */
function worstHour(times: number[]): number {
  let worst = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= HOUR_MS) j++;
    worst = Math.max(worst, i - j + 1);
  }
  return worst;
}

interface Report {
  evaluated: number[];
  requests: number;
  refusals: number;
  /** Refusals by who refused: the failure limiter or the per-minute request cap. */
  refusedBy: Record<string, number>;
  hashes: number;
  visits: number[];
  simulatedMs: number;
}

async function attack(env: Record<string, string>, passwordHash: string): Promise<Report> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 22, 3) });
  let app: FastifyInstance | undefined;
  const clients: ReturnType<typeof client>[] = [];
  try {
    app = await buildServer(testConfig({ ...env, PASSWORD_HASH: passwordHash }), {
      now: () => Date.now(),
    });
    const origin = await listen(app);
    const attacker = client(origin, '127.0.0.1');
    const visitor = client(origin, '127.0.0.2');
    clients.push(attacker, visitor);
    vi.mocked(verifyPassword).mockClear();

    const start = Date.now();
    const report: Report = {
      evaluated: [],
      requests: 0,
      refusals: 0,
      refusedBy: {},
      hashes: 0,
      visits: [],
      simulatedMs: 0,
    };
    let nextVisit = start + 5 * 60_000;
    const visited = (visit: Answer) => {
      expect(visit.status, `visitor at +${(Date.now() - start) / 60_000} min`).toBe(200);
      report.visits.push(visit.status);
      nextVisit += VISIT_EVERY_MS;
    };
    /** The attacker waits; a visit that falls due meanwhile happens at its time. */
    const wait = async (ms: number) => {
      const until = Date.now() + ms;
      while (nextVisit <= until) {
        vi.setSystemTime(nextVisit);
        visited(await visitor.signin(PASSWORD));
      }
      vi.setSystemTime(until);
    };

    while (Date.now() - start < ATTACK_MS && report.requests < MAX_REQUESTS) {
      const visiting = Date.now() >= nextVisit;
      const guesses = Array.from({ length: PARALLEL }, (_, i) =>
        attacker.signin(`guess-${report.requests + i}`),
      );
      // A visit that falls due now runs while the attacker's guesses are in flight.
      const [answers, visit] = await Promise.all([
        Promise.all(guesses),
        visiting ? visitor.signin(PASSWORD) : Promise.resolve(null),
      ]);
      report.requests += PARALLEL;
      if (visit) visited(visit);
      const waits: number[] = [];
      for (const answer of answers) {
        if (answer.status === 401) {
          report.evaluated.push(Date.now());
          continue;
        }
        report.refusals += 1;
        expect(answer.status, answer.body).toBe(429);
        expect(answer.retryAfter, answer.body).toMatch(/^[1-9]\d*$/);
        waits.push(Number(answer.retryAfter) * 1000);
        const by = String((JSON.parse(answer.body) as { error?: unknown }).error);
        report.refusedBy[by] = (report.refusedBy[by] ?? 0) + 1;
      }
      // Obey Retry-After when every guess was refused; otherwise keep going.
      await wait(waits.length === PARALLEL ? Math.min(...waits) : THINK_MS);
    }
    report.simulatedMs = Date.now() - start;
    report.hashes = vi.mocked(verifyPassword).mock.calls.length;
    return report;
  } finally {
    for (const c of clients) c.close();
    await app?.close();
    vi.useRealTimers();
  }
}

describe('a scripted attacker guessing passwords for three hours over loopback', () => {
  let passwordHash: string;
  beforeAll(() => {
    // Real scrypt, cheapest parameters: hundreds of guesses cost seconds, not minutes.
    passwordHash = cheapPasswordHash(PASSWORD);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    { settings: 'the default settings', env: {} },
    { settings: 'the most permissive settings allowed', env: MOST_PERMISSIVE },
  ])(
    'with $settings, gets at most 100 guesses evaluated in any hour, only 429 + Retry-After refusals, and never locks the visitor out',
    async ({ settings, env }) => {
      const report = await attack(env, passwordHash);
      const worst = worstHour(report.evaluated);
      console.log(
        `brute force, ${settings}: attempts evaluated in the worst hour: ${worst}; ` +
          `${report.evaluated.length} in ${(report.simulatedMs / HOUR_MS).toFixed(2)} simulated hours; ` +
          `${report.requests} requests, ${report.refusals} refused with 429 ` +
          `${JSON.stringify(report.refusedBy)}; ` +
          `visitor from 127.0.0.2: ${report.visits.length}/${report.visits.length} first-try 200`,
      );
      expect(report.simulatedMs).toBeGreaterThanOrEqual(ATTACK_MS);
      expect(worst).toBeLessThanOrEqual(ASVS_CAP);
      // A refusal never costs a hash: every hash is a guess that was answered 401, or a visit.
      expect(report.hashes, 'hashes = guesses answered 401 + visits').toBe(
        report.evaluated.length + report.visits.length,
      );
      // A visit every 20 minutes of the attack, each a first-try 200 (asserted as it happens).
      expect(report.visits.length).toBeGreaterThanOrEqual(ATTACK_MS / VISIT_EVERY_MS);
      if (env === MOST_PERMISSIVE) expect(worst).toBe(ASVS_CAP);
      else expect(worst).toBeLessThan(30);
    },
    60_000,
  );
});
