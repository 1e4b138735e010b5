/**
 * A loopback proxy in front of the real server that can hold chosen requests until the test
 * lets them go: what Playwright's page.route does, for engines driven without Playwright. It
 * is how a test sees "Cargando..." while the signin is in flight, and presses play while the
 * app's bundle (or the video screen's chunk) has not arrived yet.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldProxy {
  origin: string;
  /** Every request's path, in the order they came. */
  seen: string[];
  /** Every request (method, path and Range, if any) with the bytes its answer carried. */
  answered: { request: string; bytes: number }[];
  /** From now on, requests whose path matches wait until `release()`. */
  hold(pattern: RegExp): void;
  /**
   * Lets every held request go on, and holds nothing more; with `only`, lets go the held
   * requests whose path it matches, and holds on as before.
   */
  release(only?: RegExp): void;
  /**
   * Resolves once a request matching the held pattern (and `only`, if given) is waiting: a
   * press is seen on the page before its request reaches the proxy.
   */
  held(only?: RegExp): Promise<string>;
  /** With true, every connection is closed at once, as with no link (the browser still says it is online); false brings the link back. */
  linkDown(down: boolean): void;
  close(): Promise<void>;
}

/**
 * `keepCaching` passes the server's cache-control on, for tests that count what crosses the link
 * as a visitor's browser would (its HTTP cache included).
 */
export async function startHoldProxy(
  target: string,
  { keepCaching = false } = {},
): Promise<HoldProxy> {
  const upstream = new URL(target);
  let pattern: RegExp | null = null;
  let waiting: { path: string; go: () => void }[] = [];
  let onHeld: { only?: RegExp; notify: (path: string) => void }[] = [];

  const answered: HoldProxy['answered'] = [];
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const range = req.headers.range ? ` ${req.headers.range}` : '';
    const entry = { request: `${req.method} ${req.url}${range}`, bytes: 0 };
    answered.push(entry);
    const out = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        // Hashed assets are cached for a year: a reload would take the bundle from the cache,
        // never from the proxy that must hold it.
        res.writeHead(
          answer.statusCode ?? 502,
          keepCaching ? answer.headers : { ...answer.headers, 'cache-control': 'no-store' },
        );
        answer.on('data', (chunk: Buffer) => (entry.bytes += chunk.length));
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };

  const seen: string[] = [];
  let down = false;
  const server = createServer((req, res) => {
    if (down) return void req.socket.destroy();
    const path = req.url ?? '/';
    seen.push(path);
    if (!pattern?.test(path)) return forward(req, res);
    waiting.push({ path, go: () => forward(req, res) });
    const now = onHeld.filter(({ only }) => !only || only.test(path));
    onHeld = onHeld.filter((waiter) => !now.includes(waiter));
    now.forEach(({ notify }) => notify(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    answered,
    hold: (next) => {
      pattern = next;
    },
    release: (only) => {
      if (!only) pattern = null;
      const go = waiting.filter(({ path }) => !only || only.test(path));
      waiting = waiting.filter((held) => !go.includes(held));
      go.forEach((held) => held.go());
    },
    linkDown: (next) => {
      down = next;
      if (down) server.closeAllConnections();
    },
    held: (only) =>
      new Promise((resolve) => {
        const already = waiting.find(({ path }) => !only || only.test(path));
        if (already) resolve(already.path);
        else onHeld.push({ only, notify: resolve });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
