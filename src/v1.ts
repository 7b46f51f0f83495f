// The /v1 scope: the JSON API of docs/api.md §1-12. Everything a /v1 request passes through
// is attached here, in order, and nowhere else: the JSON body parser, authentication and the rate
// limit, the input check, Idempotency-Key, every feature's routes and the OpenAPI document. The
// dashboard (/dashboard) and the client gallery (/g) are sibling scopes that see none of it.
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { authHook } from './http/auth.ts';
import { createHash } from 'node:crypto';
import { registerConditionalGets } from './http/conditional.ts';
import { attachRouteHooks } from './http/route-hooks.ts';
import { openApiText, registerOpenApiDocument } from './http/openapi.ts';
import type { InFlightLimiter } from './http/in-flight.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import type { App } from './http/types.ts';
import { answerUnroutedFirst } from './http/error-handler.ts';
import { checkInput, isEmptyBody, parseJsonBody } from './http/validation.ts';
import { registerAccountRoutes } from './modules/accounts/account.routes.ts';
import { registerAnalysisRoutes } from './modules/analysis/analysis.routes.ts';
import { registerKitRoutes } from './modules/kit/kit.routes.ts';
import { registerClientsRoutes } from './modules/clients/clients.routes.ts';
import { registerIdempotency } from './mechanisms/idempotency/idempotency.hooks.ts';
import { registerListingsRoutes } from './modules/listings/listings.routes.ts';
import { registerShareLinksRoutes } from './modules/client-links/share-links.routes.ts';
import { registerMediaRoutes } from './modules/media/media.routes.ts';
import { registerUploadRoutes } from './modules/uploads/uploads.routes.ts';
import { registerNotificationsRoutes } from './modules/notifications/notifications.routes.ts';
import { registerWebhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { registerTestDataRoutes } from './modules/test-data/test-data.routes.ts';
import { registerProductsRoutes } from './modules/products/products.routes.ts';
import { registerInvoicesRoutes } from './modules/invoices/invoices.routes.ts';
import { registerMlsRoutes } from './modules/mls/mls.routes.ts';
import { registerResoRoutes } from './modules/reso/reso.routes.ts';
import type { Services } from './services.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface V1Options {
  services: Services;
  deps: Deps;
  limiter: RateLimiter;
  /** Requests in progress per key and per address (src/http/in-flight.ts). */
  inFlight: InFlightLimiter;
  /** The app's 404/405 handler: installed here so unknown /v1 paths run this scope's hooks first. */
  notFound: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

export async function registerV1(v1: App, { services, deps, limiter, inFlight, notFound }: V1Options): Promise<void> {
  // JSON only: a text/plain body is 415, not a string that fails validation. Many clients send
  // Content-Type: application/json on every request: an empty body is then "no body" (fine for
  // DELETE and assign; a route that needs a body answers validation_error).
  v1.removeAllContentTypeParsers();
  v1.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
    } catch (err) {
      done(err as AppError, undefined);
    }
  });

  // The key (or, without one, the client's address) is checked and charged first: unknown /v1
  // paths run this hook too, so they are counted and carry the RateLimit fields.
  v1.addHook('onRequest', authHook(services.apiKeys, limiter, inFlight));
  // Unknown paths and wrong methods: 404/405 before any body rule, the body left unread.
  v1.setNotFoundHandler(notFound);
  answerUnroutedFirst(v1, notFound);

  v1.addHook('preValidation', (request, _reply, done) => {
    const schema = request.routeOptions.schema as Parameters<typeof checkInput>[2];
    const refused = checkInput(request.body, request.query, schema);
    const first = refused[0];
    if (first !== undefined) {
      done(new AppError('validation_error', `${first.field} ${first.message}`, refused));
      return;
    }
    // `{}` or `null` where the operation takes no body is no body: an Idempotency-Key replays the
    // same whether a client sent one or nothing.
    if (schema?.body === undefined && request.body !== undefined && isEmptyBody(request.body)) request.body = undefined;
    done();
  });
  const idempotencyHooks = registerIdempotency(v1, services.idempotency);
  const conditionalHooks = registerConditionalGets(v1, {
    version: services.versions.current,
    salt: () =>
      createHash('sha256').update(openApiText(v1).etag).update('\n').update(deps.config.publicUrl).digest('base64url'),
    cacheBytes: deps.config.http.responseCacheBytes,
  });
  // The mechanisms' route hooks, in the order they run: the Idempotency-Key check first, then the
  // preconditions, evaluated once every other check has passed (docs/api.md §17).
  attachRouteHooks(v1, [idempotencyHooks, conditionalHooks]);

  registerOpenApiDocument(v1);
  registerAccountRoutes(v1, services);
  registerListingsRoutes(v1, services);
  registerShareLinksRoutes(v1, services);
  registerClientsRoutes(v1, services);
  registerNotificationsRoutes(v1, services);
  registerWebhooksRoutes(v1, services);
  registerTestDataRoutes(v1, services);
  registerProductsRoutes(v1, services);
  registerInvoicesRoutes(v1, services);
  registerMlsRoutes(v1, services);
  registerResoRoutes(v1, services, deps.clock);
  await registerMediaRoutes(v1, services, deps.config.media);
  registerAnalysisRoutes(v1, services);
  registerKitRoutes(v1, services);
  await registerUploadRoutes(v1, services, deps.config.media);
}
