// Builds the application: plugins first, then every module's routes, registered explicitly
// here so the whole API surface reads in one file. server.ts only listens.
import { readFileSync } from 'node:fs';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { authHook } from './http/auth.ts';
import { createFrameworkErrors, registerErrorHandling } from './http/error-handler.ts';
import { registerHealthRoutes } from './http/health.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { genReqId } from './http/request-id.ts';
import { logRequest } from './http/request-log.ts';
import { encodedBodyHook, securityHook } from './http/security-headers.ts';
import type { App } from './http/types.ts';
import { checkInput, parseJsonBody, validatorCompiler } from './http/validation.ts';
import { createApiKeysService, type ApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { createAccountsService, type AccountsService } from './modules/accounts/accounts.service.ts';
import { createSessionsService, type SessionsService } from './modules/accounts/sessions.service.ts';
import { createSignInService, type SignInService } from './modules/accounts/sign-in.service.ts';
import { registerDashboard } from './dashboard/dashboard.plugin.ts';
import { createIdempotencyService, type IdempotencyService } from './modules/idempotency/idempotency.service.ts';
import { registerClientsRoutes } from './modules/clients/clients.routes.ts';
import { createClientsService, type ClientsService } from './modules/clients/clients.service.ts';
import multipart from '@fastify/multipart';
import { registerListingsRoutes } from './modules/listings/listings.routes.ts';
import { createMediaCleanup, type MediaCleanup } from './modules/media/media.cleanup.ts';
import { registerMediaRoutes } from './modules/media/media.routes.ts';
import { createMediaService, type MediaService } from './modules/media/media.service.ts';
import { registerNotificationsRoutes } from './modules/notifications/notifications.routes.ts';
import {
  createNotificationsService,
  type NotificationsService,
} from './modules/notifications/notifications.service.ts';
import { createListingsService, type ListingsService } from './modules/listings/listings.service.ts';
import { createStatsService, type StatsService } from './modules/stats/stats.service.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export interface Services {
  accounts: AccountsService;
  sessions: SessionsService;
  signIn: SignInService;
  apiKeys: ApiKeysService;
  listings: ListingsService;
  clients: ClientsService;
  idempotency: IdempotencyService;
  media: MediaService;
  mediaCleanup: MediaCleanup;
  notifications: NotificationsService;
  stats: StatsService;
}

export function createServices(deps: Deps): Services {
  const mediaCleanup = createMediaCleanup(deps);
  return {
    accounts: createAccountsService(deps),
    sessions: createSessionsService(deps),
    signIn: createSignInService(deps),
    apiKeys: createApiKeysService(deps),
    listings: createListingsService({ ...deps, cleanup: mediaCleanup }),
    clients: createClientsService(deps),
    idempotency: createIdempotencyService(deps),
    media: createMediaService({ ...deps, cleanup: mediaCleanup }),
    mediaCleanup,
    notifications: createNotificationsService(deps),
    stats: createStatsService(deps),
  };
}

export interface BuildOptions {
  /** Where log lines go; defaults to stdout. Tests pass a stream to read them back. */
  logStream?: NodeJS.WritableStream;
}

export const JSON_BODY_LIMIT = 1024 * 1024;

/** Fastify's option for TRUST_PROXY; a hop count trusts that many proxies nearest the server. */
function trustProxyOption(
  trust: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<{ app: App; services: Services }> {
  const services = createServices(deps);
  const logger: FastifyServerOptions['logger'] = {
    level: deps.config.logLevel,
    // Belt and braces: request logging is our own one line below, but never let a secret through.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
      censor: '[redacted]',
    },
    ...(options.logStream === undefined ? {} : { stream: options.logStream }),
  };
  // Redis (when configured) gets a moment to connect, so the first requests are counted shared.
  await deps.rateLimits.ready(2000);
  const limiter = createRateLimiter(deps.rateLimits, deps.config.limits, deps.clock);
  const app = Fastify({
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
    frameworkErrors: createFrameworkErrors(limiter),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1024 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // JSON only: a text/plain body is 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  // Many clients send Content-Type: application/json on every request: an empty body is then
  // "no body" (fine for DELETE and assign; a route that needs a body answers validation_error).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
    } catch (err) {
      done(err as AppError, undefined);
    }
  });
  app.decorateRequest('auth', null as never);

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (closing) {
      done(new AppError('unavailable', 'The service is shutting down; retry on another node'));
      return;
    }
    done();
  });
  // Protective headers on every response, before routing.
  app.addHook('onRequest', securityHook);
  // Compressed request bodies: refused unread, after authentication and the rate limit.
  app.addHook('preParsing', encodedBodyHook);
  app.addHook('preValidation', (request, _reply, done) => {
    const refused = checkInput(request.body, request.query, request.routeOptions.schema as never);
    const first = refused[0];
    done(
      first === undefined ? undefined : new AppError('validation_error', `${first.field} ${first.message}`, refused),
    );
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // While shutting down, a kept-alive connection closes after its response, so the process
    // is not held open by idle clients once in-flight requests are done.
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    logRequest(request, reply);
    done();
  });

  const notFound = registerErrorHandling(app);

  // The store's faults and recoveries (Redis down, Redis back) go to the app's log from now on.
  deps.rateLimits.attachLog(app.log);
  const authenticate = authHook(services.apiKeys, limiter);
  // A /v1 route registered outside the /v1 scope (the OpenAPI document) is counted like the rest.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/v1/') && !route.prefix.startsWith('/v1')) {
      const own =
        route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
      route.onRequest = [authenticate, ...own];
    }
  });

  await registerOpenApi(app, version);
  registerHealthRoutes(app, deps.db);

  await app.register(
    (v1, _options, done) => {
      v1.addHook('onRequest', authenticate);
      // Unknown /v1 paths run the hook above too: they are counted and carry the RateLimit fields.
      v1.setNotFoundHandler(notFound);
      registerIdempotency(v1, services.idempotency);
      registerListingsRoutes(v1, services);
      registerClientsRoutes(v1, services);
      registerNotificationsRoutes(v1, services);
      // Multipart parsing exists only where uploads are taken; every other route stays JSON-only.
      v1.register(async (uploads) => {
        await uploads.register(multipart, {
          limits: {
            // One byte over the file limit lets IngestStream refuse with its own message first.
            fileSize: deps.config.media.maxFileBytes + 1,
            files: deps.config.media.maxFiles,
            fields: 100,
            fieldSize: 64 * 1024,
            parts: deps.config.media.maxFiles + 100,
            headerPairs: 200,
          },
        });
        registerMediaRoutes(uploads, services);
      });
      done();
    },
    { prefix: '/v1' },
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
