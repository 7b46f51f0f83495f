// The property pages at /p (docs/api.md §25): a gallery published for anyone, under two tokens (the
// branded page and the unbranded one), and the oEmbed endpoint that lets other sites embed them.
// A fourth scope beside /v1, /g and /dashboard: no key, no cookie. Every response sends no
// referrer and loads nothing from other sites, as the client gallery's (docs/api.md §14), but
// these pages are public, so search engines are not turned away. Nothing may frame a page but
// the embeddable view. The client gallery's per-address rate limit applies.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import type { Config } from '../config.ts';
import type { Services } from '../services.ts';
import { allowFraming, publicHeaders } from '../public/headers.ts';
import { publicUnroutable, registerPublicScope, type PublicScope } from '../public/public-scope.ts';
import { registerPropertyRoutes } from './property.routes.ts';
import { propertyErrorPage } from './views/page.ts';

export interface PropertyContext {
  services: Services;
  config: Config;
}

/** The client gallery's headers (docs/api.md §14), but public: indexable, cached by no one for long, no form. */
const PROPERTY_HEADERS = publicHeaders({ formAction: "'none'", cacheControl: 'no-cache', indexable: true });

/** An embedded page that is gone says so inside the other site's frame rather than a browser error. */
const isEmbed = (request: FastifyRequest): boolean => /^\/p\/[^/?#]+\/embed(?:[?#]|$)/.test(request.url);

const PROPERTY_SCOPE: PublicScope = {
  failure: 'property page request failed',
  headers: PROPERTY_HEADERS,
  sendError(request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply {
    void reply.code(status).headers(PROPERTY_HEADERS).header('cache-control', 'no-store');
    if (isEmbed(request)) allowFraming(reply, "'none'");
    return reply.type('text/html; charset=utf-8').send(propertyErrorPage(status).toString());
  },
};

/** A URL under /p that the router could not read: the 404 page, charged like any page request. */
export const propertyUnroutable = (
  limiter: Pick<RateLimiter, 'chargeGallery'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> => publicUnroutable(limiter, PROPERTY_SCOPE, request, reply);

export function registerProperty(
  scope: App,
  { services, limiter, config }: PropertyContext & { limiter: RateLimiter },
): void {
  // Pages and images only: no request body is read here.
  registerPublicScope(scope, limiter, PROPERTY_SCOPE);
  registerPropertyRoutes(scope, { services, publicUrl: config.publicUrl });
}
