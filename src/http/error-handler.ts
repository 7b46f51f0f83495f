// The one place errors become HTTP responses. 5xx details are logged, never sent.
import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError, type ErrorCode } from '../errors.ts';
import { isUnavailable } from '../db/errors.ts';
import { logRequest } from './request-log.ts';
import { applySecurityHeaders } from './security-headers.ts';
import { ERROR_LIMITS } from './schemas.ts';
import { toDetails } from './validation.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { App } from './types.ts';

/** Content-Type refusals: the message names what the route takes (its schema's `consumes`, or its body's types). */
const MEDIA_TYPE_CODES = new Set(['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_INVALID_TYPE']);

const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'Request body is too large (JSON bodies are limited to 1 MiB)'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: ['unsupported_media_type', 'Send the files as multipart/form-data'],
  FST_FILES_LIMIT: ['payload_too_large', 'Too many files in one request'],
  FST_PARTS_LIMIT: ['payload_too_large', 'Too many parts in one request'],
  FST_FIELDS_LIMIT: ['payload_too_large', 'Too many form fields in one request'],
  FST_REQ_FILE_TOO_LARGE: ['payload_too_large', 'A file is larger than the limit per file'],
  FST_PROTO_VIOLATION: ['validation_error', 'A form field name is not allowed'],
  FST_INVALID_JSON_FIELD_ERROR: ['validation_error', 'A form field declared as application/json is not valid JSON'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_error', 'Content-Length does not match the body'],
};

const BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * The client went away before its request was whole (it closed the connection mid-body): the body
 * reader fails with ECONNRESET, which is the client's doing, not a server fault, and in particular
 * not the database being unreachable (src/db/errors.ts shares the code with the drivers' sockets).
 */
/**
 * Requests whose body the server gave up on (src/http/connections.ts: it stalled, took too long, or
 * broke the chunked encoding), with the answer they get whatever their body reader then reports.
 */
const gaveUp = new WeakMap<FastifyRequest, AppError>();
export const markGaveUpOnBody = (request: FastifyRequest, answer: AppError): void => void gaveUp.set(request, answer);
export const gaveUpOnBody = (request: FastifyRequest): AppError | undefined => gaveUp.get(request);

function clientWentAway(request: FastifyRequest): boolean {
  const raw = request.raw;
  return !raw.complete && (raw.destroyed || raw.socket.destroyed);
}

/**
 * The one mapping from a thrown error to the status it is answered with, whatever the audience:
 * the API's JSON error body, the dashboard's and the gallery's HTML error pages all use it.
 */
export function statusOf(error: FastifyError, request: FastifyRequest): number {
  return toAppError(error, request).status;
}

function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation !== undefined) {
    const details = toDetails(error.validation as never, error.validationContext);
    const first = details[0];
    const message = first === undefined ? 'Invalid request' : `${first.field} ${first.message}`;
    return new AppError(
      'validation_error',
      details.length > 1 ? `${message} (and ${details.length - 1} more)` : message,
      details,
    );
  }
  if (error.code !== undefined && MEDIA_TYPE_CODES.has(error.code)) {
    // The types the route documents: per content type (an upload: a form, or JSON naming a URL), else JSON.
    const schema = request.routeOptions.schema;
    const content = (schema?.body as { content?: Record<string, unknown> } | undefined)?.content;
    const wanted = schema?.consumes?.length ? schema.consumes : content ? Object.keys(content) : ['application/json'];
    return new AppError('unsupported_media_type', `Unsupported Content-Type; send ${wanted.join(' or ')}`);
  }
  const known = error.code === undefined ? undefined : FASTIFY_CODES[error.code];
  if (known !== undefined) return new AppError(known[0], known[1]);
  const status = error.statusCode ?? 500;
  if (isUnavailable(error)) return new AppError('unavailable', 'The service is temporarily unavailable; retry shortly');
  const code = status < 500 ? BY_STATUS[status] : undefined;
  if (code !== undefined) return new AppError(code, error.message);
  return new AppError('internal_error', 'Internal server error');
}

/** At most `max` characters (code points, as the documented maxLength counts them). */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  if (err.code === 'unauthorized') void reply.header('www-authenticate', 'Bearer');
  // Messages and details may quote what the caller sent (a 5,000-character field name, thousands
  // of unknown fields): the error body stays within its documented bounds whatever came in.
  const details = err.details?.slice(0, ERROR_LIMITS.details).map((d) => ({
    field: clip(d.field, ERROR_LIMITS.field),
    message: clip(d.message, ERROR_LIMITS.detailMessage),
  }));
  return reply
    .code(err.status)
    .headers(err.headers)
    .send({
      error: {
        code: err.code,
        message: clip(err.message, ERROR_LIMITS.message),
        ...(details === undefined ? {} : { details }),
        request_id: request.id,
      },
    });
}

/**
 * Errors the router raises before any hook runs (a malformed percent-escape, an over-long path
 * segment): 404. A /v1 path is still counted against the client's address, so the rate-limit
 * headers are on every /v1 response and malformed URLs cannot be sent without limit; the request
 * never reached authentication, so it is the address, not a key, that pays.
 */
/** A scope that answers in HTML (the client gallery): its own 404 page, charged as its requests are. */
export interface PageScope {
  prefix: string;
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

export function createFrameworkErrors(limiter: Pick<RateLimiter, 'chargeAddress'>, pages: readonly PageScope[] = []) {
  return function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    void reply.header('x-request-id', request.id);
    const known = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
    const page = known
      ? pages.find((p) => request.url === p.prefix || request.url.startsWith(`${p.prefix}/`))
      : undefined;
    if (page !== undefined) {
      page.notFound(request, reply).then(
        () => {
          logRequest(request, reply);
        },
        (err: unknown) => {
          request.log.error({ err }, 'request failed');
          void sendError(request, reply, new AppError('internal_error', 'Internal server error'));
          logRequest(request, reply);
        },
      );
      return;
    }
    applySecurityHeaders(request, reply);
    const err = known
      ? new AppError('not_found', 'No such resource')
      : new AppError('internal_error', 'Internal server error');
    if (!known) request.log.error({ err: error }, 'request failed');
    const send = (refusal: AppError): void => {
      void sendError(request, reply, refusal);
      // No route, so no onResponse hook: write the request's log line here.
      logRequest(request, reply);
    };
    const charge = (): Promise<void> | undefined =>
      request.url.startsWith('/v1/') ? limiter.chargeAddress(request.ip, reply) : undefined;
    let counted: Promise<void> | undefined;
    try {
      counted = charge();
    } catch (refused) {
      send(refused instanceof AppError ? refused : err);
      return;
    }
    if (counted === undefined) {
      send(err);
      return;
    }
    counted.then(
      () => {
        send(err);
      },
      (refused: unknown) => {
        send(refused instanceof AppError ? refused : err);
      },
    );
  };
}

const CLIENT_WENT_AWAY = new AppError('validation_error', 'The connection closed before the request body was complete');

/** The request says a body follows (so refusing it unread means closing, not draining, the connection). */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Answers; when the connection is already gone the response never finishes, so its onResponse
 * hook never runs: the request's one log line is written here instead.
 */
function sendOrLog(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  const gone = request.raw.socket.destroyed;
  const sent = sendError(request, reply, err);
  if (gone) logRequest(request, reply);
  return sent;
}

type NotFound = (request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * A request that matches no route is answered (404, or 405 with Allow) before its body is read:
 * the method and path decide, whatever the body is (not JSON, another type, too large, encoded).
 * The scope's first preParsing hook, so after its onRequest hooks (a /v1 request is authenticated
 * and counted first); it answers the scope's own unrouted requests only, so a child scope with its
 * own not-found page (the dashboard) keeps it.
 */
export function answerUnroutedFirst(scope: App, notFound: NotFound): void {
  scope.addHook('preParsing', (request, reply, payload, done) => {
    if (!request.is404 || request.server !== scope) {
      done(null, payload);
      return;
    }
    if (hasBody(request)) void reply.header('connection', 'close');
    notFound(request, reply);
  });
}

/**
 * Sets the error handler and the not-found handler (404, or 405 with Allow on a known path), and
 * returns the latter so that a prefix (/v1) can install it too and run its own hooks first.
 */
export function registerErrorHandling(app: App): NotFound {
  // A second router that knows every (method, path) pair, to tell 405 from 404.
  const known = FindMyWay();
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      try {
        known.on(method as 'GET', route.url, () => undefined);
      } catch {
        // Already known (Fastify announces HEAD twins of GET routes too).
      }
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refusedBody = gaveUpOnBody(request);
    if (refusedBody !== undefined) {
      request.log.info(
        { reason: refusedBody.code },
        'request body refused: it stalled, took too long or was malformed',
      );
      return sendOrLog(request, reply, refusedBody);
    }
    if (clientWentAway(request)) {
      // Nobody will read the answer. What broke is the client's reading of its own request (a reset,
      // a truncated multipart body), unless the service itself says otherwise (an AppError 5xx).
      const answer = error instanceof AppError ? error : CLIENT_WENT_AWAY;
      if (answer.status >= 500) request.log.error({ err: error }, 'request failed');
      else request.log.info({ reason: error.code ?? error.message }, 'client closed the connection mid-request');
      return sendOrLog(request, reply, answer);
    }
    const err = toAppError(error, request);
    if (err.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, err);
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
      (m) => known.find(m as 'GET', path) !== null,
    );
    if (allowed.length > 0) {
      return sendError(
        request,
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allowed.join(', ')}`,
          undefined,
          {
            allow: allowed.join(', '),
          },
        ),
      );
    }
    return sendError(request, reply, new AppError('not_found', `No route ${request.method} ${path}`));
  };
  app.setNotFoundHandler(notFound);
  answerUnroutedFirst(app, notFound);
  return notFound;
}
