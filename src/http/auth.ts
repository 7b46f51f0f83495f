// API-key authentication for /v1: Bearer key -> account, key id and scope; and the rate limit,
// which needs to know whether the key is valid to know what to count the request against.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { ApiKeysService } from '../modules/api-keys/api-keys.service.ts';
import type { InFlightLimiter } from './in-flight.ts';
import type { RateLimiter } from './rate-limit.ts';

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Fastify's loggers are pino's, which can add bindings to a logger in place. */
type BindableLogger = FastifyBaseLogger & { setBindings?: (bindings: Record<string, unknown>) => void };

/**
 * The /v1 front door. Each request is charged to its key (or, without a valid one, its address)
 * first, so every answer carries the RateLimit fields; then it takes a place among its address's
 * (and key's) requests in progress, so slow or stalled requests cannot pile up (in-flight.ts).
 */
export function authHook(apiKeys: ApiKeysService, limiter: RateLimiter, inFlight: InFlightLimiter) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const auth = presented === undefined ? null : await apiKeys.authenticate(presented);
    // Open routes (the OpenAPI document) and unknown paths (answered 404 or 405 by the not-found
    // handler) need no key, but are counted like the rest.
    const open = request.is404 || request.routeOptions.config.auth === false;
    if (auth === null) {
      // Counted, and refused with 429 when over, before the 401: a key guesser is slowed down.
      const counted = limiter.chargeAddress(request.ip, reply);
      if (counted !== undefined) await counted;
      inFlight.holdAddress(request, reply);
      if (open) return;
      throw new AppError(
        'unauthorized',
        presented === undefined
          ? 'Invalid or missing API key: send Authorization: Bearer <API_KEY>'
          : 'Invalid or missing API key',
      );
    }
    request.auth = auth;
    // Every later log line of this request names the key (never the key itself). Fastify made
    // request.log for this request alone, so binding in place is safe, and cheaper than a child
    // logger per request (a new prototype and formatters each time: 2-3% of the list endpoint).
    const log = request.log as BindableLogger;
    if (typeof log.setBindings === 'function') {
      log.setBindings({ key_id: auth.keyId });
    } else {
      request.log = request.log.child({ key_id: auth.keyId });
      reply.log = request.log;
    }
    const counted = limiter.chargeKey(auth.keyId, reply);
    if (counted !== undefined) await counted;
    inFlight.holdAddress(request, reply);
    inFlight.holdKey(auth.keyId, request, reply);
    if (open) return;
    if (auth.scope === 'read_only' && !READ_METHODS.has(request.method)) {
      throw new AppError('forbidden', 'This API key is read-only; use a full-access key to make changes');
    }
  };
}
