/** A crowd of 100 behind one address, alone and beside a guesser (issue 31): docs/benchmarks.md. */
import { randomBytes } from 'node:crypto';
import { clientConfig, readSettings } from '../../config/settings';
import { hashPassword } from '../../server/password';
import { HOUR_MS, delayAfter } from '../../server/signin-limiter';
import { SIGNIN_PATH, send, signinBody, startServer } from '../test-support/test-server';
import type { Answer } from '../test-support/test-server';
import { exactly, figure, holds, quantile, sleep, type Measurement, type Site } from './measure';

const [VISITORS, ARRIVALS_MS, MAX_PRESSES, GIVE_UP_MS, TYPO_EVERY] = [100, 30_000, 7, 180_000, 20];
/** The app's own wait for a signin's answer (src/api/signin.ts); status 0: none in that time. */
const SIGNIN_TIMEOUT_MS = clientConfig(process.env).signinTimeoutMs;

/** The most failures one address may have within `ms` of its first, by the servers' limits. */
function allowed(ms: number) {
  const s = readSettings(process.env, [
    ...['SIGNIN_FREE_FAILURES', 'SIGNIN_BACKOFF_BASE_MS'],
    ...['SIGNIN_BACKOFF_MAX_MS', 'SIGNIN_MAX_FAILURES_PER_HOUR'],
  ] as const);
  const rules = {
    freeFailures: s.SIGNIN_FREE_FAILURES,
    backoffBaseMs: s.SIGNIN_BACKOFF_BASE_MS,
    backoffMaxMs: s.SIGNIN_BACKOFF_MAX_MS,
  };
  let [at, failures] = [0, 0];
  while (failures < s.SIGNIN_MAX_FAILURES_PER_HOUR) {
    at += delayAfter(failures, rules);
    if (at > Math.min(ms, HOUR_MS)) break;
    failures += 1;
  }
  return failures;
}

/** A browser of its own: a cookie jar, a connection per press, the app's timeout. */
function browser(username: string) {
  const jar = new Map<string, string>();
  return async (origin: string, password: string) => {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const [device, started] = [jar.has('dev'), performance.now()];
    const answer = await send(`${origin}${SIGNIN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: signinBody(username, password),
      ...{ localAddress: '127.0.0.1', agent: false, timeoutMs: SIGNIN_TIMEOUT_MS },
    }).catch((): Answer => ({ status: 0, headers: {}, body: '', bytes: 0 }));
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [name = '', ...value] = line.split(';', 1)[0]!.split('=');
      jar.set(name, value.join('='));
    }
    return { ...answer, ms: performance.now() - started, device };
  };
}
type Browser = ReturnType<typeof browser>;
type Press = { status: number; ms: number; right: boolean; first: boolean; device: boolean };

async function crowd(origin: string, password: string, browsers: Browser[], guesser?: Browser) {
  /** `first`: the visitor's first press with the right password; `device`: with its cookie. */
  const [presses, timeToIn] = [[] as Press[], [] as number[]];
  const guessed = { failures: 0, seconds: 0 };
  let [crowdDone, endGuessing] = [false, () => {}];
  const crowdOver = new Promise<void>((resolve) => (endGuessing = resolve));
  const started = performance.now();
  const guessing = (async () => {
    for (let i = 0; guesser && !crowdDone; i++) {
      const answer = await guesser(origin, `guess-${i}-${randomBytes(4).toString('hex')}`);
      if (answer.status === 401) guessed.failures += 1;
      else {
        const ms = answer.status === 429 ? Number(answer.headers['retry-after'] ?? 1) * 1000 : 100;
        await Promise.race([sleep(ms), crowdOver]);
      }
    }
    guessed.seconds = (performance.now() - started) / 1000;
  })();
  await Promise.all(
    browsers.map(async (press, visitor) => {
      await sleep(Math.random() * ARRIVALS_MS);
      const arrived = performance.now();
      let [right, first] = [visitor % TYPO_EVERY !== 0, true];
      for (let n = 0; n < MAX_PRESSES; n++) {
        const answer = await press(origin, right ? password : `${password}x`);
        const { status, ms, device, headers } = answer;
        presses.push({ status, ms, right, first: right && first, device });
        if (status === 200) return void timeToIn.push(performance.now() - arrived);
        if (!right && status === 401) {
          right = true;
          await sleep(1000);
          continue;
        }
        if (right) first = false;
        const retryMs = Number(headers['retry-after'] ?? 1) * 1000;
        if (performance.now() - arrived + retryMs > GIVE_UP_MS) return;
        await sleep(retryMs);
      }
    }),
  );
  crowdDone = true;
  endGuessing();
  await guessing;
  const count = (test: (press: Press) => boolean) => presses.filter(test).length;
  return {
    ...{ latencies: presses.map((p) => p.ms), timeToIn, guessed },
    in: count((p) => p.status === 200),
    inAtFirstRightPress: count((p) => p.status === 200 && p.first),
    refused: count((p) => p.status === 429),
    rightRefused: count((p) => p.status === 429 && p.right),
    unanswered: count((p) => p.status === 0),
    firstRightUnanswered: count((p) => p.status === 0 && p.first),
    /** Failures counted on the address: the guesser's, and typos without a device cookie. */
    addressFailures: guessed.failures + count((p) => p.status === 401 && !p.right && !p.device),
  };
}
type Run = Awaited<ReturnType<typeof crowd>>;

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const p50p99 = (values: number[]) =>
  `p50 ${s(quantile(values, 0.5))}, p99 ${s(quantile(values, 0.99))}`;
const times = (run: Run) => ({
  value: p50p99(run.latencies),
  measured: quantile(run.latencies, 0.99) / 1000,
  note: `visitor's first press to in: ${p50p99(run.timeToIn)}`,
});
const visitors = (run: Run) => ({
  value: `${run.inAtFirstRightPress}/${VISITORS} at the first right press, ${run.in}/${VISITORS} in within ${MAX_PRESSES} presses; ${run.refused} presses refused (${run.rightRefused} right passwords); ${run.unanswered} unanswered within the app's ${SIGNIN_TIMEOUT_MS / 1000} s (${run.firstRightUnanswered} first right presses)`,
  measured: run.inAtFirstRightPress,
});
/** The address's failures beside what the limits allow from a fresh start in the same time. */
const guessing = ({ guessed: { failures, seconds }, addressFailures: all }: Run) => {
  const [typos, most] = [all - failures, allowed(seconds * 1000)];
  const text = `${all} (guesser ${failures}${typos ? `, typos ${typos}` : ''}) in ${seconds.toFixed(0)} s, limits allow ${most}`;
  return { within: all <= most, text };
};

const FIGURES = {
  alone: figure('Crowd of 100 at one address: in at the first right press', exactly(VISITORS)),
  aloneTimes: figure('Crowd of 100: time to an answer (p99)'),
  guessed: figure('New crowd of 100 + a guesser: in at the first right press'),
  guessedTimes: figure('New crowd + a guesser: time to an answer (p99)'),
  guesser: figure(
    "Guesser amid the crowd: its address's failures",
    holds('≤ what the limits allow in that time'),
  ),
  returning: figure(
    'Returning crowd (device cookies) + a guesser: in at the first press',
    exactly(VISITORS),
  ),
};

export function crowdMeasurement(site: Site): Measurement<keyof typeof FIGURES> {
  return {
    name: 'a crowd of 100 behind one address, alone and with a guesser (default limits)',
    timeoutMs: 600_000,
    figures: FIGURES,
    async run(signal) {
      const env = {
        NODE_ENV: 'production',
        PASSWORD_HASH: await hashPassword(site.password),
        SESSION_SECRET: randomBytes(48).toString('base64'),
      };
      const newCrowd = () => Array.from({ length: VISITORS }, () => browser(site.username));
      const first = newCrowd();
      const runs: Run[] = [];
      // Alone; a new crowd beside a guesser; the first crowd again (device cookies) beside one.
      for (const [browsers, guesser] of [
        [first, undefined],
        [newCrowd(), browser(site.username)],
        [first, browser(site.username)],
      ] as const) {
        const logFile = `reports/bench-server-crowd-${runs.length + 1}.log`;
        const server = await startServer(env, { logFile });
        signal.addEventListener('abort', () => void server.stop(), { once: true });
        try {
          runs.push(await crowd(server.origin, site.password, browsers, guesser));
        } finally {
          await server.stop();
        }
      }
      const [alone, guessed, returning] = runs as [Run, Run, Run];
      const [withNew, withReturning] = [guessing(guessed), guessing(returning)];
      return {
        alone: visitors(alone),
        aloneTimes: times(alone),
        guessed: visitors(guessed),
        guessedTimes: times(guessed),
        guesser: {
          value: `new crowd: ${withNew.text}; returning: ${withReturning.text}; an hour: ${allowed(HOUR_MS)} at most`,
          measured: withNew.within && withReturning.within,
        },
        returning: visitors(returning),
      };
    },
  };
}
