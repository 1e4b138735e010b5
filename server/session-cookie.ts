import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Session, SessionStore } from './sessions.js';

/**
 * The session cookie. Over HTTPS it is `__Host-sid`: the browser then insists on Secure,
 * Path=/ and no Domain, so a sibling subdomain or a plain-HTTP page cannot plant one.
 * Its Max-Age is the server session's remaining lifetime: a browser restarted within it keeps
 * the visitor in (the spec's rehydration), and the browser drops it when the session ends.
 */
const PLAIN_NAME = 'sid';
const HOST_NAME = '__Host-sid';

const isHttps = (request: FastifyRequest) => request.protocol === 'https';

const cookieName = (request: FastifyRequest) => (isHttps(request) ? HOST_NAME : PLAIN_NAME);

const cookieOptions = (request: FastifyRequest) =>
  ({
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: isHttps(request),
  }) as const;

/** The token in the request's cookie when its signature is ours; null otherwise. */
export function tokenFrom(request: FastifyRequest): string | null {
  const raw = request.cookies[cookieName(request)];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : null;
}

export async function liveSession(
  request: FastifyRequest,
  store: SessionStore,
): Promise<Session | null> {
  const token = tokenFrom(request);
  return token ? store.get(token) : null;
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  remainingMs: number,
) {
  reply.setCookie(cookieName(request), token, {
    ...cookieOptions(request),
    signed: true,
    // Rounded down: the cookie never outlives the session.
    maxAge: Math.max(0, Math.floor(remainingMs / 1000)),
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  reply.clearCookie(cookieName(request), cookieOptions(request));
}
