// The HTTP face of Idempotency-Key on every /v1 POST (docs/api.md §9, docs/decisions/0003). Hooked onto each
// route, after authentication, the rate limit and validation: a request refused before its
// handler (400, 401, 403, 413, 415, 429) stores nothing and spends no key. On other methods the
// header is checked only: a key the account already used is a conflict, nothing is stored.
import type {
  FastifyReply,
  FastifyRequest,
  onResponseHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import { AppError } from '../../errors.ts';
import {
  IDEMPOTENCY_HEADER as HEADER,
  keptForReplay,
  VALID_IDEMPOTENCY_KEY as VALID_KEY,
} from '../../http/idempotency-policy.ts';
import type { RouteHooksFor } from '../../http/route-hooks.ts';
import type { App } from '../../http/types.ts';
import { fingerprint, JSON_LEASE_MS, UPLOAD_LEASE_MS, type IdempotencyService } from './idempotency.service.ts';

/** A body /v1's JSON parser read whole (src/v1.ts), on any route. */
const JSON_BODY = /^\s*application\/json\s*(;|$)/i;

/** Response headers a replay carries besides status and body. */
const KEPT_HEADERS = ['content-type', 'location'] as const;

/** A POST's hold on its Idempotency-Key, from its preHandler to its response. */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  token: string;
  upload: boolean;
  settled: boolean;
}

const mismatch = (): AppError =>
  new AppError(
    'conflict',
    'This Idempotency-Key was already used for a different request (method, path or body); use a new key',
  );

const invalidKey = (): AppError =>
  new AppError('validation_error', 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
    { field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
  ]);

/** A replayed error names this request in its body, as the X-Request-Id header does. */
function withRequestId(body: string, requestId: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { request_id?: string } };
    if (parsed.error === undefined) return body;
    parsed.error.request_id = requestId;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

/** A route's own hooks of one kind, as a list (Fastify takes one function or an array). */

export function registerIdempotency(v1: App, idempotency: IdempotencyService): RouteHooksFor {
  v1.decorateRequest('idempotency', null);

  const settle = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> => {
    const claim = request.idempotency;
    if (claim === null || claim.settled) return;
    claim.settled = true;
    const status = reply.statusCode;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      if (body === null || !keptForReplay(status, claim.upload)) {
        await idempotency.release(claim.accountId, claim.key, claim.token);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (typeof value === 'string') headers[name] = value;
      }
      const kept = await idempotency.complete(claim.accountId, claim.key, claim.token, { status, headers, body });
      if (!kept) request.log.warn({ status }, 'idempotency key was taken over before this request finished');
    } catch (err) {
      // The response goes out regardless; the key stays in flight until its lease runs out.
      request.log.error({ err }, 'could not record the idempotent response');
    }
  };

  /** What a key's first request decides: run it, replay it, or refuse it as a conflict. */
  async function begin(request: FastifyRequest, reply: FastifyReply, upload: boolean): Promise<'run' | 'sent'> {
    const raw = request.headers[HEADER];
    if (raw === undefined || request.auth === null) return 'run';
    if (typeof raw !== 'string' || !VALID_KEY.test(raw)) throw invalidKey();
    const path = request.url.split('?')[0] ?? request.url;
    // A streamed route that took JSON (media from a URL) was read whole: the body is part of the
    // request, so the same key with another URL is another request (a conflict), not a replay.
    const streamed = upload && !JSON_BODY.test(request.headers['content-type'] ?? '');
    const print = fingerprint(request.method, path, streamed ? 'upload' : { json: request.body });
    const { accountId } = request.auth;
    const outcome = await idempotency.begin(accountId, raw, print, upload ? UPLOAD_LEASE_MS : JSON_LEASE_MS);
    // An upload's body is not read when the request does not run: close rather than drain it.
    if (outcome.kind !== 'proceed' && upload) void reply.header('connection', 'close');
    switch (outcome.kind) {
      case 'proceed':
        request.idempotency = { accountId, key: raw, token: outcome.token, upload, settled: false };
        return 'run';
      case 'replay': {
        const { status, headers, body } = outcome.response;
        void reply
          .code(status)
          .headers(headers)
          .header('idempotent-replayed', 'true')
          .send(status >= 400 ? withRequestId(body, request.id) : body);
        return 'sent';
      }
      case 'in_flight':
        throw new AppError(
          'conflict',
          'A request with this Idempotency-Key is still in progress; retry once it has finished',
          undefined,
          { 'retry-after': '1' },
        );
      case 'mismatch':
        throw mismatch();
    }
  }

  // Callback-style hooks: they are attached to routes directly (below), one promise each at most.
  const beginFor =
    (upload: boolean): preHandlerHookHandler =>
    (request, reply, done) => {
      begin(request, reply, upload).then(
        (next) => {
          if (next === 'run') done();
        },
        (err: unknown) => done(err as Error),
      );
    };

  const record: onSendHookHandler = (request, reply, payload, done) => {
    settle(request, reply, payload).then(
      () => done(null, payload),
      () => done(null, payload),
    );
  };

  // A response that never reached onSend (a fault while sending) gives its key back.
  const backstop: onResponseHookHandler = (request, reply, done) => {
    settle(request, reply, null).then(
      () => done(),
      () => done(),
    );
  };

  /**
   * Another method never runs idempotently, but the same key on a different method is a conflict
   * (docs/api.md §9): a key the account holds (unexpired) is refused; an unknown one stores nothing.
   * Only a request that carries the header pays for the lookup.
   */
  const checkOther: preHandlerHookHandler = (request, _reply, done) => {
    const raw = request.headers[HEADER];
    if (raw === undefined || request.auth === null) {
      done();
      return;
    }
    if (typeof raw !== 'string' || !VALID_KEY.test(raw)) {
      done(invalidKey());
      return;
    }
    idempotency.inUse(request.auth.accountId, raw).then(
      (used) => {
        done(used ? mismatch() : undefined);
      },
      (err: unknown) => {
        done(err as Error);
      },
    );
  };

  return (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return { preHandler: checkOther };
    // A multipart body is streamed by its handler (STREAMED_BODY in src/http/validation.ts).
    const upload = route.config?.streamedBody === true;
    return { preHandler: beginFor(upload), onSend: record, onResponse: backstop };
  };
}
