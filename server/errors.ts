import type {
  ConnectionError,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Every error leaves as `{ error, message }` JSON. Messages are written here, never copied
 * from the error: parser and validator messages may quote the request body (the password),
 * and stacks or file paths help nobody but an attacker.
 */

export interface ApiError {
  error: string;
  message: string;
}

export const apiError = (error: string, message: string): ApiError => ({ error, message });

/** Also nginx's own answers (scripts/ops/nginx.ts), so that the page reads both alike. */
export const CLIENT_ERRORS: Record<number, ApiError> = {
  400: apiError('bad_request', 'La solicitud no es válida.'),
  401: apiError('unauthorized', 'Inicie sesión para continuar.'),
  403: apiError('forbidden', 'Acceso denegado.'),
  404: apiError('not_found', 'No encontrado.'),
  405: apiError('method_not_allowed', 'Método no permitido.'),
  408: apiError('request_timeout', 'La solicitud tardó demasiado.'),
  413: apiError('payload_too_large', 'La solicitud es demasiado grande.'),
  415: apiError('unsupported_media_type', 'Tipo de contenido no admitido: envíe application/json.'),
  416: apiError('range_not_satisfiable', 'El rango pedido no existe en el archivo.'),
  429: apiError('too_many_requests', 'Demasiadas solicitudes. Intente más tarde.'),
  431: apiError('headers_too_large', 'Los encabezados de la solicitud son demasiado grandes.'),
};

export const UNAUTHORIZED = CLIENT_ERRORS[401] as ApiError;

const SPECIFIC: Record<string, ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: apiError('invalid_json', 'El cuerpo no es JSON válido.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: apiError('invalid_json', 'El cuerpo JSON está vacío.'),
  FST_ERR_BAD_URL: apiError('bad_request', 'La dirección pedida no es válida.'),
};

const VALIDATION = apiError(
  'invalid_request',
  'El cuerpo debe ser { "form": { "usuario": texto, "contraseña": texto } } sin otros campos.',
);

/** The shared store (Redis) is unreachable: come back soon, the session is not over. */
export const UNAVAILABLE = apiError(
  'temporarily_unavailable',
  'El servicio no está disponible en este momento. Intente nuevamente en unos segundos.',
);

const INTERNAL = apiError('internal_error', 'Ocurrió un error inesperado. Intente nuevamente.');

/**
 * Rate-limit plugins throw plain objects; Fastify errors carry `statusCode` and `code`;
 * @fastify/send's carry the headers their status needs (a 416's `Content-Range`).
 */
type AnyError = Partial<FastifyError> & { status?: number; headers?: Record<string, string> };

export function errorHandler(error: AnyError, request: FastifyRequest, reply: FastifyReply) {
  const raw = error.statusCode ?? error.status;
  const status = typeof raw === 'number' && raw >= 400 && raw <= 599 ? raw : 500;
  const log = { statusCode: status, code: error.code, address: request.ip };
  if (status === 503 && error.headers) {
    // Raised on purpose (redis.ts StoreUnavailable): an outage to report, not a bug.
    request.log.warn({ ...log, err: error }, 'request refused: store unavailable');
    return reply
      .code(503)
      .headers(error.headers)
      .header('cache-control', 'no-store')
      .send(UNAVAILABLE);
  }
  if (status >= 500) {
    // The full error goes to the log only: that is where a real bug must be readable.
    request.log.error({ ...log, err: error }, 'request failed');
    return reply.code(500).send(INTERNAL);
  }
  request.log.info(log, 'request refused');
  if (error.headers) reply.headers(error.headers);
  const body = error.validation
    ? VALIDATION
    : ((error.code && SPECIFIC[error.code]) ?? CLIENT_ERRORS[status] ?? CLIENT_ERRORS[400]);
  return reply.code(status).send(body);
}

/**
 * Unknown API paths answer 404 JSON; any other GET/HEAD is sent to the login page, so an
 * old bookmark or a typo lands somewhere useful (spec: unmatched route → login).
 */
export function notFoundHandler(loginPath: string) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const isApi = path === '/api' || path.startsWith('/api/');
    if (!isApi && (request.method === 'GET' || request.method === 'HEAD'))
      return reply.redirect(loginPath, 302);
    return reply.code(404).send(CLIENT_ERRORS[404]);
  };
}

/** Malformed URLs (`/%`) are answered before routing; keep them in the same JSON shape. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  return errorHandler({ ...error, statusCode: 400, code: error.code }, request, reply);
}

/**
 * Requests that Node cannot parse (a raw control character or non-ASCII byte in the path, a bad
 * request line, headers too large, a request not received in time) never reach a route. They get
 * the same JSON shape, and `Connection: close`: Fastify's default handler leaves that header out,
 * so a keep-alive client sent its next request on the socket closed here and got a hang-up.
 * Logged without the error itself: its `rawPacket` holds the request's bytes (a password).
 */
export function clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 408
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : 400;
  this.log.info({ statusCode: status, code: error.code }, 'request refused');
  if (socket.writable) {
    const body = JSON.stringify(CLIENT_ERRORS[status]);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
        `Content-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
