// Builds the application: the root (request id, protective headers, errors, health, GET /, the
// OpenAPI plugin and /docs), then one scope per audience, registered explicitly here: /v1 (the JSON API,
// src/v1.ts) and /dashboard (the studio's pages, src/dashboard/). server.ts only listens.
import { readFileSync } from 'node:fs';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import { registerDashboard } from './dashboard/dashboard.plugin.ts';
import { galleryUnroutable, registerGallery } from './gallery/gallery.plugin.ts';
import { propertyUnroutable, registerProperty } from './property/property.plugin.ts';
import { registerOEmbed } from './property/oembed.routes.ts';
import { portalUnroutable, registerPortal } from './portal/portal.plugin.ts';
import { payUnroutable, registerPay } from './pay/pay.plugin.ts';
import { registerStripeWebhooks } from './modules/stripe/stripe.routes.ts';
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { connectionOptions, guardConnections } from './http/connections.ts';
import { checkDeprecation, deprecationHook } from './http/deprecation.ts';
import { createFrameworkErrors, registerErrorHandling } from './http/error-handler.ts';
import { registerHealthRoutes } from './http/health.ts';
import { createInFlightLimiter } from './http/in-flight.ts';
import { registerOpenApi } from './http/openapi.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { genReqId } from './http/request-id.ts';
import { registerRootRoute } from './http/root.ts';
import { logRequest } from './http/request-log.ts';
import { encodedBodyHook, securityHook } from './http/security-headers.ts';
import type { App } from './http/types.ts';
import { validatorCompiler } from './http/validation.ts';
import { createServices, type Services } from './services.ts';
import { registerV1 } from './v1.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export interface BuildOptions {
  /** Where log lines go; defaults to stdout. Tests pass a stream to read them back. */
  logStream?: NodeJS.WritableStream;
  /** The service graph, when the caller already built it (src/services.ts); made here otherwise. */
  services?: Services;
}

const JSON_BODY_LIMIT = 1024 * 1024;

/** Fastify's option for TRUST_PROXY; a hop count trusts that many proxies nearest the server. */
function trustProxyOption(
  trust: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<{ app: App; services: Services }> {
  const services = options.services ?? createServices(deps);
  const logger: FastifyServerOptions['logger'] = {
    level: deps.config.logLevel,
    // Belt and braces: request logging is our own one line below, but never let a secret through.
    redact: {
      // @fastify/multipart logs busboy's options, the request's headers among them, at trace.
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'busboyOptions.headers.authorization',
        'busboyOptions.headers.cookie',
      ],
      censor: '[redacted]',
    },
    ...(options.logStream === undefined ? {} : { stream: options.logStream }),
  };
  // Redis (when configured) gets a moment to connect, so the first requests are counted shared.
  await deps.rateLimits.ready(2000);
  const limiter = createRateLimiter(deps.rateLimits, deps.config.limits, deps.clock);
  const inFlight = createInFlightLimiter(deps.config.http);
  const app: App = Fastify({
    logger,
    genReqId,
    requestIdHeader: false,
    // One line per request is written by the onResponse hook below, with the key id.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: JSON_BODY_LIMIT,
    // request.ip (per-address rate limits, sign-in throttling) is the connection's address unless
    // TRUST_PROXY names the proxies allowed to speak for the client in X-Forwarded-For.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    return503OnClosing: false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors: createFrameworkErrors(limiter, [
      { prefix: '/g', notFound: (request, reply) => galleryUnroutable(limiter, request, reply) },
      { prefix: '/p', notFound: (request, reply) => propertyUnroutable(limiter, request, reply) },
      { prefix: '/c', notFound: (request, reply) => portalUnroutable(limiter, request, reply) },
      { prefix: '/pay', notFound: (request, reply) => payUnroutable(limiter, request, reply) },
    ]),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1024 },
    // Timeouts, and the answers Node makes below the app (src/http/connections.ts).
    ...connectionOptions(deps.config.http, () => app.log),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Outside /v1 (which parses JSON itself) and the dashboard (forms), no body is read as text.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('auth', null as never);

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const foreground = deps.foreground;
  app.addHook('onRequest', (request, reply, done) => {
    // Counted, so background work can give way while requests keep the node busy.
    foreground.request();
    void reply.header('x-request-id', request.id);
    if (closing) {
      done(new AppError('unavailable', 'The service is shutting down; retry on another node'));
      return;
    }
    done();
  });
  // Protective headers on every response, before routing.
  app.addHook('onRequest', securityHook);
  // A deprecated route says so on every answer (Deprecation, Sunset: docs/api-stability.md).
  app.addHook('onRoute', checkDeprecation);
  app.addHook('onRequest', deprecationHook);
  // Requests in progress per client address: /v1 takes its places after the rate limit (src/http/auth.ts);
  // health checks take none.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.server.prefix.startsWith('/v1') || request.routeOptions.config.unlimited === true) {
      done();
      return;
    }
    try {
      inFlight.holdAddress(request, reply);
      done();
    } catch (err) {
      done(err as AppError);
    }
  });
  // Compressed request bodies: refused unread, after authentication and the rate limit.
  app.addHook('preParsing', encodedBodyHook);
  // Timeouts and 100 Continue, after the refusals above: a refused body is never asked for.
  guardConnections(app, deps.config.http);
  app.addHook('onSend', (_request, reply, payload, done) => {
    // While shutting down, a kept-alive connection closes after its response, so the process
    // is not held open by idle clients once in-flight requests are done.
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  const metrics = deps.metrics;
  app.addHook('onResponse', (request, reply, done) => {
    logRequest(request, reply);
    // By the route's pattern (/v1/listings/:id); a URL no route matched is one series, not one each.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const notFound = registerErrorHandling(app);

  // The store's faults and recoveries (Redis down, Redis back) go to the app's log from now on.
  deps.rateLimits.attachLog(app.log);
  await registerOpenApi(app, version);
  registerHealthRoutes(app, deps.db);
  registerRootRoute(app, deps.config.publicUrl);

  await app.register((v1) => registerV1(v1, { services, deps, limiter, inFlight, notFound }), { prefix: '/v1' });

  // The client gallery: what a studio's client opens from the email (no key; the link is the capability).
  await app.register(
    async (gallery) => {
      await Promise.resolve(registerGallery(gallery, { services, config: deps.config, limiter, clock: deps.clock }));
    },
    { prefix: '/g' },
  );

  // The property pages: a published gallery for anyone (docs/api.md §25), and oEmbed for sites embedding them.
  await app.register(
    async (property) => {
      await Promise.resolve(registerProperty(property, { services, config: deps.config, limiter }));
    },
    { prefix: '/p' },
  );
  registerOEmbed(app, { services, publicUrl: deps.config.publicUrl, limiter });

  // The client's portal: every gallery of one client, from the link in every assignment email (docs/api.md §28).
  await app.register(
    async (portal) => {
      await Promise.resolve(registerPortal(portal, { services, limiter }));
    },
    { prefix: '/c' },
  );

  // docs/api.md §29: an invoice's pay link, and each studio's URL for Stripe's events.
  await app.register(
    async (pay) => {
      await Promise.resolve(registerPay(pay, { services, limiter }));
    },
    { prefix: '/pay' },
  );
  await app.register(
    async (stripe) => {
      await Promise.resolve(registerStripeWebhooks(stripe, { stripe: services.stripe }));
    },
    { prefix: '/stripe' },
  );

  // The admin dashboard: its own scope (forms, cookies, HTML errors), hidden from the OpenAPI document.
  await app.register(
    async (dashboard) => {
      await registerDashboard(dashboard, services, deps);
    },
    { prefix: '/dashboard' },
  );

  return { app, services };
}
