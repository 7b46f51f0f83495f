// The OpenAPI 3.1 document is generated from the route schemas; /docs renders it with
// Swagger UI's bundled assets (no CDN).
import { createHash } from 'node:crypto';
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './types.ts';
import { ERROR_DESCRIPTIONS, ErrorAnswer, ErrorBody, errorResponses, type ErrorStatus } from './schemas.ts';
import { withNamedSchemas } from './openapi-components.ts';
import { withProtocolHeaders } from './openapi-headers.ts';
import { ifNoneMatch, isConditionalRoute } from './conditional.ts';

const NOT_MODIFIED = {
  type: 'null',
  description: 'Not modified: `If-None-Match` names the current `ETag` (or is `*`). No body; the same `ETag`.',
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What the path segment before an id names, for a 404's description. */
const RESOURCES: Record<string, string> = {
  listings: 'gallery',
  clients: 'client',
  media: 'media item',
  uploads: 'upload',
  notifications: 'notification',
};

/** "No gallery with this id in this account", "..., or no such media item in it", from the route's path. */
function notFoundDescription(url: string): string {
  const nouns = [...url.matchAll(/([a-z_]+)\/:[a-z_]+/g)].map(([, segment = '']) => RESOURCES[segment] ?? 'resource');
  const [first = 'resource', ...rest] = nouns;
  const more = rest.map((noun) => `, or no such ${noun} in it`).join('');
  return `No ${first} with this id in this account${more} (\`not_found\`).`;
}

/**
 * The layers in front of every handler answer too: the rate limit (429), the key check (401), the
 * scope check (403 on writes), the Idempotency-Key check (400, 409), the query check (400: a parameter
 * the operation does not declare), the body readers (400, 408, 413, 415 on any method that may carry a
 * body) and the id lookup (404). Documenting them here keeps each
 * route's own list to what its handler adds, and keeps the document honest when a route forgets
 * one. Their headers are added to the whole document by openapi-headers.ts.
 */
const withFrontErrors: SwaggerTransform = ({ schema, url, route }) => {
  if (schema === undefined || schema.hide === true) return { schema, url };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const statuses: ErrorStatus[] = [];
  if (url.startsWith('/v1/')) {
    // Every /v1 request counts against a rate limit: per key, or per address without one; and a
    // query parameter the operation does not declare is refused (400).
    statuses.push(429, 400);
    if (route.config?.auth !== false) {
      statuses.push(401);
      if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) statuses.push(403);
      // Idempotency-Key: a bad one is 400 on any method; on a POST a reused or busy one is 409,
      // on another method a key the account already used is 409.
      statuses.push(400, 409);
    }
  }
  if (methods.some((m) => BODY_METHODS.has(m))) statuses.push(400, 408, 413, 415);
  if (url.includes('/:')) statuses.push(404);
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const response: Record<string, unknown> = { ...errorResponses(...statuses), ...declared };
  // JSON reads answer If-None-Match (docs/api.md §17; src/http/conditional.ts).
  if (url.startsWith('/v1/') && isConditionalRoute(route)) response['304'] = NOT_MODIFIED;
  // A 404 says what was not found, unless the route says more itself.
  const notFound = response['404'] as { description?: string } | undefined;
  if (notFound?.description === ERROR_DESCRIPTIONS[404]) response['404'] = ErrorAnswer(notFoundDescription(url));
  // A deprecated route (src/http/deprecation.ts) is marked so in the document too.
  const deprecated = route.config?.deprecated === undefined ? {} : { deprecated: true };
  return { schema: { ...schema, response, ...deprecated }, url };
};

/**
 * At the root, before any scope, so the document sees every route registered after it; /docs
 * renders it. The document itself is served inside the /v1 scope (registerOpenApiDocument).
 */
export async function registerOpenApi(app: App, version: string): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Lightbox API',
        version,
        description:
          'Galleries (`listings`) with their media, and clients, for photography studios. ' +
          'Authenticate with `Authorization: Bearer <API_KEY>`. Errors share one body: ' +
          '`{"error": {"code", "message", "details"?, "request_id"}}`. Every /v1 request is rate limited ' +
          '(per key, or per address without one; 429 with `Retry-After`, and `RateLimit-*` headers on every ' +
          'response). Every POST takes an optional `Idempotency-Key` header for safe retries.',
      },
      // Relative to where this document is served: right for every deployment (local, staging or
      // production alike), whatever its PUBLIC_URL, and never a plain-http URL baked in.
      servers: [
        {
          url: '/',
          description: 'This deployment: the host serving this document (local, staging or production).',
          'x-internal': false,
        } as { url: string; description: string },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An `lbx_...` API key, made in the dashboard or with `lightbox keys create`. Scope `full` or ' +
              '`read_only` (GET only); optional expiry; revocable.',
          },
        },
      },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'Account', description: 'The studio behind an API key.' },
        { name: 'Galleries', description: 'Property galleries (path segment `listings`).' },
        { name: 'Media', description: 'Photos, videos and documents of a gallery.' },
        {
          name: 'Uploads',
          description:
            'Resumable uploads (tus 1.0): a file sent in pieces over any number of connections becomes media.',
        },
        { name: 'Clients', description: "The studio's client records and their galleries." },
        {
          name: 'Share links',
          description: 'Links to a gallery for anyone around a listing, with their proofing (docs/api.md §28).',
        },
        { name: 'Products', description: "The studio's catalogue: what it sells, at what price (docs/api.md §29)." },
        { name: 'Invoices', description: 'Invoices for a gallery, their payments and PDF (docs/api.md §29).' },
        {
          name: 'MLS',
          description:
            "MLS profiles (what a listing service accepts) and a gallery's compliance with one (docs/api.md §31).",
        },
        { name: 'Notifications', description: 'Emails sent to clients when a gallery is assigned to them.' },
        {
          name: 'Webhooks',
          description: 'Endpoints that hear about every change, signed (Standard Webhooks), and the events sent.',
        },
        { name: 'Operations', description: 'Health and the API description.' },
      ],
    },
    transform: withFrontErrors,
    transformObject: (document) =>
      withProtocolHeaders(withNamedSchemas('openapiObject' in document ? document.openapiObject : {})),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The page reads the API's own address (the one clients use), not the plugin's /docs/json copy.
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      urls: [{ url: '/v1/openapi.json', name: 'Lightbox API: /v1/openapi.json' }],
    },
    logo: { type: 'image/svg+xml', content: LOGO, href: '/docs', target: '_self' },
    theme: { title: 'Lightbox API reference' },
  });
}

/** Swagger UI's top bar shows this in place of the framework's logo. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40">
<rect x="2" y="6" width="28" height="28" rx="4" fill="none" stroke="#ffffff" stroke-width="3"/>
<rect x="10" y="14" width="12" height="12" rx="2" fill="#f5b942"/>
<text x="38" y="28" font-family="system-ui, sans-serif" font-size="22" font-weight="700" fill="#ffffff">Lightbox</text>
</svg>`;

export interface OpenApiText {
  text: string;
  /** Strong: the same bytes for the life of the process (and on every node of one build). */
  etag: string;
}

const documents = new WeakMap<App, OpenApiText>();

/** The document as served, made once per scope (the routes cannot change after start). */
export function openApiText(v1: App): OpenApiText {
  let found = documents.get(v1);
  if (found === undefined) {
    const text = JSON.stringify(v1.swagger());
    found = { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"` };
    documents.set(v1, found);
  }
  return found;
}

/**
 * `GET /v1/openapi.json`, in the /v1 scope: no key needed, but counted like every /v1 request.
 * Its ETag is the document's hash; If-None-Match is answered here (weakly compared).
 */
export function registerOpenApiDocument(v1: App): void {
  v1.get(
    '/openapi.json',
    {
      config: { auth: false },
      schema: {
        operationId: 'getOpenApi',
        summary: 'This OpenAPI 3.1 document',
        tags: ['Operations'],
        security: [],
        response: {
          200: { type: 'object', additionalProperties: true, description: 'This OpenAPI 3.1 document.' },
          304: { type: 'null', description: 'Not modified: the `ETag` matches (`If-None-Match`).' },
        },
      },
    },
    (request, reply) => {
      const { text, etag } = openApiText(v1);
      void reply.header('etag', etag);
      if (ifNoneMatch(request.headers['if-none-match'], etag) !== 'none') return reply.code(304).send();
      return reply.type('application/json').send(text);
    },
  );
}
