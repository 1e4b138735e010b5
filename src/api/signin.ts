import { QueryClient, useMutation } from '@tanstack/react-query';
import { MAX_FIELD_LENGTH, type VideoKey } from '../../machines/session';
import { markServerSession, signoutOwed } from '../auth/server-session';
import { resilientStorage } from '../auth/storage';
import { config } from '../config';
import { timeoutSignal } from './timeout-signal';

/**
 * The signin call: the fetcher, its typed result and the mutation hook. Every answer, and every
 * way of not getting one, ends as one of these results; nothing here throws, navigates or
 * shows anything.
 */
export type SigninResult =
  | { kind: 'ok'; empresa: string; nombres: string; videoKey?: VideoKey }
  | { kind: 'wrong' }
  | { kind: 'rateLimited'; retryAfterS: number }
  | { kind: 'failed' };

const SIGNIN_PATH = '/api/users/signin';

/** What we show when a 429 comes without a usable Retry-After. */
export const DEFAULT_RETRY_AFTER_S = 60;

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, nowMs: number): number {
  const value = header?.trim() ?? '';
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  // Date.parse takes almost anything ("-3", "1.5"); every HTTP date names a month.
  const dateMs = /[a-z]{3}/i.test(value) ? Date.parse(value) : NaN;
  if (Number.isFinite(dateMs)) return Math.max(1, Math.ceil((dateMs - nowMs) / 1000));
  return DEFAULT_RETRY_AFTER_S;
}

const isName = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_FIELD_LENGTH;

const failed = (reason: string, detail?: unknown): SigninResult => {
  console.error(`Signin failed: ${reason}`, ...(detail === undefined ? [] : [detail]));
  return { kind: 'failed' };
};

/** Maps a 2xx body: the spec reads a falsy answer as wrong credentials. */
function fromBody(text: string): SigninResult {
  if (text.trim() === '') return { kind: 'wrong' };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return failed('the answer is not JSON', error);
  }
  if (!data) return { kind: 'wrong' };
  if (typeof data === 'object') {
    const { empresa, nombres, videoKey } = data as Record<string, unknown>;
    if (isName(empresa) && isName(nombres))
      // Checked where it is read (video-key.ts): one that is not a key costs a request for it.
      return { kind: 'ok', empresa, nombres, videoKey: videoKey as VideoKey | undefined };
  }
  return failed('the answer has no empresa and nombres');
}

export async function signin(
  password: string,
  { timeoutMs = config.signinTimeoutMs }: { timeoutMs?: number } = {},
): Promise<SigninResult> {
  let response: Response;
  let text: string;
  await signoutOwed(resilientStorage());
  try {
    response = await fetch(`${config.apiUrl}${SIGNIN_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ form: { usuario: config.username, contraseña: password } }),
      credentials: 'include',
      // A request that hangs on a bad mobile link must end, or "Cargando..." never would.
      signal: timeoutSignal(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    return failed('no answer (offline, network error or timeout)', error);
  }
  if (response.ok) {
    const result = fromBody(text);
    if (result.kind === 'ok') markServerSession(resilientStorage());
    return result;
  }
  if (response.status === 401) return { kind: 'wrong' };
  if (response.status === 429) {
    return {
      kind: 'rateLimited',
      retryAfterS: parseRetryAfter(response.headers.get('Retry-After'), Date.now()),
    };
  }
  return failed(`HTTP ${response.status}`);
}

export const createQueryClient = () =>
  new QueryClient({ defaultOptions: { mutations: { retry: false } } });

/** The signin as a mutation; `onResult` hears every outcome, whether or not the screen is still there. */
export function useSigninMutation(onResult: (result: SigninResult) => void) {
  return useMutation({
    mutationFn: (password: string) => signin(password),
    onSuccess: onResult,
    // A signin is not idempotent from the rate limiter's point of view: never retry by itself.
    retry: false,
  });
}
