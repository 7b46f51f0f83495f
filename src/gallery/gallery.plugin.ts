// The client gallery at /g (docs/api.md §14): the page a client opens from the email, its images and
// files, and one ZIP of everything. The third scope beside /v1 and /dashboard: no key, no cookie;
// the token in the URL is the capability. Every response (the 404 page included) is private,
// unindexed, sends no referrer (the token is in the URL) and loads nothing from other sites; each
// client address is rate limited (GALLERY_RATE_LIMIT_PER_MINUTE, shared through Redis when set).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from '../http/error-handler.ts';
import { AppError } from '../errors.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import { findGalleryAsset } from './assets.ts';
import { registerGalleryRoutes, type GalleryContext } from './gallery.routes.ts';
import { errorPage } from './views/errors.ts';
import { parseForm } from '../dashboard/form.ts';
import { LinkExpired, PasswordNeeded } from './gallery.gate.ts';
import { expiredPage, passwordPage } from './views/gate.ts';

/** Nothing from another origin, no inline script or style; images, video and our files only. */
const GALLERY_CSP =
  "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'self'; script-src 'self'; " +
  "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const GALLERY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': GALLERY_CSP,
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'cache-control': 'private, no-cache',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

function sendGalleryError(request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply {
  return reply
    .code(status)
    .headers(GALLERY_HEADERS)
    .header('cache-control', 'private, no-store')
    .type('text/html; charset=utf-8')
    .send(errorPage(status, request.id).toString());
}

/**
 * A URL under /g that the router could not read (a malformed escape, an over-long segment): the
 * same 404 page, charged against the address like any gallery request (over the limit: the 429).
 */
export async function galleryUnroutable(
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
  sendGalleryError(request, reply, status);
}

export function registerGallery(
  scope: App,
  { services, limiter, clock, config }: GalleryContext & { limiter: RateLimiter },
): void {
  // Pages and downloads, and two small forms (the password, favorites): no other body is read here.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8 * 1024 },
    (_request, body, done) => {
      done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
    },
  );
  scope.addHook('onRequest', async (request, reply) => {
    void reply.headers(GALLERY_HEADERS);
    const counted = limiter.chargeGallery(request.ip, reply);
    if (counted !== undefined) await counted;
  });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
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
    const status = statusOf(error, request);
    if (status >= 500) request.log.error({ err: error }, 'gallery request failed');
    if (error instanceof AppError) void reply.headers(error.headers);
    return sendGalleryError(request, reply, status);
  });
  scope.setNotFoundHandler((request, reply) => sendGalleryError(request, reply, 404));

  scope.get('/assets/:file', { schema: { hide: true } }, (request, reply) => {
    const asset = findGalleryAsset((request.params as { file: string }).file);
    if (asset === undefined) return sendGalleryError(request, reply, 404);
    return reply
      .headers({ 'content-type': asset.type, 'cache-control': 'private, max-age=31536000, immutable' })
      .send(asset.body);
  });

  registerGalleryRoutes(scope, { services, clock, secureCookies: config.publicUrl.startsWith('https:') });
}
