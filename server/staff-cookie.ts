import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The staff page's cookie, apart from the visitors' session: `__Host-staff` over HTTPS (Secure,
 * Path=/, no Domain, like `__Host-sid`). It holds no token to look up: its value says until when
 * it is good and for which STAFF_PASSWORD_HASH (its fingerprint), signed with SESSION_SECRET like
 * the session cookie. A new staff password ends every staff cookie; signout clears it in the
 * browser (docs/staff-page.md says what that means for a copied cookie).
 */
const PLAIN_NAME = 'staff';
const HOST_NAME = '__Host-staff';
const VALUE = /^staff\.(\d{1,12})\.([A-Za-z0-9_-]{1,64})$/;

const isHttps = (request: FastifyRequest) => request.protocol === 'https';
const cookieName = (request: FastifyRequest) => (isHttps(request) ? HOST_NAME : PLAIN_NAME);

const cookieOptions = (request: FastifyRequest) =>
  ({ path: '/', httpOnly: true, sameSite: 'strict', secure: isHttps(request) }) as const;

export interface StaffCookies {
  /** Whether the request carries a staff cookie of ours, for this password, not yet expired. */
  signedIn(request: FastifyRequest): boolean;
  set(request: FastifyRequest, reply: FastifyReply): void;
  clear(request: FastifyRequest, reply: FastifyReply): void;
}

/** `password`: the fingerprint of STAFF_PASSWORD_HASH (server/password.ts). */
export function staffCookies(password: string, ttlS: number, now: () => number): StaffCookies {
  return {
    signedIn(request) {
      const raw = request.cookies[cookieName(request)];
      if (!raw) return false;
      const unsigned = request.unsignCookie(raw);
      const match = unsigned.valid && unsigned.value ? VALUE.exec(unsigned.value) : null;
      return match !== null && match[2] === password && Number(match[1]) * 1000 > now();
    },
    set(request, reply) {
      const expiresS = Math.floor(now() / 1000) + ttlS;
      reply.setCookie(cookieName(request), `staff.${expiresS}.${password}`, {
        ...cookieOptions(request),
        signed: true,
        maxAge: ttlS,
      });
    },
    clear(request, reply) {
      reply.clearCookie(cookieName(request), cookieOptions(request));
    },
  };
}
