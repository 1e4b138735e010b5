import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';

/**
 * The device cookie of OWASP's "Slow Down Online Guessing Attacks with Device Cookies": a
 * browser that has signed in once gets a signed random id, and its later attempts are limited
 * on their own (its own failures count against it) instead of with everyone at its address.
 * A guesser cannot get one without the password, and cannot forge one without the secret.
 * It identifies nothing but the browser, lives on after signout and holds no session.
 */
const PLAIN_NAME = 'dev';
const HOST_NAME = '__Host-dev';
const DEVICE_MAX_AGE_S = 180 * 24 * 3600;
const ID = /^[A-Za-z0-9_-]{22}$/;

const isHttps = (request: FastifyRequest) => request.protocol === 'https';
const cookieName = (request: FastifyRequest) => (isHttps(request) ? HOST_NAME : PLAIN_NAME);

/** The device id in the request's cookie when its signature is ours; null otherwise. */
export function deviceFrom(request: FastifyRequest): string | null {
  const raw = request.cookies[cookieName(request)];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value && ID.test(unsigned.value) ? unsigned.value : null;
}

/** Whose failures an attempt counts with: its device, or its address (a /64 for IPv6). */
export function limitBucket(request: FastifyRequest): string {
  const device = deviceFrom(request);
  return device ? `device:${device}` : normalizeIP(request.ip);
}

/** After a success: the same id again (its record stays), or a new one. */
export function setDeviceCookie(request: FastifyRequest, reply: FastifyReply) {
  const id = deviceFrom(request) ?? randomBytes(16).toString('base64url');
  reply.setCookie(cookieName(request), id, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: isHttps(request),
    signed: true,
    maxAge: DEVICE_MAX_AGE_S,
  });
}
