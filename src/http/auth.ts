// API-key authentication for /v1: Bearer key -> account, key id and scope.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { ApiKeysService } from '../modules/api-keys/api-keys.service.ts';

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Fastify's loggers are pino's, which can add bindings to a logger in place. */
type BindableLogger = FastifyBaseLogger & { setBindings?: (bindings: Record<string, unknown>) => void };

export function authHook(apiKeys: ApiKeysService) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.routeOptions.config.auth === false) return;
    const header = request.headers.authorization;
    const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (presented === undefined) {
      throw new AppError('unauthorized', 'Invalid or missing API key: send Authorization: Bearer <API_KEY>');
    }
    const auth = await apiKeys.authenticate(presented);
    if (auth === null) throw new AppError('unauthorized', 'Invalid or missing API key');
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
    if (auth.scope === 'read_only' && !READ_METHODS.has(request.method)) {
      throw new AppError('forbidden', 'This API key is read-only; use a full-access key to make changes');
    }
  };
}
