/**
 * The server's side of the session, as far as this phone knows it: whether its cookie may still
 * open the video. A signout made with no signal never reaches the server, so it is remembered
 * (SERVER_SESSION_KEY = 'ending') and sent again when the link returns or the next page starts;
 * meanwhile the page already acts signed out (the machine removed the stored session). A page
 * with no session of its own while the phone last had a live one on the server ('live') ends
 * that one too. Only the server's own 2xx clears what is owed.
 */
import type { SessionStorage } from '../../machines/session';
import { timeoutSignal } from '../api/timeout-signal';
import { config } from '../config';

export const SERVER_SESSION_KEY = 'server-session';

type Mark = 'live' | 'ending';

let sending: Promise<void> | null = null;

/** A signin succeeded: the server holds a session for this phone's cookie, made at this time. */
export const markServerSession = (storage: SessionStorage, nowMs = Date.now()) =>
  storage.setItem(SERVER_SESSION_KEY, `${'live' satisfies Mark}:${nowMs}`);

/** A signout with no answer by then is owed still: a signin waits for it no longer. */
const SIGNOUT_TIMEOUT_MS = 10_000;

function send(storage: SessionStorage): Promise<void> {
  // keepalive: a signout followed at once by a closed tab still leaves.
  sending ??= fetch(`${config.apiUrl}/api/users/signout`, {
    method: 'POST',
    credentials: 'include',
    keepalive: true,
    signal: timeoutSignal(SIGNOUT_TIMEOUT_MS),
  })
    .then(
      // The server's own answer; a 429 or a 5xx (or a portal's page) ended nothing.
      (response) => {
        if (response.ok && storage.getItem(SERVER_SESSION_KEY) === ('ending' satisfies Mark))
          storage.removeItem(SERVER_SESSION_KEY);
      },
      // No link: still 'ending', sent again by endPendingSignout.
      () => {},
    )
    .finally(() => {
      sending = null;
    });
  return sending;
}

/** Ends the server's session now, or as soon as the link allows. */
export function endServerSession(storage: SessionStorage): Promise<void> {
  storage.setItem(SERVER_SESSION_KEY, 'ending' satisfies Mark);
  return send(storage);
}

/**
 * Sends a signout still owed, or ends a session the server may still hold for this phone; only
 * for a page with no session of its own and no signin on its way (whose new cookie the
 * signout's answer would clear): the caller says so.
 */
export function endPendingSignout(
  storage: SessionStorage,
  pageStartedMs = performance.timeOrigin,
): Promise<void> {
  const [mark, at] = (storage.getItem(SERVER_SESSION_KEY) ?? '').split(':');
  // A session made by this very page (a press the boot script answered before the app, whose
  // success the app has yet to take) is not one to end.
  const before = Number(at) < pageStartedMs;
  if (mark === ('ending' satisfies Mark) || (mark === ('live' satisfies Mark) && before))
    return endServerSession(storage);
  return Promise.resolve();
}

/**
 * What a signin waits for (at most SIGNOUT_TIMEOUT_MS): a signout still owed is sent first, or
 * the one on its way answered, since the signout's answer clears the cookie, which would by then
 * be the signin's new one. (One sent by the other bundle, the boot script's, is owed until its
 * answer: this one then goes too, before the signin.)
 */
export function signoutOwed(storage: SessionStorage): Promise<void> {
  if (storage.getItem(SERVER_SESSION_KEY) === ('ending' satisfies Mark))
    return endServerSession(storage);
  return sending ?? Promise.resolve();
}
