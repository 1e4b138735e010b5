/** Slow clients from one address while visitors sign in and watch, through nginx (issue 42). */
import { connect } from 'node:tls';
import { SIGNIN_PATH } from '../test-support/test-server';
import { browser } from './crowd';
import { client, clipBehindProxy } from './proxy';
import { atEnd, atMost, exactly, figure, p99Of, reading, sleep, slowest, section } from './measure';

const [SLOW_HEADERS, SLOW_BODIES, VISITORS, DRIP_MS, WATCH_S] = [300, 300, 20, 5_000, 45];
/** The attacker's address (the visitors': 127.0.0.1), over TLS; GIVE_UP_MS: never cut. */
const SLOW_FROM = { host: '127.0.0.1', localAddress: '127.0.0.2', rejectUnauthorized: false };
const GIVE_UP_MS = 90_000;

type Slow = { cutMs: number | null; status: number | null };

/** One slow client over TLS: its headers, or a signin body of 1,000 bytes, a byte at a time. */
function slowClient(port: number, kind: 'headers' | 'body'): Promise<Slow> {
  return new Promise((resolve) => {
    const socket = connect({ ...SLOW_FROM, port });
    let [started, status, drip]: [number, number | null, NodeJS.Timeout?] = [0, null];
    const giveUp = setTimeout(() => socket.destroy(), GIVE_UP_MS);
    socket.on('error', () => undefined);
    socket.once('secureConnect', () => {
      started = performance.now();
      socket.write(
        kind === 'headers'
          ? 'GET /capacitacion/login HTTP/1.1\r\nHost: localhost\r\n'
          : `POST ${SIGNIN_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
      );
      drip = setInterval(() => socket.write(kind === 'headers' ? 'X: y\r\n' : ' '), DRIP_MS);
    });
    socket.on('data', (chunk: Buffer) => {
      status ??= Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString())?.[1] ?? 0);
    });
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      const ms = performance.now() - started;
      resolve({ cutMs: started && ms < GIVE_UP_MS ? ms : null, status });
    });
  });
}

const [s, none] = [(n: number) => `${n} s`, exactly(0)];
const [in11, in32] = [atMost(11, s), atMost(32, s)];
const FIGURES = {
  headers: figure(`${SLOW_HEADERS} slow headers from one address: cut after, at most`, in11),
  bodies: figure(`${SLOW_BODIES} slow signin bodies from it: cut after, at most (408)`, in32),
  refused: figure('Of those bodies, refused at once (429, over 200 in progress per address)'),
  visitors: figure(`${VISITORS} visitors from another address: refused or failed requests`, none),
  signin: figure('Their signin, slowest (one arrival a second, production scrypt)'),
  page: figure('Their login page p99 meanwhile'),
  segment: figure('Their slowest segment meanwhile'),
};

const NAME = `slow clients: ${SLOW_HEADERS + SLOW_BODIES} from one address (a byte every ${DRIP_MS / 1000} s) while ${VISITORS} visitors sign in and watch, through nginx`;
export const slowClientsMeasurement = section(NAME, 240_000, FIGURES, async (site, signal) => {
  const { proxy, segments } = await clipBehindProxy(site, 'slow', signal);
  const { agent, timed } = client(proxy.origin, VISITORS * 2);
  atEnd(signal, async () => void agent.destroy());

  const slow = Array.from({ length: SLOW_HEADERS + SLOW_BODIES }, (_, i) =>
    slowClient(proxy.port, i < SLOW_HEADERS ? 'headers' : 'body'),
  );
  await sleep(2_000); // the slow ones all open before the visitors come
  const end = Date.now() + WATCH_S * 1000;
  const [pageMs, segmentMs, signinMs] = [[] as number[], [] as number[], [] as number[]];
  const failures: string[] = [];
  const fail = (what: string, status: number) => failures.push(`${what} ${status}`);
  const visitor = async (index: number) => {
    await sleep(index * 1_000); // one a second, each waiting for its signin as the app does
    const press = browser(site.username, agent);
    const signin = await press(proxy.origin, site.password);
    if (signin.status !== 200) return fail('signin', signin.status);
    signinMs.push(signin.ms);
    const cookie = press.cookie();
    for (let next = 0; Date.now() < end; next += 1, await sleep(1_000)) {
      const page = await timed(pageMs, `${site.base}/login`);
      if (page.status !== 200) fail('page', page.status);
      const segment = await timed(segmentMs, segments[next % segments.length]!, { cookie });
      if (segment.status !== 200) fail('segment', segment.status);
    }
  };
  await Promise.all(Array.from({ length: VISITORS }, (_, index) => visitor(index)));
  const outcomes = await Promise.all(slow);
  const bodies = outcomes.slice(SLOW_HEADERS).filter((each) => each.status !== 429);
  const cutMax = (list: Slow[]) => {
    const never = list.filter((each) => each.cutMs === null).length;
    const answers = [...new Set(list.map((each) => each.status ?? 'none'))].join(', ');
    const max = slowest(list.map((each) => each.cutMs ?? 0));
    return never ? reading(`${never} never cut`, null) : { ...max, note: `answers: ${answers}` };
  };
  const [refused, failed] = [SLOW_BODIES - bodies.length, failures.length];
  const why = failed ? `status 0: no answer in time; ${failures.join(', ')}` : undefined;
  return {
    headers: cutMax(outcomes.slice(0, SLOW_HEADERS)),
    bodies: cutMax(bodies),
    refused: reading(String(refused), refused),
    visitors: reading(`${failed} of ${pageMs.length + segmentMs.length + failed}`, failed, why),
    ...{ signin: slowest(signinMs), page: p99Of(pageMs), segment: slowest(segmentMs) },
  };
});
