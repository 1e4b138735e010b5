import { normalizeIP } from '@fastify/rate-limit';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { readFile } from 'node:fs/promises';
import { parseWebVtt } from '../../machines/webvtt.js';
import type { ServerConfig } from '../config.js';
import { passwordFingerprint, verifyPassword } from '../password.js';
import { servedDurationS, type Publishes } from '../published.js';
import type { ReportStore } from '../report-store.js';
import { summarize } from '../report-summary.js';
import { staffCookies } from '../staff-cookie.js';
import { reportPage, signinPage, STAFF_CSS_PATH, STAFF_PATH } from '../staff-page.js';
import { parsePeriod } from '../staff-period.js';
import { STAFF_CSS } from '../staff-style.js';
import type { AttemptLimiter } from '../signin-limiter.js';
import { trackFiles } from '../track-files.js';
import { MAX_PASSWORD_LENGTH } from './signin.js';

export interface StaffDeps {
  config: ServerConfig;
  /** The visitors' signin limiter (Redis with REDIS_URL): the staff's attempts get its rules. */
  limiter: AttemptLimiter;
  /** The visitors' hashing slots: a staff signin queues for the CPU like any other. */
  hashing: <T>(task: () => Promise<T>) => Promise<T>;
  /** Null with REPORTS=off. */
  store: ReportStore | null;
  media: Publishes | null;
  redis: Redis | null;
  now: () => number;
}

/** A form with one password: a little room, no more. */
const FORM_BODY_LIMIT = 4 * 1024 + 4 * MAX_PASSWORD_LENGTH;

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
};

/**
 * {base}/equipo: the company's staff page (docs/staff-page.md), HTML drawn here with no script,
 * behind STAFF_PASSWORD_HASH. Without that setting every path under it answers 404.
 */
export async function staffRoutes(app: FastifyInstance, deps: StaffDeps) {
  const { config, limiter, hashing, store, media, now } = deps;
  const base = config.basePath;
  const page = `${base}${STAFF_PATH}`;
  const staff = config.staff;

  if (!staff) {
    // Not the usual redirect to the login: the page does not exist, and says nothing of itself.
    const off = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(404).header('x-robots-tag', 'noindex, nofollow').send({ error: 'not_found' });
    app.all(page, off);
    app.all(`${page}/*`, off);
    return;
  }

  const cookies = staffCookies(passwordFingerprint(staff.passwordHash), staff.ttlS, now);
  const html = (reply: FastifyReply, status: number, text: string) =>
    reply.code(status).headers(PAGE_HEADERS).send(text);

  // Only this form's body, parsed as the browser sends it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  // The same coarse ceiling per address as /api/users/*, apart from the visitors' counts.
  await app.register(rateLimit, {
    global: true,
    max: config.signin.maxRequestsPerMinute,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, context) => ({ statusCode: context.statusCode }),
    ...(deps.redis ? { redis: deps.redis, nameSpace: 'ratelimit-staff:', skipOnError: true } : {}),
  });

  app.get(`${base}${STAFF_CSS_PATH}`, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(STAFF_CSS),
  );

  /** The chapters of the served publish (or CHAPTERS_FILE); none when there are none. */
  const chapters = async () => {
    const dir = media ? (await media.served()).dir : null;
    const text = await readFile(trackFiles(config, dir).chapters, 'utf8').catch(() => '');
    return (parseWebVtt(text) ?? []).map((cue) => ({ startS: cue.startS, title: cue.text }));
  };

  app.get<{ Querystring: Record<string, unknown> }>(page, async (request, reply) => {
    if (!cookies.signedIn(request)) return html(reply, 401, signinPage(base, null));
    const period = parsePeriod(request.query, now());
    const duration = config.mediaDir ? await servedDurationS(config.mediaDir) : null;
    const summary = await summarize(store ? store.since(period.since) : [], period, duration);
    return html(reply, 200, reportPage(base, summary, period, await chapters(), store !== null));
  });

  app.post<{ Body: Record<string, string> | undefined }>(
    `${page}/ingresar`,
    async (request, reply) => {
      const password = request.body?.contrasena ?? '';
      if (password === '' || password.length > MAX_PASSWORD_LENGTH)
        return html(reply, 400, signinPage(base, 'Escriba la contraseña del equipo.'));
      // Its own bucket per address: the staff's typos never slow the visitors' signin.
      const admission = await limiter.admit(`staff:${normalizeIP(request.ip)}`);
      if (!admission.ok) {
        request.log.warn(
          { staffSignin: { outcome: 'rate_limited', address: request.ip } },
          'staff signin',
        );
        return html(
          reply.header('retry-after', String(admission.retryAfterS)),
          429,
          signinPage(
            base,
            `Demasiados intentos. Espere ${admission.retryAfterS} segundos y vuelva a intentar.`,
          ),
        );
      }
      let accepted = false;
      try {
        accepted = await hashing(() => verifyPassword(password, staff.passwordHash));
      } finally {
        if (accepted) await admission.ticket.succeeded();
        else await admission.ticket.failed();
      }
      const outcome = accepted ? 'success' : 'invalid_credentials';
      request.log.info({ staffSignin: { outcome, address: request.ip } }, 'staff signin');
      if (!accepted) return html(reply, 401, signinPage(base, 'Contraseña incorrecta.'));
      cookies.set(request, reply);
      // See-other: a reload of the report never posts the password again.
      return reply.header('cache-control', 'no-store').redirect(page, 303);
    },
  );

  app.post(`${page}/salir`, async (request, reply) => {
    cookies.clear(request, reply);
    return reply.header('cache-control', 'no-store').redirect(page, 303);
  });
}
