// The property pages at /p (docs/api.md §25): a gallery published for anyone, under two tokens (the
// branded page and the unbranded one), and the oEmbed endpoint that lets other sites embed them.
// A fourth scope beside /v1, /g and /dashboard: no key, no cookie. Every response sends no
// referrer and loads nothing from other sites, as the client gallery's (docs/api.md §14), but
// these pages are public, so search engines are not turned away. Nothing may frame a page but
// the embeddable view. The client gallery's per-address rate limit applies.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from '../http/error-handler.ts';
import { AppError } from '../errors.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import type { Config } from '../config.ts';
import type { Services } from '../services.ts';
import { registerPropertyRoutes } from './property.routes.ts';
import { propertyErrorPage } from './views/page.ts';
import { allowFraming, PROPERTY_HEADERS } from './property.headers.ts';

export interface PropertyContext {
  services: Services;
  config: Config;
}

/** An embedded page that is gone says so inside the other site's frame rather than a browser error. */
const isEmbed = (request: FastifyRequest): boolean => /^\/p\/[^/?#]+\/embed(?:[?#]|$)/.test(request.url);

function sendPropertyError(request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply {
  void reply.code(status).headers(PROPERTY_HEADERS).header('cache-control', 'no-store');
  if (isEmbed(request)) allowFraming(reply);
  return reply.type('text/html; charset=utf-8').send(propertyErrorPage(status).toString());
}

/**
 * A URL under /p that the router could not read (a malformed escape, an over-long segment): the
 * same 404 page, charged against the address like any page request (over the limit: the 429).
 */
export async function propertyUnroutable(
  limiter: Pick<RateLimiter, 'chargeGallery'>,
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
  sendPropertyError(request, reply, status);
}

export function registerProperty(
  scope: App,
  { services, limiter, config }: PropertyContext & { limiter: RateLimiter },
): void {
  // Pages and images only: no request body is read here.
  scope.removeAllContentTypeParsers();
  scope.addHook('onRequest', async (request, reply) => {
    void reply.headers(PROPERTY_HEADERS);
    const counted = limiter.chargeGallery(request.ip, reply);
    if (counted !== undefined) await counted;
  });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const status = statusOf(error, request);
    if (status >= 500) request.log.error({ err: error }, 'property page request failed');
    if (error instanceof AppError) void reply.headers(error.headers);
    return sendPropertyError(request, reply, status);
  });
  scope.setNotFoundHandler((request, reply) => sendPropertyError(request, reply, 404));
  registerPropertyRoutes(scope, { services, publicUrl: config.publicUrl });
}
