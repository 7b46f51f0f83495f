// The one log line per request: request id (bound by Fastify), key id, status and time.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../modules/api-keys/api-keys.service.ts';

export function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  // An authenticated request's logger already carries key_id (src/http/auth.ts); others say null,
  // so every line has the same fields.
  const auth = (request.auth as AuthContext | null | undefined) ?? null;
  request.log.info(
    {
      ...(auth === null ? { key_id: null } : {}),
      method: request.method,
      url: request.url,
      route: request.routeOptions.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    },
    'request',
  );
}
