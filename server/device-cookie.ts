import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';

/**
 * The device cookie of OWASP's "Slow Down Online Guessing Attacks with Device Cookies": a
 * browser that has signed in once gets a signed random id, and its later attempts are limited
 * on their own (its own failures count against it) instead of with everyone at its address.
 * A guesser cannot get one without the password, and cannot forge one without the secret.
 * It identifies nothing but the browser, lives on after signout and holds no session.
 *
 * The id is bound to the password it was earned with (`id.fingerprint`, signed): after a
 * password change an old device cookie counts for nothing, so cookies collected under the old
 * password give no allowance of guesses against the new one.
 */
const PLAIN_NAME = 'dev';
const HOST_NAME = '__Host-dev';
const DEVICE_MAX_AGE_S = 180 * 24 * 3600;
const VALUE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]+)$/;

const isHttps = (request: FastifyRequest) => request.protocol === 'https';
const cookieName = (request: FastifyRequest) => (isHttps(request) ? HOST_NAME : PLAIN_NAME);

export interface DeviceCookies {
  /** The device id when the cookie is signed by us under the password in force; null otherwise. */
  deviceFrom(request: FastifyRequest): string | null;
  /** Whose failures an attempt counts with: its device, or its address (a /64 for IPv6). */
  limitBucket(request: FastifyRequest): string;
  /** After a success: the same id again (its record stays), or a new one. */
  setDeviceCookie(request: FastifyRequest, reply: FastifyReply): void;
}

/** `password`: the fingerprint of the PASSWORD_HASH in force (server/password.ts). */
export function deviceCookies(password: string): DeviceCookies {
  const deviceFrom = (request: FastifyRequest) => {
    const raw = request.cookies[cookieName(request)];
    if (!raw) return null;
    const unsigned = request.unsignCookie(raw);
    const match = unsigned.valid && unsigned.value ? VALUE.exec(unsigned.value) : null;
    return match && match[2] === password ? (match[1] as string) : null;
  };
  return {
    deviceFrom,
    limitBucket(request) {
      const device = deviceFrom(request);
      return device ? `device:${device}` : normalizeIP(request.ip);
    },
    setDeviceCookie(request, reply) {
      const id = deviceFrom(request) ?? randomBytes(16).toString('base64url');
      reply.setCookie(cookieName(request), `${id}.${password}`, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: isHttps(request),
        signed: true,
        maxAge: DEVICE_MAX_AGE_S,
      });
    },
  };
}
