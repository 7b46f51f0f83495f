// The client's portal at /c (docs/api.md §28): every gallery assigned to a client, from one
// unguessable link that every assignment email carries. A public scope as the client gallery is
// (src/public/public-scope.ts): no key, no cookie, the token is the capability; the client
// gallery's headers (private, unindexed, no referrer, nothing from other sites, framed by no one)
// and its per-address rate limit (GALLERY_RATE_LIMIT_PER_MINUTE). It reads no request body.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import { MAX_CURSOR_LENGTH } from '../lib/cursor.ts';
import type { Portal } from '../modules/portals/portals.service.ts';
import type { Services } from '../services.ts';
import { publicHeaders } from '../public/headers.ts';
import { LONG_CACHE, registerPageImages } from '../public/page-media.ts';
import {
  HIDDEN,
  publicUnroutable,
  registerPublicScope,
  type PublicScope,
  type TokenParams,
} from '../public/public-scope.ts';
import { portalErrorPage, portalPage } from './views/page.ts';

/** A capability page: private, unindexed; it has no form. */
const PORTAL_HEADERS = publicHeaders({ formAction: "'none'", cacheControl: 'private, no-cache', indexable: false });

const PORTAL_SCOPE: PublicScope = {
  failure: 'portal request failed',
  headers: PORTAL_HEADERS,
  sendError: (request, reply, status) =>
    reply
      .code(status)
      .headers(PORTAL_HEADERS)
      .header('cache-control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(portalErrorPage(status, request.id).toString()),
};

/** A URL under /c that the router could not read: the 404 page, charged like any portal request. */
export const portalUnroutable = (
  limiter: Pick<RateLimiter, 'chargeGallery'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> => publicUnroutable(limiter, PORTAL_SCOPE, request, reply);

const gone = (): AppError => new AppError('not_found', 'This page is no longer available');

export function registerPortal(scope: App, { services, limiter }: { services: Services; limiter: RateLimiter }): void {
  registerPublicScope(scope, limiter, PORTAL_SCOPE);

  async function portal(request: FastifyRequest<{ Params: TokenParams }>): Promise<Portal> {
    const found = await services.portals.resolve(request.params.token);
    if (found === undefined) throw gone();
    return found;
  }

  {
    scope.get<{ Params: TokenParams }>('/:token', { schema: HIDDEN }, async (request, reply) => {
      const found = await portal(request);
      const raw = (request.query as { cursor?: unknown } | undefined)?.cursor;
      // A page past the first is named by the cursor of the one before (newest first); a cursor
      // that is not one of this portal's is the same 404 as an unknown link.
      const cursor = typeof raw === 'string' && raw !== '' && raw.length <= MAX_CURSOR_LENGTH ? raw : undefined;
      if (raw !== undefined && cursor === undefined) throw gone();
      const page = await services.portals.page(found, cursor).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'validation_error') throw gone();
        throw err;
      });
      // docs/api.md §29: a gallery waiting for payment shows no cover here (its own page is the preview).
      const accountId = found.client.account_id;
      const paying = await Promise.all(
        page.galleries.map((g) =>
          g.cover === undefined ? Promise.resolve(undefined) : services.payLocks.of(accountId, g.listing.id),
        ),
      );
      page.galleries.forEach((g, i) => {
        if (paying[i] !== undefined) g.cover = undefined;
      });
      const base = `/c/${found.client.portal_token}`;
      return reply
        .type('text/html; charset=utf-8')
        .send(portalPage(found, page, base, cursor === undefined).toString());
    });

    // The covers, at their versioned URLs kept for a year by the client's browser only (private),
    // as an open gallery link's are: a gallery behind a password or past its date shows none here.
    registerPageImages(scope, services.media, {
      item: async (request) => {
        const owner = await portal(request);
        const found = await services.portals.cover(owner, request.params.media_id);
        if (found === undefined) throw new AppError('not_found', 'No such cover');
        if ((await services.payLocks.of(owner.client.account_id, found.row.listing_id)) !== undefined) {
          throw new AppError('not_found', 'No such cover');
        }
        return { found, longCache: `private, ${LONG_CACHE}` };
      },
      cover: () => Promise.resolve(undefined),
    });
  }
}
