/**
 * A crowd behind one address (issue 31): 100 visitors arriving at random within 30 s, all from
 * 127.0.0.1, each its own browser (own connection, own cookies), 5 of them mistyping once
 * first; each waits for an answer as long as the app does (SIGNIN_TIMEOUT_MS, as built), honours
 * Retry-After and gives up after 7 presses or 3 minutes. Three runs, each on a fresh
 * built server with the production hash and the default signin limits:
 * 1. the crowd alone;
 * 2. a new crowd while one guesser at the same address sends wrong passwords as fast as it is
 *    answered (obeying Retry-After);
 * 3. the crowd of run 1 coming back (its browsers carry the device cookie) with the guesser.
 */
import { randomBytes } from 'node:crypto';
import { clientConfig, readSettings } from '../../config/settings';
import { hashPassword } from '../../server/password';
import { HOUR_MS, delayAfter } from '../../server/signin-limiter';
import {
  SIGNIN_PATH,
  send,
  signinBody,
  startServer,
  type Answer,
} from '../test-support/test-server';
import {
  REFERENCE,
  exactly,
  holds,
  quantile,
  type Measurement,
  type Reading,
  type Site,
} from './measure';

const VISITORS = 100;
const ARRIVALS_MS = 30_000;
const MAX_PRESSES = 7;
/** As a person would: gives up after this long without getting in. */
const GIVE_UP_MS = 180_000;
const TYPO_EVERY = 20;
const ADDRESS = '127.0.0.1';
/** The app's own wait for a signin's answer (src/api/signin.ts), as the build read it. */
const SIGNIN_TIMEOUT_MS = clientConfig(process.env).signinTimeoutMs;
/** Status 0: no answer within SIGNIN_TIMEOUT_MS (the app says "no se pudo conectar"). */
const NO_ANSWER = 0;

/** The limits the bench's servers run with (their defaults, unless the environment says). */
const limits = () => {
  const s = readSettings(process.env, [
    'SIGNIN_FREE_FAILURES',
    'SIGNIN_BACKOFF_BASE_MS',
    'SIGNIN_BACKOFF_MAX_MS',
    'SIGNIN_MAX_FAILURES_PER_HOUR',
  ]);
  return {
    freeFailures: s.SIGNIN_FREE_FAILURES,
    backoffBaseMs: s.SIGNIN_BACKOFF_BASE_MS,
    backoffMaxMs: s.SIGNIN_BACKOFF_MAX_MS,
    maxFailuresPerHour: s.SIGNIN_MAX_FAILURES_PER_HOUR,
  };
};

/**
 * The most failures the limits let one address have within `ms` (at most an hour) of its
 * first: the free ones at once, then one per back-off, never more than the hourly ceiling.
 * Hashing takes time too, so a real guesser gets fewer.
 */
function failuresAllowed(ms: number, rules: ReturnType<typeof limits>): number {
  let at = 0;
  let failures = 0;
  while (failures < rules.maxFailuresPerHour) {
    at += delayAfter(failures, rules);
    if (at > Math.min(ms, HOUR_MS)) break;
    failures += 1;
  }
  return failures;
}

function browser(username: string) {
  const jar = new Map<string, string>();
  return async (
    origin: string,
    password: string,
  ): Promise<Answer & { ms: number; device: boolean }> => {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const device = jar.has('dev');
    const started = performance.now();
    const answer = await send(`${origin}${SIGNIN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: signinBody(username, password),
      localAddress: ADDRESS,
      agent: false,
      timeoutMs: SIGNIN_TIMEOUT_MS,
    }).catch((): Answer => ({ status: NO_ANSWER, headers: {}, body: '', bytes: 0 }));
    for (const line of answer.headers['set-cookie'] ?? []) {
      const pair = line.split(';', 1)[0]!;
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return { ...answer, ms: performance.now() - started, device };
  };
}

type Browser = ReturnType<typeof browser>;

interface Run {
  inAtFirstRightPress: number;
  in: number;
  presses: number;
  refused: number;
  rightRefused: number;
  /** Presses with no answer within the app's timeout; of them, first right presses. */
  unanswered: number;
  firstRightUnanswered: number;
  latencies: number[];
  /** From a visitor's first press to its 200. */
  timeToIn: number[];
  guesserFailures: number;
  /** Failures counted on the address: the guesser's and the typos of browsers without a device cookie. */
  addressFailures: number;
  guesserS: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function crowd(
  origin: string,
  site: Site,
  browsers: Browser[],
  guesser: Browser | null,
): Promise<Run> {
  const run: Run = {
    inAtFirstRightPress: 0,
    in: 0,
    presses: 0,
    refused: 0,
    rightRefused: 0,
    unanswered: 0,
    firstRightUnanswered: 0,
    latencies: [],
    timeToIn: [],
    guesserFailures: 0,
    addressFailures: 0,
    guesserS: 0,
  };
  let crowdDone = false;
  let endGuessing = () => {};
  const crowdOver = new Promise<void>((resolve) => (endGuessing = resolve));
  /** The guesser's wait, cut short when the crowd is done. */
  const wait = (ms: number) => Promise.race([sleep(ms), crowdOver]);
  const started = performance.now();
  const guessing = (async () => {
    for (let i = 0; guesser && !crowdDone; i++) {
      const answer = await guesser(origin, `guess-${i}-${randomBytes(4).toString('hex')}`);
      if (answer.status === 401) {
        run.guesserFailures += 1;
        run.addressFailures += 1;
      } else if (answer.status === 429)
        await wait(Number(answer.headers['retry-after'] ?? 1) * 1000);
      else await wait(100);
    }
    run.guesserS = (performance.now() - started) / 1000;
  })();
  await Promise.all(
    browsers.map(async (press, visitor) => {
      await sleep(Math.random() * ARRIVALS_MS);
      const first = performance.now();
      let typo = visitor % TYPO_EVERY === 0;
      let firstRight = true;
      for (let n = 0; n < MAX_PRESSES; n++) {
        const answer = await press(origin, typo ? `${site.password}x` : site.password);
        run.presses += 1;
        run.latencies.push(answer.ms);
        if (answer.status === 200) {
          run.in += 1;
          if (firstRight) run.inAtFirstRightPress += 1;
          run.timeToIn.push(performance.now() - first);
          return;
        }
        if (answer.status === NO_ANSWER) {
          run.unanswered += 1;
          if (!typo && firstRight) run.firstRightUnanswered += 1;
        }
        if (answer.status === 401 && typo) {
          if (!answer.device) run.addressFailures += 1;
          typo = false;
          await sleep(1000);
          continue;
        }
        if (answer.status === 429) {
          run.refused += 1;
          if (!typo) run.rightRefused += 1;
        }
        if (!typo) firstRight = false;
        const retryMs = Number(answer.headers['retry-after'] ?? 1) * 1000;
        if (performance.now() - first + retryMs > GIVE_UP_MS) return;
        await sleep(retryMs);
      }
    }),
  );
  crowdDone = true;
  endGuessing();
  await guessing;
  return run;
}

type Key = 'alone' | 'aloneTimes' | 'guessed' | 'guessedTimes' | 'guesser' | 'returning';

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const times = (run: Run): Reading => ({
  value: `p50 ${fmt(quantile(run.latencies, 0.5))}, p99 ${fmt(quantile(run.latencies, 0.99))}`,
  measured: quantile(run.latencies, 0.99) / 1000,
  unit: 's',
  note: `per press, ${run.presses} presses; visitor's first press to in: p50 ${fmt(quantile(run.timeToIn, 0.5))}, p99 ${fmt(quantile(run.timeToIn, 0.99))}`,
});
const visitors = (run: Run): Reading => ({
  value: `${run.inAtFirstRightPress}/${VISITORS} at the first right press, ${run.in}/${VISITORS} in within ${MAX_PRESSES} presses; ${run.refused} presses refused (${run.rightRefused} right passwords); ${run.unanswered} unanswered within the app's ${SIGNIN_TIMEOUT_MS / 1000} s (${run.firstRightUnanswered} first right presses)`,
  measured: run.inAtFirstRightPress,
});

/** The address's failures in a run against what the limits allow in that time. */
function guessing(run: Run, rules: ReturnType<typeof limits>) {
  const allowed = failuresAllowed(run.guesserS * 1000, rules);
  const typos = run.addressFailures - run.guesserFailures;
  return {
    within: run.addressFailures <= allowed,
    text: `${run.addressFailures} (guesser ${run.guesserFailures}${typos ? `, typos ${typos}` : ''}) in ${run.guesserS.toFixed(0)} s, limits allow ${allowed}`,
  };
}

export function crowdMeasurement(site: Site): Measurement<Key> {
  return {
    name: 'a crowd of 100 behind one address, alone and with a guesser (default limits)',
    timeoutMs: 600_000,
    figures: {
      alone: {
        figure: 'Crowd of 100 at one address: in at the first right press',
        target: exactly(VISITORS),
      },
      aloneTimes: { figure: 'Crowd of 100: time to an answer (p99)', target: REFERENCE },
      guessed: {
        figure: 'New crowd of 100 + a guesser: in at the first right press',
        target: REFERENCE,
      },
      guessedTimes: { figure: 'New crowd + a guesser: time to an answer (p99)', target: REFERENCE },
      guesser: {
        figure: "Guesser amid the crowd: its address's failures",
        target: holds('≤ what the limits allow in that time'),
      },
      returning: {
        figure: 'Returning crowd (device cookies) + a guesser: in at the first press',
        target: exactly(VISITORS),
      },
    },
    async run(signal) {
      const passwordHash = await hashPassword(site.password);
      const secret = randomBytes(48).toString('base64');
      const fresh = async () => {
        const server = await startServer(
          { NODE_ENV: 'production', PASSWORD_HASH: passwordHash, SESSION_SECRET: secret },
          { logFile: `reports/bench-server-crowd-${results.length + 1}.log` },
        );
        signal.addEventListener('abort', () => void server.stop(), { once: true });
        return server;
      };
      const newCrowd = () => Array.from({ length: VISITORS }, () => browser(site.username));
      const results: Run[] = [];
      const returningBrowsers = newCrowd();
      for (const [browsers, withGuesser] of [
        [returningBrowsers, false],
        [newCrowd(), true],
        [returningBrowsers, true],
      ] as const) {
        const server = await fresh();
        try {
          results.push(
            await crowd(
              server.origin,
              site,
              [...browsers],
              withGuesser ? browser(site.username) : null,
            ),
          );
        } finally {
          await server.stop();
        }
      }
      const [alone, guessed, returning] = results as [Run, Run, Run];
      const rules = limits();
      const [withNew, withReturning] = [guessing(guessed, rules), guessing(returning, rules)];
      return {
        alone: visitors(alone),
        aloneTimes: times(alone),
        guessed: visitors(guessed),
        guessedTimes: times(guessed),
        guesser: {
          value: `new crowd: ${withNew.text}; returning: ${withReturning.text}; an hour: ${failuresAllowed(HOUR_MS, rules)} at most`,
          measured: withNew.within && withReturning.within,
          note: `what the limits allow a fresh address from its first failure: ${rules.freeFailures} free, then one per back-off (${rules.backoffBaseMs / 1000} s doubling to ${rules.backoffMaxMs / 1000} s), never more than ${rules.maxFailuresPerHour} in any hour; each guess also waits for its hash, so a real guesser gets fewer. The typos are the new crowd's, on the same address (the returning crowd's count on their device cookies)`,
        },
        returning: visitors(returning),
      };
    },
  };
}
