import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { SCREEN_PATHS } from '../config/paths.js';
import type { ServerConfig, TrustProxy } from './config.js';
import { clientErrorHandler, errorHandler, frameworkErrors, notFoundHandler } from './errors.js';
import {
  createMetrics,
  measuredLimiter,
  measuredSessions,
  measureRequests,
  type Metrics,
} from './metrics.js';
import { deviceCookies } from './device-cookie.js';
import { passwordFingerprint } from './password.js';
import { publishes } from './published.js';
import { createRedis, redisAnswers } from './redis.js';
import { RedisSessionStore } from './redis-sessions.js';
import { RedisSigninLimiter } from './redis-signin-limiter.js';
import { FileReportStore } from './file-report-store.js';
import { RedisReportStore } from './redis-report-store.js';
import { DAY_MS, type ReportStore } from './report-store.js';
import { healthRoutes } from './routes/health.js';
import { mediaRoutes } from './routes/media.js';
import { reportRoutes } from './routes/reports.js';
import { signinRoute, signoutRoute } from './routes/signin.js';
import { siteRoutes } from './routes/site.js';
import { staffRoutes } from './routes/staff.js';
import { registerSecurityHeaders } from './security.js';
import { MemorySessionStore, type SessionStore } from './sessions.js';
import { slots } from './slots.js';
import { SigninLimiter, type AttemptLimiter } from './signin-limiter.js';

/** Where pino writes; tests pass a stream to read the log lines. */
interface LogDestination {
  write(line: string): void;
}

export interface ServerDeps {
  /** Milliseconds since the epoch, for sessions and the signin limiter. */
  now?: () => number;
  logStream?: LogDestination;
  sessions?: SessionStore;
  /** Set by index.ts on SIGTERM: /readyz then answers 503 while requests in flight finish. */
  lifecycle?: { draining: boolean };
  /** What index.ts serves on METRICS_PORT; tests read it directly. */
  metrics?: Metrics;
  /** Shorter limits for tests of slow clients; SOCKET_LIMITS otherwise. */
  socketLimits?: SocketLimits;
}

export interface SocketLimits {
  /** Time to receive a request's headers. */
  headersMs: number;
  /** Time to receive a whole request, headers and body (not to stream a response). */
  requestMs: number;
  /** A connection with no byte either way for this long is closed (a client not reading). */
  idleMs: number;
}

/**
 * Against slow clients (docs/deploying.md, SECURITY.md). Node checks the first two on a timer
 * (30 s by default, which let a slow body live 70 s): every second here. It cuts a body at the
 * larger of the two, so headersMs must not exceed requestMs.
 */
export const SOCKET_LIMITS: SocketLimits = { headersMs: 10_000, requestMs: 30_000, idleMs: 60_000 };
const CHECK_INTERVAL_MS = 1_000;

/** How long /readyz waits for Redis's PONG. */
const READY_PING_MS = 250;

/** Nothing the server accepts is larger than a signin; refuse big bodies before parsing. */
export const BODY_LIMIT = 64 * 1024;

/**
 * Never logged: cookies (live sessions) and request bodies (the password). The request
 * serializer does not log bodies; these paths guard against a future `log.info({ body })`.
 */
const REDACT = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'body',
  'req.body',
  'form',
  '*.form',
  'password',
  '*.password',
  '["contraseña"]',
  '*["contraseña"]',
];

function fastifyTrustProxy(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (typeof trust === 'boolean' || Array.isArray(trust)) return trust;
  // Fastify 5 ignores a bare hop count (it cannot check the peer); spell out what it meant.
  return (_address: string, hop: number) => hop < trust.hops;
}

/** A person at a terminal reads lines; everything else (production, files, tests) gets JSON. */
function readableLogs(config: ServerConfig): { transport?: { target: string; options: object } } {
  if (config.production || !process.stdout.isTTY) return {};
  return {
    transport: {
      target: 'pino-pretty',
      options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' },
    },
  };
}

/** Builds the whole server without listening: tests use `inject`, index.ts listens. */
export async function buildServer(
  config: ServerConfig,
  deps: ServerDeps = {},
): Promise<FastifyInstance> {
  const now = deps.now ?? Date.now;
  const limits = deps.socketLimits ?? SOCKET_LIMITS;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACT, censor: '[redacted]' },
      ...(deps.logStream ? { stream: deps.logStream } : readableLogs(config)),
    },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: BODY_LIMIT,
    // Slow-loris protection: each limit cuts within CHECK_INTERVAL_MS of its time.
    requestTimeout: limits.requestMs,
    connectionTimeout: limits.idleMs,
    http: { headersTimeout: limits.headersMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ajv: {
      // Fastify's defaults would turn 123 into "123" and drop unknown fields silently.
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: false,
      },
    },
    frameworkErrors,
    clientErrorHandler,
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler(`${config.basePath}${SCREEN_PATHS.login}`));
  // Only JSON bodies mean anything here; a text body must get 415, not reach a handler.
  app.removeContentTypeParser('text/plain');

  const { maxConcurrentHashes, maxWaitingHashes, ...signinLimits } = config.signin;
  // One line for the CPU: the visitors' and the staff's signins.
  const hashing = slots(maxConcurrentHashes);
  const maxAttemptsInFlight = maxConcurrentHashes + maxWaitingHashes;
  const ttlMs = config.sessionTtlS * 1000;
  const lifecycle = deps.lifecycle ?? { draining: false };
  // Sessions in Redis and device cookies are bound to this: a new PASSWORD_HASH ends them all
  // (sessions in memory end with the process anyway).
  const password = passwordFingerprint(config.passwordHash);
  const devices = deviceCookies(password);

  let sessions: SessionStore;
  let limiter: AttemptLimiter;
  let ready = async () => !lifecycle.draining;
  const redis = config.redisUrl ? createRedis(config.redisUrl) : null;
  if (redis) {
    // Registered first, so it runs last: after the requests in flight and the other hooks.
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
    // ioredis reports every failed reconnection; the log says when the link changes.
    let up = false;
    redis.on('ready', () => {
      up = true;
      app.log.info('Redis connected');
    });
    redis.on('error', (error: Error) => {
      if (up) app.log.error({ err: error }, 'Redis unreachable: answering 503 until it is back');
      up = false;
    });
    await redis.connect().catch((error: unknown) => {
      app.log.error({ err: error }, 'Redis unreachable at start: answering 503 until it is back');
    });
    sessions = deps.sessions ?? new RedisSessionStore(redis, ttlMs, password);
    limiter = new RedisSigninLimiter(redis, { ...signinLimits, maxAttemptsInFlight });
    ready = async () => !lifecycle.draining && (await redisAnswers(redis, READY_PING_MS));
  } else {
    sessions =
      deps.sessions ?? new MemorySessionStore({ ttlMs, maxSessions: config.maxSessions, now });
    limiter = new SigninLimiter({ ...signinLimits, maxAttemptsInFlight, now });
  }
  const metrics = deps.metrics ?? createMetrics();
  sessions = measuredSessions(sessions, metrics);
  limiter = measuredLimiter(limiter, metrics);
  measureRequests(app, metrics, config.basePath);
  app.addHook('onClose', async () => sessions.close());

  // One reader of MEDIA_DIR for the signin (the served key) and the video routes.
  const media = config.mediaDir ? publishes(config.mediaDir, config.mediaKeysDir!) : null;

  await registerSecurityHeaders(app, config);
  await app.register(cookie, { secret: config.sessionSecret });

  await app.register(async (users) => {
    // A coarse request ceiling per address (per device for a browser with a device cookie),
    // whatever the outcome (bad bodies included), checked before the body is read: against
    // floods, set above what a crowd sends. Failed passwords have their own, finer limiter.
    await users.register(rateLimit, {
      global: true,
      max: config.signin.maxRequestsPerMinute,
      timeWindow: 60_000,
      keyGenerator: devices.limitBucket,
      errorResponseBuilder: (_request, context) => ({ statusCode: context.statusCode }),
      // Shared by the instances. While Redis is down the counters are skipped: the signin
      // itself then answers 503, and a signout still clears the cookie.
      ...(redis ? { redis, nameSpace: 'ratelimit:', skipOnError: true } : {}),
    });
    await users.register(signinRoute, {
      config,
      sessions,
      limiter,
      metrics,
      hashing,
      devices,
      media,
    });
    await users.register(signoutRoute, { sessions });
  });
  let store: ReportStore | null = null;
  if (config.reports) {
    const { dataDir, retentionDays, perMinute } = config.reports;
    const retentionMs = retentionDays * DAY_MS;
    // With REDIS_URL every instance adds to one stream; without it, a file in DATA_DIR (opened
    // at the first report: a server that gets none writes nothing).
    const reports = redis
      ? new RedisReportStore(redis, retentionMs, now)
      : new FileReportStore({ dir: dataDir, retentionMs, now });
    store = reports;
    app.addHook('onClose', async () => reports.close());
    // A line per report would double the log of every view; refusals of note are warnings.
    await app.register(reportRoutes, {
      logLevel: 'warn',
      sessions,
      store: reports,
      metrics,
      perMinute,
      secret: config.sessionSecret,
      redis,
    });
  }
  await app.register(healthRoutes, { ready });
  await app.register(mediaRoutes, { config, sessions, media });
  await app.register(staffRoutes, { config, limiter, hashing, store, media, redis, now });
  await app.register(siteRoutes, { config });

  return app;
}
