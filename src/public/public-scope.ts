// What every public page scope (/g, /p, and the portal and share links to come) is built on: no
// key, no cookie, the token in the URL is the capability. Every response (error pages included)
// carries the scope's headers; every request, routed or not, is charged against the client
// address's limit (GALLERY_RATE_LIMIT_PER_MINUTE, shared through Redis when set); an error is the
// scope's own plain page, never the API's JSON, and a 5xx names nothing of what failed.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { statusOf } from '../http/error-handler.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';

type Limiter = Pick<RateLimiter, 'chargeGallery'>;

export interface PublicScope {
  /** What the log says when a request fails: 'gallery request failed'. */
  failure: string;
  /** The headers of every response. */
  headers: Readonly<Record<string, string>>;
  /** The scope's error page for a status (404, 410, 429, 5xx), sent with the scope's headers. */
  sendError(request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply;
  /** Errors with a page of their own (an expired link, a password to give); undefined: the error page. */
  ownPage?: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

export const HIDDEN = { hide: true } as const;

export interface TokenParams {
  token: string;
}
export interface ItemParams extends TokenParams {
  media_id: string;
}

/** The hooks, parsers and handlers every public scope shares; its routes are added after. */
export function registerPublicScope(scope: App, limiter: Limiter, page: PublicScope): void {
  // No request body is read unless the scope adds a parser of its own (a small form).
  scope.removeAllContentTypeParsers();
  scope.addHook('onRequest', async (request, reply) => {
    void reply.headers(page.headers);
    const counted = limiter.chargeGallery(request.ip, reply);
    if (counted !== undefined) await counted;
  });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const own = page.ownPage?.(error, request, reply);
    if (own !== undefined) return own;
    const status = statusOf(error, request);
    if (status >= 500) request.log.error({ err: error }, page.failure);
    if (error instanceof AppError) void reply.headers(error.headers);
    return page.sendError(request, reply, status);
  });
  scope.setNotFoundHandler((request, reply) => page.sendError(request, reply, 404));
}

/**
 * A URL under a public prefix that the router could not read (a malformed escape, an over-long
 * segment): the scope's 404 page, charged against the address like any of its requests (over the
 * limit: the 429).
 */
export async function publicUnroutable(
  limiter: Limiter,
  page: Pick<PublicScope, 'sendError'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  let status = 404;
  try {
    await limiter.chargeGallery(request.ip, reply);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    void reply.headers(err.headers);
    status = err.status;
  }
  page.sendError(request, reply, status);
}
