/**
 * The session as it is kept in local storage, and its parsing from untrusted JSON.
 * Anything can be in local storage (another script, an old version, a curious visitor),
 * so nothing stored is believed until it has been checked here.
 */

/** The local-storage key the spec names. */
export const SESSION_KEY = 'session';

/**
 * The video's key (encrypted publishes, docs/publishing.md), from the signin's answer: stored
 * with the session and removed with it, so that what the browser cached of the video is noise
 * once the session ends (the downloaded copy keeps its own, for its own period).
 */
export const VIDEO_KEY_KEY = 'video-key';

/** A publish's id (the prefix of its renditions' folders) and its key, base64. */
export interface VideoKey {
  id: string;
  key: string;
}

/*
 * The session's lifetime: the spec's two numbers, and the server's one setting.
 *
 * - SESSION_MAX_AGE_S, 7,200 s (spec §4, §9): the client's check at start. A stored session
 *   counts only while younger than this since its `timestamp`. The spec's, fixed: a constant.
 * - SESSION_TIMEOUT_MS, 72,000,000 ms (spec §4, §9): the client's timer, from login or
 *   rehydration to logout. The spec calls it "2 hours" but the number is 20 h; we keep the
 *   number. The build setting of the same name overrides it (design: "the build can override
 *   it"); its default is this constant.
 * - SESSION_TTL_S (config/settings.ts), 7,200 s by default: the server's session, from signin
 *   (the video's gate, the cookie's Max-Age, a page copy's life). Not in the spec (which has no
 *   server session): how long a deployment trusts a cookie is the operator's choice, so it is a
 *   setting, defaulting to the spec's 7,200 s. It does not move the client's check above: a
 *   shorter one ends the video on the server first (the app then shows the expired notice), a
 *   longer one outlives the stored session (a visitor who comes back after 7,200 s signs in
 *   again).
 *
 * docs/decisions.md #8 says the same for readers; tests/config/session-lifetime.test.ts holds it.
 */

/** Startup check: a stored session counts only while younger than this (spec §4, §9). */
export const SESSION_MAX_AGE_S = 7_200;

/** The inactivity timer of the spec (§4, §9): 20 h, though the spec calls it "2 hours". */
export const SESSION_TIMEOUT_MS = 72_000_000;

/** Longer strings are not a name anyone types; refusing them keeps rendering cheap. */
export const MAX_FIELD_LENGTH = 200;

export interface Session {
  loggedIn: true;
  username: string;
  /** Seconds since the epoch at login, whole seconds. */
  timestamp: number;
  empresa: string;
  nombres: string;
}

/** What the machine needs from local storage; `window.localStorage` fits, so does a Map. */
export interface SessionStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const isShortString = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_FIELD_LENGTH;

/**
 * Returns the session when `raw` is a well-formed session whose age at `nowMs` is at least
 * 0 and under SESSION_MAX_AGE_S seconds; otherwise null. Never throws.
 */
export function parseSession(raw: string | null, nowMs: number): Session | null {
  if (raw === null || raw.length > 10 * MAX_FIELD_LENGTH) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { loggedIn, username, timestamp, empresa, nombres } = value as Record<string, unknown>;
  if (loggedIn !== true) return null;
  if (!isShortString(username) || !isShortString(empresa) || !isShortString(nombres)) return null;
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) return null;
  const ageS = nowMs / 1000 - timestamp;
  if (ageS < 0 || ageS >= SESSION_MAX_AGE_S) return null;
  return { loggedIn, username, timestamp, empresa, nombres };
}

/** A new session as saved at login; the timestamp is in whole seconds (spec §3). */
export function newSession(
  user: { username: string; empresa: string; nombres: string },
  nowMs: number,
): Session {
  return {
    loggedIn: true,
    username: user.username,
    timestamp: Math.floor(nowMs / 1000),
    empresa: user.empresa,
    nombres: user.nombres,
  };
}

/** In-memory storage for tests and for browsers where local storage throws (private mode). */
export function memoryStorage(initial: Record<string, string> = {}): SessionStorage & {
  snapshot(): Record<string, string>;
} {
  const items = new Map(Object.entries(initial));
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
    snapshot: () => Object.fromEntries(items),
  };
}
