// The client gallery at /g (docs/api.md §14): the page a client opens from the email, its images and
// files, and one ZIP of everything. The third scope beside /v1 and /dashboard: no key, no cookie;
// the token in the URL is the capability. Every response (the 404 page included) is private,
// unindexed, sends no referrer (the token is in the URL) and loads nothing from other sites; each
// client address is rate limited (GALLERY_RATE_LIMIT_PER_MINUTE, shared through Redis when set).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import { publicHeaders } from '../public/headers.ts';
import { publicUnroutable, registerPublicScope, type PublicScope } from '../public/public-scope.ts';
import { findGalleryAsset } from './assets.ts';
import { registerGalleryRoutes, type GalleryContext } from './gallery.routes.ts';
import { errorPage } from './views/errors.ts';
import { parseForm } from '../dashboard/form.ts';
import { LinkExpired, PasswordNeeded } from './gallery.gate.ts';
import { expiredPage, passwordPage } from './views/gate.ts';

/** A capability page: private, unindexed, and its forms (password, favorites) post to itself. */
const GALLERY_HEADERS = publicHeaders({ formAction: "'self'", cacheControl: 'private, no-cache', indexable: false });

const GALLERY_SCOPE: PublicScope = {
  failure: 'gallery request failed',
  headers: GALLERY_HEADERS,
  sendError: (request, reply, status) =>
    reply
      .code(status)
      .headers(GALLERY_HEADERS)
      .header('cache-control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(errorPage(status, request.id).toString()),
  // An expired link and a locked one have pages of their own (docs/api.md §25).
  ownPage(error, _request, reply) {
    if (error instanceof LinkExpired) {
      return reply
        .code(410)
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
        .send(expiredPage(error.studioName, error.expiresAt).toString());
    }
    if (error instanceof PasswordNeeded) {
      return reply
        .code(403)
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
        .send(
          passwordPage({
            studioName: error.studioName,
            address: error.address,
            token: error.token,
            wrong: false,
          }).toString(),
        );
    }
    return undefined;
  },
};

/** A URL under /g that the router could not read: the 404 page, charged like any gallery request. */
export const galleryUnroutable = (
  limiter: Pick<RateLimiter, 'chargeGallery'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> => publicUnroutable(limiter, GALLERY_SCOPE, request, reply);

export function registerGallery(
  scope: App,
  { services, limiter, clock, config }: GalleryContext & { limiter: RateLimiter },
): void {
  registerPublicScope(scope, limiter, GALLERY_SCOPE);
  // Pages and downloads, and two small forms (the password, favorites): no other body is read here.
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8 * 1024 },
    (_request, body, done) => {
      done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
    },
  );

  scope.get('/assets/:file', { schema: { hide: true } }, (request, reply) => {
    const asset = findGalleryAsset((request.params as { file: string }).file);
    if (asset === undefined) return GALLERY_SCOPE.sendError(request, reply, 404);
    return reply
      .headers({ 'content-type': asset.type, 'cache-control': 'private, max-age=31536000, immutable' })
      .send(asset.body);
  });

  registerGalleryRoutes(scope, { services, clock, secureCookies: config.publicUrl.startsWith('https:') });
}
