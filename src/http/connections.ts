// How long the server waits on a client, below and around the routes (config.http):
// - headers: Node's headersTimeout (checked every second, not every 30 s), so a connection that
//   opens and sends nothing, or dribbles its headers, is shed in seconds, with a 408;
// - a JSON or form body (at most 1 MiB): must arrive whole within the request timeout;
// - any body, an upload's too: must not stall for the idle timeout. Not a total, so a 2 GiB upload
//   over a slow link keeps going while its bytes flow;
// - between requests: the keep-alive timeout;
// - `Expect: 100-continue` is answered only once the key, scope and limits have passed (and, for
//   an upload, the Idempotency-Key), so a refused upload gets its final status without a 100 and
//   is never sent at all (Node then closes the connection rather than keep it alive);
// - errors Node raises before there is a request (408, 431, a malformed request line or
//   Content-Length) are answered in the contract's error body, with a request id and the
//   protective headers, instead of Node's or Fastify's.
import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { HttpConfig } from '../config.ts';
import { AppError, type ErrorCode, ERROR_STATUS } from '../errors.ts';
import { gaveUpOnBody, hasBody, markGaveUpOnBody } from './error-handler.ts';
import { API } from './security-headers.ts';
import type { App } from './types.ts';

/** How often Node looks for connections past the headers timeout (its default is 30 s). */
const CHECK_INTERVAL_MS = 1000;

/** The request being served on a socket, for the socket's idle timeout to judge. */
const CURRENT = Symbol('lightbox.current-reply');
type Tracked = Socket & { [CURRENT]?: FastifyReply };

/** Responses that have had their `100 Continue`. */
const continued = new WeakSet<object>();

/** Fastify's options for the server's own timeouts and the answers Node makes below the app. */
export function connectionOptions(
  http: HttpConfig,
  log: () => FastifyBaseLogger,
): Pick<FastifyServerOptions, 'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout' | 'clientErrorHandler'> & {
  http: ServerOptions;
} {
  return {
    // The socket's idle timeout; judged by onIdle below rather than always destroying.
    connectionTimeout: http.idleTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    // Node's total request timeout would cut long uploads off: the body deadline below is for
    // JSON and form bodies only.
    requestTimeout: 0,
    http: { headersTimeout: http.headersTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
    clientErrorHandler: (err, socket) => answerClientError(err, socket, log()),
  };
}

const BELOW_THE_APP: Record<string, [ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request headers did not arrive in time'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request line and headers are over 16 KiB'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['payload_too_large', 'A chunk extension is too large'],
};

/**
 * Node's clientError: the request could not be read, so there is no Fastify request or reply to
 * answer with. The answer is written raw, in the contract's shape, and the connection closed.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket, log: FastifyBaseLogger): void {
  // A connection the client reset has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Mid-request (the body broke off, or its chunked encoding is malformed): the request already
  // has its reply, and answers through it; the client hanging up is logged as the client's.
  const current = (socket as Tracked)[CURRENT];
  if (current !== undefined && !current.raw.writableEnded) {
    if (err.code === 'HPE_INVALID_EOF_STATE') socket.destroy();
    else giveUpOnBody(current.request, current, 'The request body is not valid HTTP/1.1', 'validation_error');
    return;
  }
  const [code, message] = BELOW_THE_APP[err.code ?? ''] ?? [
    'validation_error',
    'The request is not valid HTTP/1.1 (request line, headers, Content-Length or chunked body)',
  ];
  const status = ERROR_STATUS[code];
  const requestId = randomUUID();
  log.info({ request_id: requestId, status, reason: err.code }, 'request refused before it was read');
  // As Node does: only when nothing of another response has been written on this connection.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    const body = JSON.stringify({ error: { code, message, request_id: requestId } });
    const headers = [
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
      `x-request-id: ${requestId}`,
      ...API.map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

const STATUS_TEXT: Partial<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

const isUpload = (request: FastifyRequest): boolean => request.routeOptions.config.streamedBody === true;

const expectsContinue = (request: FastifyRequest): boolean => request.headers.expect?.toLowerCase() === '100-continue';

/**
 * Tells a client that sent `Expect: 100-continue` to send its body: once, and only when the
 * request is to go ahead. An upload's handler calls it before it reads the parts.
 */
export function continueBody(request: FastifyRequest, reply: FastifyReply): void {
  // The body already broke off, or stalled, before anything started reading it.
  const refused = gaveUpOnBody(request);
  if (refused !== undefined) {
    void reply.header('connection', 'close');
    throw refused;
  }
  if (!expectsContinue(request) || continued.has(reply.raw) || reply.raw.headersSent) return;
  continued.add(reply.raw);
  reply.raw.writeContinue();
}

/**
 * The body will not come (stalled, too slow as a whole, or its chunked encoding broke). Its reader,
 * Fastify's JSON reader or the multipart parser, is handed the refusal as a stream error, so it
 * takes the usual path (error handler, log line, headers) and the connection closes after it.
 * With no reader yet (the key is still being checked), the request is marked and refused when it
 * comes to read (continueBody). A second call on the same request (the answer itself stalled, or
 * nothing came to read) closes the connection.
 */
function giveUpOnBody(
  request: FastifyRequest,
  reply: FastifyReply,
  why: string,
  code: ErrorCode = 'request_timeout',
): void {
  const raw = request.raw;
  if (raw.complete || reply.raw.writableEnded) return;
  if (gaveUpOnBody(request) !== undefined) {
    raw.socket.destroy();
    return;
  }
  const answer = new AppError(code, why);
  markGaveUpOnBody(request, answer);
  if (raw.listenerCount('error') === 0) return;
  void reply.header('connection', 'close');
  raw.emit('error', answer);
}

export function guardConnections(app: App, http: HttpConfig): void {
  const server = app.server;
  const log = app.log;
  // Without a listener Node answers 100 itself, before any hook has looked at the request.
  server.on('checkContinue', (req, res) => server.emit('request', req, res));

  app.addHook('onRequest', (request, reply, done) => {
    (request.raw.socket as Tracked)[CURRENT] = reply;
    done();
  });

  // After every onRequest hook (key, scope, rate limit, requests in progress) and the refusal of
  // encoded bodies: the body is wanted. Unrouted requests are answered unread (error-handler.ts).
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.is404 || !hasBody(request) || isUpload(request)) {
      done(null, payload);
      return;
    }
    try {
      continueBody(request, reply);
    } catch (err) {
      done(err as AppError);
      return;
    }
    const seconds = http.requestTimeoutMs / 1000;
    const deadline = setTimeout(() => {
      giveUpOnBody(request, reply, `The request body did not arrive within ${seconds} s`);
    }, http.requestTimeoutMs);
    const clear = (): void => clearTimeout(deadline);
    request.raw.once('end', clear);
    reply.raw.once('close', clear);
    done(null, payload);
  });

  // The socket sent and took nothing for the idle timeout.
  server.on('timeout', (socket: Tracked) => {
    const reply = socket[CURRENT];
    if (reply === undefined) {
      // A connection that has not sent a whole request head yet: as Node's headers timeout would.
      answerClientError(Object.assign(new Error('idle'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket, log);
      return;
    }
    if (reply.raw.writableEnded) {
      // Kept alive between requests: close quietly (an answer could cross the client's next request).
      socket.destroy();
      return;
    }
    if (!reply.request.raw.complete) {
      giveUpOnBody(reply.request, reply, `The request body stalled for ${http.idleTimeoutMs / 1000} s`);
      // Give the answer an idle period of its own, then close regardless.
      socket.setTimeout(http.idleTimeoutMs);
      return;
    }
    // The request is whole and its answer is being prepared: that is the server's time, not an
    // idle client. An answer the client stopped reading is another matter.
    if (reply.raw.headersSent) socket.destroy();
  });
}
