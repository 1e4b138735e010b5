/** The part of autocannon 8's API that the bench and the load test use (it ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests per second over all connections. */
    overallRate?: number;
    headers?: Record<string, string>;
    requests?: Request[];
    /** Seconds before a request counts as timed out. */
    timeout?: number;
  }

  export interface Result {
    timeouts: number;
    requests: { total: number };
    statusCodeStats: Record<string, { count: number }>;
  }

  /** Emits 'start', 'response' (client, status, bytes, ms) and 'reqError' (error). */
  export default function autocannon(options: Options): EventEmitter & PromiseLike<Result>;
}
