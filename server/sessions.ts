import { createHash, randomBytes } from 'node:crypto';

/**
 * Server-side sessions: what makes signout and expiry real (a signed cookie alone cannot be
 * revoked). The interface is async and keyed by the opaque token so that a shared store
 * (e.g. Redis: SET key EX ttl / GET / DEL) can replace the in-memory one when several
 * instances run behind a load balancer.
 */

export interface Session {
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  /** Starts a session with a new random token (256 bits, base64url). */
  create(): Promise<{ token: string; session: Session }>;
  /** The live session for this token, or null (unknown, ended or expired). */
  get(token: string): Promise<Session | null>;
  delete(token: string): Promise<void>;
  /** Stops background work; the process can exit after it. */
  close(): Promise<void>;
}

export interface MemorySessionStoreOptions {
  /** Absolute lifetime from signin. */
  ttlMs: number;
  /** When full, the least recently used session is dropped to make room. */
  maxSessions: number;
  now?: () => number;
  sweepIntervalMs?: number;
}

/**
 * Only a digest of each token is kept, so a heap dump or a log of this map does not hand
 * out live cookies.
 */
export const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

export class MemorySessionStore implements SessionStore {
  /** Map order is recency: get() moves a session to the end, eviction takes from the front. */
  private readonly sessions = new Map<string, Session>();
  private readonly ttlMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;

  constructor(options: MemorySessionStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.maxSessions = options.maxSessions;
    this.now = options.now ?? Date.now;
    this.timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    // A sweep never needs to keep the process alive.
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async create(): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const createdAt = this.now();
    const session: Session = { createdAt, expiresAt: createdAt + this.ttlMs };
    if (this.sessions.size >= this.maxSessions) this.sweep();
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next();
      if (oldest.done) break;
      this.sessions.delete(oldest.value);
    }
    this.sessions.set(digest(token), session);
    return { token, session };
  }

  async get(token: string): Promise<Session | null> {
    const key = digest(token);
    const session = this.sessions.get(key);
    if (!session) return null;
    this.sessions.delete(key);
    if (session.expiresAt <= this.now()) return null;
    this.sessions.set(key, session);
    return session;
  }

  async delete(token: string): Promise<void> {
    this.sessions.delete(digest(token));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  /** Drops every expired session. */
  sweep(): void {
    const now = this.now();
    for (const [key, session] of this.sessions) {
      if (session.expiresAt <= now) this.sessions.delete(key);
    }
  }
}
