import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { createHmac } from 'node:crypto';
import { parseFieldReport, REPORT_BODY_LIMIT, REPORTS_PATH } from '../../config/field-report.js';
import { apiError, errorHandler, UNAUTHORIZED } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { ReportStore } from '../report-store.js';
import { tokenFrom } from '../session-cookie.js';
import type { SessionStore } from '../sessions.js';

export interface ReportDeps {
  sessions: SessionStore;
  store: ReportStore;
  metrics: Metrics;
  perMinute: number;
  /** Keys the session's digest: the stored reports cannot be matched to a live cookie. */
  secret: string;
  redis: Redis | null;
}

const TOO_LARGE = apiError(
  'payload_too_large',
  `El informe supera los ${REPORT_BODY_LIMIT} bytes que se aceptan.`,
);

/**
 * POST {api}/api/reports: what a visitor's phone reports (config/field-report.ts), only from a
 * live session. Cheap before anything else: the limit per session and the session are checked
 * before the body is read, the body is capped and parsed once, and a kept report costs one
 * store write (a line appended, or one Redis script). Answers 204 whether the report is new or
 * a replay: either way the page may forget it.
 */
export async function reportRoutes(
  app: FastifyInstance,
  { sessions, store, metrics, perMinute, secret, redis }: ReportDeps,
) {
  // Same for every report of a session, and useless to anyone holding the store.
  const deviceOf = (token: string) =>
    createHmac('sha256', secret).update(`report:${token}`).digest('base64url').slice(0, 22);

  // sendBeacon sends a string as text/plain; a Blob may say application/json. Both are JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'text/plain'],
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );

  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    // Per session; a request without one is refused below, and limited by its address here.
    keyGenerator: (request: FastifyRequest) => {
      const token = tokenFrom(request);
      return token ? `session:${deviceOf(token)}` : `address:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) => ({ statusCode: context.statusCode }),
    ...(redis ? { redis, nameSpace: 'ratelimit-reports:', skipOnError: true } : {}),
  });

  // Before the body is read: no session, no work. A store that does not answer is a 503.
  app.addHook('onRequest', async (request, reply) => {
    const token = tokenFrom(request);
    if (!token || !(await sessions.get(token)))
      return reply.code(401).header('cache-control', 'no-store').send(UNAUTHORIZED);
  });

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.code(413).header('cache-control', 'no-store').send(TOO_LARGE);
    return errorHandler(error, request, reply);
  });

  app.post(REPORTS_PATH, { bodyLimit: REPORT_BODY_LIMIT }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const parsed = parseFieldReport(request.body);
    if ('field' in parsed) {
      metrics.report('invalid');
      return reply.code(400).send({
        ...apiError('invalid_report', `El informe no es válido (campo ${parsed.field}).`),
        field: parsed.field,
        problem: parsed.problem,
      });
    }
    // The hook above found the token.
    const kept = await store.add(deviceOf(tokenFrom(request)!), parsed.report);
    if (kept) metrics.fieldReport(parsed.report);
    else metrics.report('duplicate');
    return reply.code(204).send();
  });
}
