/** A crowd of 100 behind one address, alone and beside a guesser (issue 31): docs/benchmarks.md. */
import { randomBytes } from 'node:crypto';
import type { Agent } from 'node:http';
import { setTimeout as timer } from 'node:timers/promises';
import { clientConfig } from '../../config/settings';
import { loadConfig } from '../../server/config';
import { HOUR_MS, delayAfter } from '../../server/signin-limiter';
import { quantile } from '../test-support/load-generator';
import { signinBrowser, startServer } from '../test-support/test-server';
import { benchSecrets } from './load';
import { atEnd, exactly, figure, holds, reading, section, seconds } from './measure';

const [VISITORS, ARRIVALS_MS, MAX_PRESSES, GIVE_UP_MS, TYPO_EVERY] = [100, 30_000, 7, 180_000, 20];
/** The app's own wait for a signin's answer. */
const SIGNIN_TIMEOUT_MS = clientConfig(process.env).signinTimeoutMs;

/** The most failures one address may have within `ms` of its first, by the servers' limits. */
function allowed(ms: number) {
  const rules = loadConfig(process.env).signin;
  let [at, failures] = [0, 0];
  for (; failures < rules.maxFailuresPerHour; failures += 1)
    if ((at += delayAfter(failures, rules)) > Math.min(ms, HOUR_MS)) break;
  return failures;
}

/** A visitor waiting as the app does (status 0: no answer), on `agent` or a connection a press. */
export function browser(username: string, agent: Agent | false = false) {
  const options = { localAddress: '127.0.0.1', agent, timeoutMs: SIGNIN_TIMEOUT_MS };
  const me = signinBrowser(username, options);
  const press = async (origin: string, password: string) => {
    const [device, started] = [me.hasDevice(), performance.now()];
    const answer = await me.press(origin, password).catch(() => null);
    const retryMs = Number(answer?.headers['retry-after'] ?? 1) * 1000;
    return { status: answer?.status ?? 0, ms: performance.now() - started, device, retryMs };
  };
  return Object.assign(press, { cookie: me.cookie });
}
type Browser = ReturnType<typeof browser>;
/** `first`: the visitor's first right press; `device`: with its cookie. */
type Press = { status: number; ms: number; right: boolean; first: boolean; device: boolean };

async function crowd(origin: string, password: string, browsers: Browser[], guesser?: Browser) {
  const [presses, timeToIn, over] = [[] as Press[], [] as number[], new AbortController()];
  const [guessed, started] = [{ failures: 0, seconds: 0 }, performance.now()];
  const guessing = (async () => {
    for (let i = 0; guesser && !over.signal.aborted; i++) {
      const guess = `guess-${i}-${randomBytes(4).toString('hex')}`;
      const { status, retryMs } = await guesser(origin, guess);
      if (status === 401) guessed.failures += 1;
      else await timer(status === 429 ? retryMs : 100, null, over).catch(() => undefined);
    }
    guessed.seconds = (performance.now() - started) / 1000;
  })();
  // One in TYPO_EVERY mistypes once; a refusal is waited out, unless past GIVE_UP_MS.
  const visit = async (press: Browser, visitor: number) => {
    await timer(Math.random() * ARRIVALS_MS);
    const arrived = performance.now();
    let [right, first] = [visitor % TYPO_EVERY !== 0, true];
    for (let n = 0; n < MAX_PRESSES; n++) {
      const typed = right ? password : `${password}x`;
      const { status, ms, device, retryMs } = await press(origin, typed);
      presses.push({ status, ms, right, first: right && first, device });
      if (status === 200) return void timeToIn.push(performance.now() - arrived);
      if (right) first = false;
      const typo = !right && status === 401;
      if (typo) right = true;
      else if (performance.now() - arrived + retryMs > GIVE_UP_MS) return;
      await timer(typo ? 1000 : retryMs);
    }
  };
  await Promise.all(browsers.map(visit));
  over.abort();
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
    // The guesser's failures, and typos without a device cookie.
    addressFailures: guessed.failures + count((p) => p.status === 401 && !p.right && !p.device),
  };
}
type Run = Awaited<ReturnType<typeof crowd>>;

const p50p99 = (values: number[]) =>
  `p50 ${seconds(quantile(values, 0.5))}, p99 ${seconds(quantile(values, 0.99))}`;
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

const [all, within] = [exactly(VISITORS), holds('≤ what the limits allow in that time')];
const FIGURES = {
  alone: figure('Crowd of 100 at one address: in at the first right press', all),
  aloneTimes: figure('Crowd of 100: time to an answer (p99)'),
  guessed: figure('New crowd of 100 + a guesser: in at the first right press'),
  guessedTimes: figure('New crowd + a guesser: time to an answer (p99)'),
  guesser: figure("Guesser amid the crowd: its address's failures", within),
  returning: figure('Returning crowd (device cookies) + a guesser: in at the first press', all),
};

const NAME = 'a crowd of 100 behind one address, alone and with a guesser (default limits)';
export const crowdMeasurement = section(NAME, 600_000, FIGURES, async (site, signal) => {
  const env = { NODE_ENV: 'production', ...(await benchSecrets(site.password)) };
  const one = () => browser(site.username);
  const first = Array.from({ length: VISITORS }, one);
  // Alone; a new crowd beside a guesser; the first crowd again (device cookies) beside one.
  const scenarios: [Browser[], Browser?][] = [[first], [first.map(one), one()], [first, one()]];
  const runs: Run[] = [];
  for (const [i, [browsers, guesser]] of scenarios.entries()) {
    const server = await startServer(env, { logFile: `reports/bench-server-crowd-${i + 1}.log` });
    atEnd(signal, () => server.stop());
    runs.push(await crowd(server.origin, site.password, browsers, guesser));
    await server.stop();
  }
  const [alone, guessed, returning] = runs as [Run, Run, Run];
  const [withNew, withReturning] = [guessing(guessed), guessing(returning)];
  const guesser = `new crowd: ${withNew.text}; returning: ${withReturning.text}; an hour: ${allowed(HOUR_MS)} at most`;
  return {
    ...{ alone: visitors(alone), aloneTimes: times(alone) },
    ...{ guessed: visitors(guessed), guessedTimes: times(guessed) },
    returning: visitors(returning),
    guesser: reading(guesser, withNew.within && withReturning.within),
  };
});
