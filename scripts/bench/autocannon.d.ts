/** The part of autocannon 8's API that the bench and the load test use (it ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  type Context = Record<string, unknown>;
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request, context: Context) => Request;
    /** Called with every answer; autocannon keeps the body for it. */
    onResponse?: (status: number, body: string, context: Context, headers: Context) => void;
  }

  interface Result {
    timeouts: number;
    requests: { total: number };
    statusCodeStats: Record<string, { count: number }>;
  }

  /**
   * Options as its README names them (url, connections, duration, overallRate, timeout in
   * seconds, headers, requests); emits 'start', 'response' (client, status, bytes, ms), 'reqError'.
   */
  type Options = { url: string; requests?: Request[] } & Record<string, unknown>;
  export default function autocannon(options: Options): EventEmitter & PromiseLike<Result>;
}
