/**
 * The signin flood, in its own process (forked by load.ts). Each request claims its own client
 * address (X-Forwarded-For; the bench server trusts the loopback proxy): a crowd, not one client
 * that the per-address limits would stop at once. Half carry the right password.
 */
import autocannon, { type Request } from 'autocannon';
import { SIGNIN_PATH, signinBody } from '../test-support/test-server';

export interface FloodOptions {
  origin: string;
  username: string;
  password: string;
  connections: number;
  durationS: number;
}

export interface FloodResult {
  statusCounts: Record<string, number>;
  total: number;
}

/** 10.0.0.1, 10.0.0.2, …: a distinct address for every request. */
const address = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

const options = JSON.parse(process.env.BENCH_FLOOD ?? 'null') as FloodOptions | null;
if (options) {
  let sent = 0;
  const signin = (request: Request): Request => {
    sent += 1;
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': address(sent) };
    const password = sent % 2 ? options.password : `equivocada-${sent}`;
    return { ...request, headers, body: signinBody(options.username, password) };
  };
  const instance = autocannon({
    url: options.origin,
    connections: options.connections,
    duration: options.durationS,
    timeout: 30,
    requests: [{ method: 'POST', path: SIGNIN_PATH, setupRequest: signin }],
  });
  instance.once('start', () => process.send?.({ kind: 'started' }));
  const result = await instance;
  const statusCounts = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
  );
  const done = { kind: 'done', statusCounts, total: result.requests.total };
  process.send?.(done, () => process.exit(0));
}
