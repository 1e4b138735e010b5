import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.js';
import { apiError } from '../errors.js';
import { MAX_FIELD_LENGTH } from '../../machines/session.js';
import type { Metrics } from '../metrics.js';
import type { DeviceCookies } from '../device-cookie.js';
import { verifyPassword } from '../password.js';
import type { Publishes } from '../published.js';
import { clearSessionCookie, setSessionCookie, tokenFrom } from '../session-cookie.js';
import type { SessionStore } from '../sessions.js';
import type { AttemptLimiter, Refusal } from '../signin-limiter.js';

/** ASVS asks for at least 64 characters; beyond a few hundred nobody types a password. */
export const MAX_PASSWORD_LENGTH = 1024;
/** Room for a maximal password in 4-byte characters, and no more. */
export const SIGNIN_BODY_LIMIT = 8 * 1024 + 4 * MAX_PASSWORD_LENGTH;
/** A signout's body means nothing; a little is tolerated, not read. */
export const SIGNOUT_BODY_LIMIT = 1024;

/**
 * Strict on purpose: Ajv is told (in app.ts) not to coerce or strip, so a number is not
 * turned into "123" and an extra field is refused instead of silently dropped.
 */
const bodySchema = {
  type: 'object',
  required: ['form'],
  additionalProperties: false,
  properties: {
    form: {
      type: 'object',
      required: ['usuario', 'contraseña'],
      additionalProperties: false,
      properties: {
        usuario: { type: 'string', minLength: 1, maxLength: MAX_FIELD_LENGTH },
        contraseña: { type: 'string', minLength: 1, maxLength: MAX_PASSWORD_LENGTH },
      },
    },
  },
} as const;

interface SigninBody {
  form: { usuario: string; contraseña: string };
}

export interface SigninDeps {
  config: ServerConfig;
  sessions: SessionStore;
  limiter: AttemptLimiter;
  metrics: Metrics;
  /** Runs each hash when a slot is free (see slots.ts). */
  hashing: <T>(task: () => Promise<T>) => Promise<T>;
  devices: DeviceCookies;
  /** MEDIA_DIR's publishes, or null (the single MP4). */
  media: Publishes | null;
}

/** The served publish's key, for the browser to play it without asking for it. */
export interface VideoKey {
  id: string;
  /** Base64 of the 16 bytes. */
  key: string;
}

const WRONG = apiError('invalid_credentials', 'Usuario o contraseña incorrectos.');

function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  refusal: Refusal,
  trusted: (request: FastifyRequest) => boolean,
) {
  request.log.warn(
    {
      signin: {
        outcome: 'rate_limited',
        reason: refusal.reason,
        address: request.ip,
        device: trusted(request),
      },
    },
    'signin attempt',
  );
  return reply
    .code(429)
    .header('retry-after', String(refusal.retryAfterS))
    .send({
      ...apiError(
        'too_many_attempts',
        `Demasiados intentos. Espere ${refusal.retryAfterS} segundos y vuelva a intentar.`,
      ),
      retryAfterS: refusal.retryAfterS,
    });
}

export async function signinRoute(
  app: FastifyInstance,
  { config, sessions, limiter, metrics, hashing, devices, media }: SigninDeps,
) {
  /** The served publish's key when it is encrypted and its key can be read; else nothing. */
  const videoKey = async (request: FastifyRequest): Promise<{ videoKey?: VideoKey }> => {
    const served = await media?.servedKey();
    if (!served) return {};
    if ('problem' in served) {
      // The page then asks for it (key.bin), which logs the same and answers 404.
      request.log.warn(
        { videoKey: { id: served.id, problem: served.problem } },
        'video key missing',
      );
      return {};
    }
    return { videoKey: { id: served.id, key: served.key.toString('base64') } };
  };

  /** Whether the attempt came with a device cookie; the cookie itself is never logged. */
  const trusted = (request: FastifyRequest) => devices.deviceFrom(request) !== null;

  app.post<{ Body: SigninBody }>(
    '/api/users/signin',
    {
      schema: { body: bodySchema },
      bodyLimit: SIGNIN_BODY_LIMIT,
      // Every 503 here comes from the store (redis.ts): the outcome an operator must see.
      onError: async (_request, _reply, error) => {
        if (error.statusCode === 503) metrics.signin('store_unavailable');
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // A store that does not answer is a 503 here, before any hashing. The attempt may wait
      // here for its turn behind others from its address.
      const admission = await limiter.admit(devices.limitBucket(request));
      if (!admission.ok) {
        metrics.signin('limited');
        return refuse(request, reply, admission, trusted);
      }

      const { usuario, contraseña } = request.body.form;
      let accepted = false;
      let abandoned = false;
      try {
        // The hash runs whatever the username, so a wrong username takes as long as a wrong
        // password and the answer is the same. Not for a visitor who has stopped waiting (the
        // app gives up after SIGNIN_TIMEOUT_MS; a proxy then closes its connection too): nobody
        // would read the answer, and the hash would only delay everyone behind in the line.
        const passwordOk = await hashing(async () => {
          abandoned = request.raw.socket?.destroyed ?? false;
          return !abandoned && (await verifyPassword(contraseña, config.passwordHash));
        });
        accepted = passwordOk && usuario === config.username;
      } finally {
        // Awaited: a wrong password is revealed only once its failure is recorded. An attempt
        // left unhashed checked no guess: it is settled as one that records no failure.
        if (accepted || abandoned) await admission.ticket.succeeded();
        else await admission.ticket.failed();
      }
      if (abandoned) {
        request.log.info(
          { signin: { outcome: 'abandoned', address: request.ip, device: trusted(request) } },
          'signin attempt',
        );
        // nginx's code for a client that closed its request; nobody reads it.
        return reply.code(499).send();
      }

      const outcome = accepted ? 'success' : 'invalid_credentials';
      request.log.info(
        { signin: { outcome, address: request.ip, device: trusted(request) } },
        'signin attempt',
      );
      if (!accepted) {
        metrics.signin('wrong_password');
        return reply.code(401).send(WRONG);
      }

      // A new token at every signin; an older session carried by this browser ends here.
      const previous = tokenFrom(request);
      if (previous) await sessions.delete(previous);
      const { token, session } = await sessions.create();
      setSessionCookie(request, reply, token, session.expiresAt - session.createdAt);
      devices.setDeviceCookie(request, reply);
      metrics.signin('accepted');
      return { empresa: config.empresa, nombres: config.nombres, ...(await videoKey(request)) };
    },
  );
}

export async function signoutRoute(app: FastifyInstance, { sessions }: { sessions: SessionStore }) {
  // The body means nothing here; whatever a client sends (none, {}, text) must not turn a
  // logout into a 400 or 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: SIGNOUT_BODY_LIMIT },
    (_request, _body, done) => done(null, undefined),
  );
  app.post('/api/users/signout', async (request, reply) => {
    const token = tokenFrom(request);
    // The browser forgets the cookie even when the store cannot end the session now.
    clearSessionCookie(request, reply);
    if (token) await sessions.delete(token);
    request.log.info({ signout: { ended: token !== null, address: request.ip } }, 'signout');
    return reply.code(204).header('cache-control', 'no-store').send();
  });
}
