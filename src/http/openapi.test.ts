// The OpenAPI document (docs/api.md §10): public, valid OpenAPI 3.1, exactly the routes the app
// registered, every status code each can answer; and /docs, served without any external host.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { appRoutes, routeKey } from '../../test/support/app-routes.ts';
import { withNamedSchemas } from './openapi-components.ts';
import { resolve, type Document as ResolvableDocument } from '../../test/fuzz/contract.ts';
import { call, createAccount, createTestContext, expectError, type TestContext } from '../../test/support/test-app.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: ({ in: string; name: string; required?: boolean } | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses: Record<
    string,
    {
      description?: string;
      content?: Record<string, { schema?: { $ref?: string; type?: string; format?: string } }>;
      headers?: Record<string, { $ref?: string }>;
    }
  >;
}

interface Document {
  openapi: string;
  info: { title: string; version: string };
  servers?: { url: string }[];
  security?: Record<string, string[]>[];
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
    headers: Record<string, { required?: boolean; schema: Record<string, unknown> }>;
    parameters: Record<string, { name: string; in: string; schema: Record<string, unknown> }>;
  };
  paths: Record<string, Record<string, Operation>>;
}

/**
 * Registered but deliberately not in the document: Swagger UI's own page, assets and copies of
 * the document under /docs, the admin dashboard's HTML pages under /dashboard, and the signpost
 * at / (a redirect to the dashboard or links to the rest). HEAD twins of GET routes are left out
 * too (Fastify adds them). The document itself, /healthz and /readyz are in it.
 */
const UNDOCUMENTED = (url: string): boolean =>
  url === '/' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url === '/dashboard' ||
  url.startsWith('/dashboard/') ||
  // The client gallery's pages and files (docs/api.md §14), the property pages with their
  // oEmbed answer (§25) and the client's portal (§28): HTML, bytes and oEmbed's own protocol,
  // not API operations.
  url.startsWith('/g/') ||
  url.startsWith('/p/') ||
  url.startsWith('/c/') ||
  url === '/oembed' ||
  // An invoice's pay page (HTML) and the endpoint Stripe posts its events to, in Stripe's own
  // protocol (docs/api.md §29).
  url.startsWith('/pay/') ||
  url.startsWith('/stripe/');

/** No key needed (docs/api.md §3 and §10). */
const PUBLIC = new Set(['GET /v1/openapi.json', 'GET /healthz', 'GET /readyz', 'OPTIONS /v1/listings/{id}/uploads']);

// Resumable uploads (docs/api.md §16): the tus 1.0 protocol's operations, HEAD and OPTIONS included.
const TUS_OPTIONS = 'OPTIONS /v1/listings/{id}/uploads';
const TUS_CREATE = 'POST /v1/listings/{id}/uploads';
const TUS_HEAD = 'HEAD /v1/listings/{id}/uploads/{upload_id}';
const TUS_PATCH = 'PATCH /v1/listings/{id}/uploads/{upload_id}';
const TUS_DELETE = 'DELETE /v1/listings/{id}/uploads/{upload_id}';
/** Answers of the tus protocol: all in headers, no body. */
const TUS_EMPTY: Record<string, string[]> = {
  [TUS_OPTIONS]: ['204'],
  [TUS_CREATE]: ['201'],
  [TUS_HEAD]: ['200'],
  [TUS_PATCH]: ['204'],
};

const MEDIA_CONTENT = 'GET /v1/listings/{id}/media/{media_id}/content';
const MEDIA_UPLOAD = 'POST /v1/listings/{id}/media';
const MEDIA_VARIANT = 'GET /v1/listings/{id}/media/{media_id}/variants/{name}';
/** docs/api.md §32: a listing kit's item, served as variants are. */
const KIT_ITEM = 'GET /v1/listings/{id}/kit/{name}';

/** Codes specific to an operation's rules, beyond those every route of its kind answers. */
const SPECIFIC: Record<string, string[]> = {
  'POST /v1/clients': ['409'],
  'PATCH /v1/clients/{id}': ['409'],
  'GET /readyz': ['503'],
  // docs/api.md §14: replacing the link of a gallery that has no client.
  'POST /v1/listings/{id}/client_link': ['409'],
  // docs/api.md §28: a 51st share link; emailing a share link that has no email.
  'POST /v1/listings/{id}/share_links': ['409'],
  'POST /v1/listings/{id}/share_links/{share_link_id}/notify': ['409'],
  // docs/api.md §15: testing a disabled endpoint.
  'POST /v1/webhook_endpoints/{id}/test': ['409'],
  // Conditional and range requests (docs/api.md §6 and §13).
  [MEDIA_CONTENT]: ['304', '416'],
  [MEDIA_VARIANT]: ['304', '416'],
  [KIT_ITEM]: ['304', '416'],
  // docs/api.md §32: a kit of a gallery that is not active, or has no ready photo.
  'POST /v1/listings/{id}/kit': ['409'],
  // Without Tus-Resumable: 1.0.0; a wrong Upload-Offset, or a completed upload terminated.
  [TUS_CREATE]: ['412'],
  [TUS_HEAD]: ['412'],
  [TUS_PATCH]: ['409', '412'],
  [TUS_DELETE]: ['409', '412'],
};

/** Success codes beyond the one every route of its kind answers. */
const EXTRA_SUCCESS: Record<string, string[]> = {
  [MEDIA_CONTENT]: ['206'],
  [MEDIA_VARIANT]: ['206'],
  [KIT_ITEM]: ['206'],
};

/** Responses that are the stored bytes, not JSON: media content, whole (200) or a range (206). */
const BINARY: Record<string, string[]> = {
  [MEDIA_CONTENT]: ['200', '206'],
  [MEDIA_VARIANT]: ['200', '206'],
  [KIT_ITEM]: ['200', '206'],
  // docs/api.md §29: the invoice as a PDF.
  'GET /v1/invoices/{id}/pdf': ['200'],
};

/** The content types each binary response may carry. */
const BINARY_TYPES: Record<string, string[]> = {
  // A photo's variants (docs/api.md §13) and a video's poster and web rendition (§25).
  [MEDIA_VARIANT]: ['image/jpeg', 'image/webp', 'video/mp4'],
  'GET /v1/invoices/{id}/pdf': ['application/pdf'],
  [KIT_ITEM]: ['application/pdf', 'application/zip', 'image/jpeg', 'video/mp4'],
};

/** Responses without a body: 204 everywhere, and 304 Not Modified. */
const NO_CONTENT = new Set(['204', '304']);

/** Request bodies that are multipart/form-data (file uploads) rather than JSON. */
const MULTIPART = new Set([MEDIA_UPLOAD]);
/** Request bodies that are a tus upload's raw bytes. */
const TUS_BODY = new Set([TUS_CREATE, TUS_PATCH]);

/** The media types media content is served as: exactly those the upload accepts (docs/api.md §6). */
const MEDIA_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/avif',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'application/pdf',
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let ctx: TestContext;
let doc: Document;

/** A schema of the document with its $refs replaced by what they name. */
const resolved = <T>(value: T, of: Document = doc): T => resolve(of as unknown as ResolvableDocument, value);

before(async () => {
  ctx = await createTestContext();
  const res = await call(ctx, 'GET', '/v1/openapi.json');
  assert.equal(res.statusCode, 200, res.body);
  doc = res.json<Document>();
});

after(async () => {
  await ctx.close();
});

function operations(): { key: string; method: string; path: string; op: Operation }[] {
  const out: { key: string; method: string; path: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      out.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op });
    }
  }
  return out;
}

/** The operation's inline parameters (the shared ones are $refs to components.parameters). */
const inline = (op: Operation): { in: string; name: string; required?: boolean }[] =>
  (op.parameters ?? []).filter((p): p is { in: string; name: string; required?: boolean } => !('$ref' in p));

/** The success status a route of this shape answers: 201 creates in a collection, 204 deletes. */
/** POSTs that act on a resource rather than create one (docs/api.md §14). */
const ACTIONS: Record<string, string> = {
  'POST /v1/listings/{id}/client_link': '200',
  'POST /v1/clients/{id}/listings/{listing_id}/notify': '202',
  'POST /v1/webhook_endpoints/{id}/rotate_secret': '200',
  'POST /v1/clients/{id}/portal/rotate': '200',
  'POST /v1/webhook_endpoints/{id}/test': '202',
  'POST /v1/webhook_endpoints/{id}/deliveries/{delivery_id}/retry': '202',
  'DELETE /v1/test_data': '202',
  // docs/api.md §28: a share link's new token, and its email sent again.
  'POST /v1/listings/{id}/share_links/{share_link_id}/rotate': '200',
  'POST /v1/listings/{id}/share_links/{share_link_id}/notify': '202',
  // docs/api.md §29: an invoice's transitions answer the invoice.
  'POST /v1/invoices/{id}/issue': '200',
  'POST /v1/invoices/{id}/void': '200',
  // docs/api.md §32: a kit build, in the background.
  'POST /v1/listings/{id}/kit': '202',
};

function expectedSuccess(method: string, path: string): string {
  const action = ACTIONS[`${method} ${path}`];
  if (action !== undefined) return action;
  if (method === 'PATCH' && TUS_BODY.has(`${method} ${path}`)) return '204';
  if (method === 'DELETE') return '204';
  if (method === 'POST' && !path.endsWith('}')) return '201';
  return '200';
}

describe('GET /v1/openapi.json', () => {
  test('answers without a key: an OpenAPI 3.1.x document as JSON', async () => {
    const res = await call(ctx, 'GET', '/v1/openapi.json');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc.info.title, 'Lightbox API');
    assert.equal(typeof doc.info.version, 'string');
    // A key is not needed, and a bad one does not get in the way either.
    const withBadKey = await call(ctx, 'GET', '/v1/openapi.json', { key: 'lbx_nonsense' });
    assert.equal(withBadKey.statusCode, 200);
  });

  test('is valid against the OpenAPI 3.1 schema, and every $ref resolves', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
    for (const [, name] of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(name !== undefined && name in doc.components.schemas, `dangling $ref ${String(name)}`);
    }
  });

  test('lists exactly the routes the app registered, method by method', () => {
    const documented = operations()
      .map(({ method, path }) => `${method} ${path.replace(/\{([^}]+)\}/g, ':$1')}`)
      .sort();
    // HEAD routes are Fastify's twins of GET routes, unless declared (and documented) on their own.
    const registered = appRoutes(ctx.app)
      .filter((r) => (r.method !== 'HEAD' || documented.includes(routeKey(r))) && !UNDOCUMENTED(r.url))
      .map(routeKey)
      .sort();
    assert.deepEqual(documented, registered);
    // And what is left out really is only /docs, and the HEAD twins of documented GET routes.
    const left = appRoutes(ctx.app).filter((route) => !documented.includes(routeKey(route)));
    assert.deepEqual(
      left.filter((route) => !UNDOCUMENTED(route.url) && route.method !== 'HEAD'),
      [],
    );
    for (const route of left.filter((r) => r.method === 'HEAD' && !UNDOCUMENTED(r.url))) {
      assert.ok(documented.includes(`GET ${route.url}`), `HEAD ${route.url} is not the twin of a documented GET`);
    }
  });

  test('every operation has a unique operationId, a summary and a tag', () => {
    const ids = new Set<string>();
    for (const { key, op } of operations()) {
      assert.ok(op.operationId !== undefined && op.operationId !== '', `${key} has no operationId`);
      assert.ok(!ids.has(op.operationId), `${key}: operationId ${op.operationId} is used twice`);
      ids.add(op.operationId);
      assert.ok(op.summary !== undefined && op.summary !== '', `${key} has no summary`);
      assert.ok(op.tags !== undefined && op.tags.length > 0, `${key} has no tag`);
    }
  });

  test('bearer authentication is required everywhere but the public operations', async () => {
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    assert.equal(doc.components.securitySchemes.apiKey?.type, 'http');
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
    for (const { key, method, path, op } of operations()) {
      if (PUBLIC.has(key)) {
        assert.deepEqual(op.security, [], `${key} should need no key`);
      } else {
        assert.ok(op.security === undefined || op.security.length > 0, `${key} should need a key`);
      }
      // What the document says matches what the route does without a key.
      if (method === 'GET') {
        const url = path.replace(/\{[^}]+\}/g, 'x_1');
        const res = await call(ctx, 'GET', url);
        assert.equal(res.statusCode === 401, !PUBLIC.has(key), `${key} answered ${res.statusCode} without a key`);
      }
    }
  });

  test('every path parameter is documented as a required path parameter', () => {
    for (const { key, path, op } of operations()) {
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        const param = inline(op).find((p) => p.in === 'path' && p.name === name);
        assert.ok(param !== undefined, `${key}: path parameter ${String(name)} is not documented`);
        assert.equal(param.required, true);
      }
    }
  });

  test('every operation lists every status code it can answer', () => {
    for (const { key, method, path, op } of operations()) {
      const codes = Object.keys(op.responses);
      const success = codes.filter((c) => c.startsWith('2'));
      const expected =
        key === TUS_OPTIONS
          ? ['204']
          : PUBLIC.has(key)
            ? ['200']
            : [expectedSuccess(method, path), ...(EXTRA_SUCCESS[key] ?? [])];
      assert.deepEqual(success, expected, `${key}: success codes`);

      const errors = new Set(['500', '503', ...(SPECIFIC[key] ?? [])]);
      if (!PUBLIC.has(key)) errors.add('401');
      // HEAD and OPTIONS read nothing and write nothing, like GET.
      const reads = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
      if (!PUBLIC.has(key) && !reads) errors.add('403');
      // Any method that may carry a body meets the JSON body parser: 400, 413 and 415.
      if (!reads) for (const c of ['400', '413', '415']) errors.add(c);
      if (op.requestBody !== undefined) errors.add('400');
      if (inline(op).some((p) => p.in === 'query')) errors.add('400');
      if (path.includes('{')) errors.add('404');
      // docs/api.md §9: every /v1 request is rate limited; every POST takes an Idempotency-Key (400, 409).
      if (path.startsWith('/v1/')) errors.add('429');
      // On other methods a bad key is 400 and a key the account used is 409 (another method).
      if (path.startsWith('/v1/') && !PUBLIC.has(key)) for (const c of ['400', '409']) errors.add(c);
      for (const code of errors) assert.ok(codes.includes(code), `${key} does not document ${code}`);
    }
  });

  test('error responses use the one error body; 204 and 304 have no content; binary bodies are binary; others JSON', () => {
    for (const { key, op } of operations()) {
      for (const [code, response] of Object.entries(op.responses)) {
        assert.ok(response.description !== undefined && response.description !== '', `${key} ${code}: no description`);
        if (NO_CONTENT.has(code) || TUS_EMPTY[key]?.includes(code) === true) {
          assert.equal(response.content, undefined, `${key} ${code} has content`);
        } else if (Number(code) >= 400) {
          // Errors are JSON even where the success body is not.
          assert.deepEqual(Object.keys(response.content ?? {}), ['application/json'], `${key} ${code}`);
          const schema = response.content?.['application/json']?.schema;
          assert.equal(schema?.$ref, '#/components/schemas/Error', `${key} ${code}`);
        } else if (BINARY[key]?.includes(code) === true) {
          const types = BINARY_TYPES[key] ?? MEDIA_TYPES;
          assert.deepEqual(Object.keys(response.content ?? {}).sort(), [...types].sort(), `${key} ${code}`);
          for (const [type, media] of Object.entries(response.content ?? {})) {
            assert.equal(media.schema?.type, 'string', `${key} ${code} ${type}`);
            assert.equal(media.schema.format, 'binary', `${key} ${code} ${type}`);
          }
        } else {
          assert.ok(response.content?.['application/json'] !== undefined, `${key} ${code} has no JSON body`);
        }
      }
    }
    // Every exception named above is a real response of a real operation.
    for (const [key, codes] of [...Object.entries(BINARY), ...Object.entries(EXTRA_SUCCESS)]) {
      const op = operations().find((o) => o.key === key)?.op;
      for (const code of codes) assert.ok(op?.responses[code] !== undefined, `${key} ${code} is not documented`);
    }
    assert.ok(doc.paths['/v1/listings/{id}/media/{media_id}/content']?.get?.responses['304'] !== undefined);
    assert.ok('Error' in doc.components.schemas);
  });

  test('writes document their request body: JSON from the validating schema, uploads as multipart/form-data', () => {
    for (const { key, method, op } of operations()) {
      if (method !== 'POST' && method !== 'PATCH') continue;
      if (op.requestBody === undefined) {
        assert.ok(!MULTIPART.has(key), `${key} documents no request body`);
        continue;
      }
      const types = Object.keys(op.requestBody.content);
      // The upload takes files as a form, or one URL as JSON (media from a URL, docs/api.md §21).
      const expected = MULTIPART.has(key)
        ? ['multipart/form-data', 'application/json']
        : TUS_BODY.has(key)
          ? ['application/offset+octet-stream']
          : ['application/json'];
      assert.deepEqual(types, expected, `${key} body types`);
    }
    const upload = doc.paths['/v1/listings/{id}/media']?.post?.requestBody;
    assert.equal(upload?.required, true);
    const form = upload.content['multipart/form-data'] as {
      schema: {
        type?: string;
        properties?: Record<string, { type?: string; items?: { type?: string; format?: string } }>;
      };
    };
    assert.equal(form.schema.type, 'object');
    assert.equal(form.schema.properties?.files?.type, 'array');
    assert.equal(form.schema.properties.files.items?.type, 'string');
    assert.equal(form.schema.properties.files.items.format, 'binary');
    const fromUrl = resolved(upload.content['application/json']) as {
      schema: { additionalProperties?: boolean; required?: string[]; properties?: Record<string, unknown> };
    };
    assert.equal(fromUrl.schema.additionalProperties, false);
    assert.deepEqual(fromUrl.schema.required, ['url']);
    assert.deepEqual(Object.keys(fromUrl.schema.properties ?? {}).sort(), ['filename', 'url']);
    const create = resolved(doc.paths['/v1/listings']?.post?.requestBody?.content['application/json']) as {
      schema: { additionalProperties?: boolean; required?: string[] };
    };
    assert.equal(create.schema.additionalProperties, false);
    assert.deepEqual(create.schema.required, ['address']);
  });
});

describe('names and descriptions, for generated clients', () => {
  /** Each operation's success body: the named schema a generated client types it with. */
  const SUCCESS_SCHEMA: Record<string, [status: string, schema: string]> = {
    listListings: ['200', 'ListingList'],
    createListing: ['201', 'Listing'],
    getListing: ['200', 'Listing'],
    updateListing: ['200', 'Listing'],
    listClients: ['200', 'ClientList'],
    createClient: ['201', 'Client'],
    getClient: ['200', 'Client'],
    updateClient: ['200', 'Client'],
    listClientListings: ['200', 'ClientListingList'],
    assignListing: ['200', 'Listing'],
    uploadMedia: ['201', 'MediaUploaded'],
    listMedia: ['200', 'MediaList'],
    getMedia: ['200', 'Media'],
    listNotifications: ['200', 'NotificationList'],
    getNotification: ['200', 'Notification'],
    healthz: ['200', 'HealthStatus'],
    readyz: ['200', 'HealthStatus'],
  };
  /** Request bodies and the schemas nested in the bodies, named too. */
  const BODY_SCHEMA: Record<string, string> = {
    createListing: 'ListingCreate',
    updateListing: 'ListingUpdate',
    createClient: 'ClientCreate',
    updateClient: 'ClientUpdate',
  };
  const NESTED = ['ListingItem', 'ClientItem', 'Pagination', 'WholeListPagination', 'ListingStatus'];
  const NESTED_MORE = ['MediaKind', 'NotificationStatus', 'Error'];

  const refTo = (name: string): string => `#/components/schemas/${name}`;

  test('no response is described as "Default Response"; every success says what it is, each its own', () => {
    assert.doesNotMatch(JSON.stringify(doc), /Default Response/);
    const seen = new Map<string, string>();
    for (const { key, op } of operations()) {
      for (const [code, response] of Object.entries(op.responses)) {
        assert.ok((response.description ?? '').length > 3, `${key} ${code}: no description`);
        if (!code.startsWith('2')) continue;
        const other = seen.get(response.description ?? '');
        assert.equal(other, undefined, `${key} ${code} and ${String(other)} say the same: ${response.description}`);
        seen.set(response.description ?? '', `${key} ${code}`);
      }
    }
  });

  test('a 404 names what was not found, a 409 on clients the duplicate email', () => {
    const at = (path: string, method: string, code: string): string =>
      doc.paths[path]?.[method]?.responses[code]?.description ?? '';
    assert.match(at('/v1/listings/{id}', 'get', '404'), /^No gallery with this id in this account/);
    assert.match(at('/v1/clients/{id}', 'delete', '404'), /^No client with this id/);
    assert.match(at('/v1/listings/{id}/media/{media_id}', 'get', '404'), /gallery.*media item/);
    assert.match(at('/v1/notifications/{id}', 'get', '404'), /^No notification/);
    assert.match(at('/v1/clients/{id}/listings/{listing_id}', 'delete', '404'), /not assigned to this client/);
    assert.match(at('/v1/clients', 'post', '409'), /another client of this account has this email/);
    assert.match(at('/v1/clients/{id}', 'patch', '409'), /another client of this account has this email/);
    assert.doesNotMatch(at('/v1/listings', 'post', '409'), /email/);
  });

  test('the resource schemas are named components, referenced by $ref from the operations', () => {
    const byId = new Map(operations().map((o) => [o.op.operationId ?? '', o.op]));
    for (const [id, [status, name]] of Object.entries(SUCCESS_SCHEMA)) {
      assert.ok(name in doc.components.schemas, `components.schemas.${name} is missing`);
      const schema = byId.get(id)?.responses[status]?.content?.['application/json']?.schema;
      assert.deepEqual(schema, { $ref: refTo(name) }, `${id} ${status}`);
    }
    for (const [id, name] of Object.entries(BODY_SCHEMA)) {
      assert.ok(name in doc.components.schemas, `components.schemas.${name} is missing`);
      const body = byId.get(id)?.requestBody?.content['application/json'] as { schema?: unknown } | undefined;
      assert.deepEqual(body?.schema, { $ref: refTo(name) }, `${id} request body`);
    }
    // The schemas inside them are named and referenced too, and none is left inline under a title.
    const text = JSON.stringify(doc);
    for (const name of [...NESTED, ...NESTED_MORE]) {
      assert.ok(name in doc.components.schemas, `components.schemas.${name} is missing`);
      assert.ok(text.includes(`"$ref":"${refTo(name)}"`), `${name} is never referenced`);
    }
    assert.doesNotMatch(JSON.stringify(doc.paths), /"title":/, 'a titled schema is still inline');
    const listing = doc.components.schemas.ListingList as { properties: Record<string, unknown> };
    assert.deepEqual(listing.properties.pagination, { $ref: refTo('Pagination') });
    assert.deepEqual((listing.properties.data as { items: unknown }).items, { $ref: refTo('ListingItem') });
    const media = doc.components.schemas.MediaList as { properties: Record<string, unknown> };
    assert.deepEqual(media.properties.pagination, { $ref: refTo('WholeListPagination') });
    // Every component is used somewhere.
    for (const name of Object.keys(doc.components.schemas)) {
      assert.ok(text.includes(`"$ref":"${refTo(name)}"`), `components.schemas.${name} is never referenced`);
    }
  });

  test('two different schemas under one title stop the document being built', () => {
    const titled = (maxLength: number) => ({ type: 'string', title: 'Name', maxLength });
    const paths = (second: number) => ({
      '/a': { get: { responses: { 200: { content: { 'application/json': { schema: titled(10) } } } } } },
      '/b': { get: { responses: { 200: { content: { 'application/json': { schema: titled(second) } } } } } },
    });
    const same = withNamedSchemas({ paths: paths(10), components: {} });
    assert.deepEqual(same.components, { schemas: { Name: titled(10) } });
    assert.throws(
      () => withNamedSchemas({ paths: paths(11), components: {} }),
      /two different schemas are titled Name/,
    );
  });

  test('no int64 maximum is above 2^53 - 1, the largest integer a JSON number keeps exactly', () => {
    let int64s = 0;
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if (schema.format === 'int64') {
        int64s += 1;
        assert.equal(typeof schema.maximum, 'number', `${where}: an int64 without a maximum`);
        assert.ok((schema.maximum as number) <= Number.MAX_SAFE_INTEGER, `${where}: maximum ${String(schema.maximum)}`);
      }
      if (schema.format === 'int32') assert.ok((schema.maximum as number) <= 2 ** 31 - 1, `${where}: int32 maximum`);
      for (const bound of ['maximum', 'minimum', 'maxLength', 'maxItems']) {
        const value = schema[bound];
        if (typeof value === 'number') assert.ok(Number.isSafeInteger(value), `${where}: ${bound} ${value}`);
      }
      for (const [k, v] of Object.entries(schema)) walk(v, `${where}/${k}`);
    };
    walk(doc, '#');
    assert.ok(int64s >= 5, 'page, total and sizes are int64');
    const page = (doc.components.schemas.Pagination as { properties: { page: { maximum: number } } }).properties.page;
    assert.equal(page.maximum, Number.MAX_SAFE_INTEGER);
  });

  test('the page bound the document states is the one enforced, and a page is echoed exactly', async () => {
    const account = await createAccount(ctx);
    const last = await call(ctx, 'GET', `/v1/listings?page=${Number.MAX_SAFE_INTEGER}`, { key: account.key });
    assert.equal(last.statusCode, 200, last.body);
    assert.deepEqual(last.json(), {
      data: [],
      pagination: { page: Number.MAX_SAFE_INTEGER, limit: 20, total: 0, total_exact: true, next_cursor: null },
    });
    // Past 2^53 - 1 neighbours merge (…993 reads as …992): the page asked for cannot be known.
    for (const page of ['9007199254740992', '9007199254740993', '100000000000000000000']) {
      const res = await call(ctx, 'GET', `/v1/listings?page=${page}`, { key: account.key });
      const error = expectError(res, 400, 'validation_error');
      assert.deepEqual(
        error.details?.map((d) => d.field),
        ['page'],
      );
    }
  });
});

describe('/docs', () => {
  // Swagger UI's bundle keeps its default online validator URL; the initializer turns it off
  // (validatorUrl: null), which the last test checks.
  const CDN = /unpkg\.com|jsdelivr|cdnjs|googleapis|gstatic|bootstrapcdn|cloudflare|fontawesome|jquery\.com/i;

  async function load(url: string): Promise<{ type: string; body: string }> {
    const res = await call(ctx, 'GET', url);
    assert.equal(res.statusCode, 200, `${url}: ${res.statusCode}`);
    return { type: String(res.headers['content-type']), body: res.body };
  }

  /** Every src/href of the page, resolved against the page's own URL. */
  const assets = (html: string, base: string): string[] =>
    [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map(
      ([, ref]) => new URL(ref ?? '', `http://local${base}`).pathname,
    );

  test('answers 200 HTML without a key and without any external URL', async () => {
    for (const page of ['/docs', '/docs/']) {
      const { type, body } = await load(page);
      assert.match(type, /^text\/html/);
      assert.doesNotMatch(body, /https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i, `${page} names an external host`);
      const refs = [...body.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map(([, ref]) => ref ?? '');
      assert.ok(refs.length > 0);
      for (const ref of refs) assert.ok(!/^(?:[a-z]+:)?\/\//i.test(ref), `${page} loads ${ref}`);
    }
  });

  test('the scripts and styles it loads are served locally and load nothing from a CDN', async () => {
    const { body: html } = await load('/docs/');
    const urls = assets(html, '/docs/');
    assert.ok(urls.some((u) => u.endsWith('.js')));
    assert.ok(urls.some((u) => u.endsWith('.css')));
    for (const url of urls) {
      assert.ok(url.startsWith('/docs/'), `${url} is outside /docs`);
      const { type, body } = await load(url);
      if (url.endsWith('.css')) {
        assert.match(type, /^text\/css/);
        assert.ok(!/@import/i.test(body), `${url} imports`);
        for (const [, target] of body.matchAll(/url\(\s*["']?([^"')]+)/gi)) {
          assert.ok(!/^(?:https?:)?\/\//i.test(target ?? ''), `${url} loads ${String(target)}`);
        }
      }
      if (url.endsWith('.js')) {
        assert.match(type, /javascript/);
        assert.equal(CDN.exec(body)?.[0], undefined, `${url} refers to a CDN`);
      }
    }
  });

  test('the page reads /v1/openapi.json from the same server, with the online validator off', async () => {
    const { body } = await load('/docs/static/swagger-initializer.js');
    // `urls` wins over the plugin's own `url` (./json): the top bar names the API's address.
    assert.match(body, /"urls":\[\{"url":"\/v1\/openapi\.json","name":"Lightbox API: \/v1\/openapi\.json"\}\]/);
    assert.match(body, /validatorUrl: null/);
    // Lightbox's logo, not the framework's.
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(body)?.[1];
    assert.ok(logo !== undefined, 'no logo in the initializer');
    assert.match(Buffer.from(logo, 'base64').toString('utf8'), />Lightbox</);
    const { body: html } = await load('/docs/');
    assert.match(html, /<title>Lightbox API reference<\/title>/);
    const copy = await call(ctx, 'GET', '/docs/json');
    assert.equal(copy.statusCode, 200);
    assert.deepEqual(copy.json(), doc);
  });
});

describe('docs/api.md §9 in the document: rate limits, idempotency, request ids', () => {
  const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];

  test('every response names X-Request-Id; every non-5xx /v1 response the rate-limit headers', () => {
    for (const { key, path, op } of operations()) {
      for (const [code, response] of Object.entries(op.responses)) {
        const names = Object.keys(response.headers ?? {});
        assert.ok(names.includes('X-Request-Id'), `${key} ${code}: no X-Request-Id`);
        const limited = path.startsWith('/v1/') && Number(code) < 500;
        for (const name of RATE_LIMIT) assert.equal(names.includes(name), limited, `${key} ${code}: ${name}`);
        for (const header of Object.values(response.headers ?? {})) {
          const name = header.$ref?.replace('#/components/headers/', '') ?? '';
          assert.ok(name in doc.components.headers, `${key} ${code}: dangling header ${String(header.$ref)}`);
        }
      }
    }
    assert.equal(doc.components.headers.XRequestId?.required, true);
  });

  test('every /v1 operation answers 429 with Retry-After; 401 comes with WWW-Authenticate', () => {
    for (const { key, path, op } of operations()) {
      if (!path.startsWith('/v1/')) {
        assert.equal(op.responses['429'], undefined, `${key} is not rate limited`);
        continue;
      }
      assert.equal(op.responses['429']?.headers?.['Retry-After']?.$ref, '#/components/headers/RetryAfter', key);
      const unauthorized = op.responses['401'];
      if (unauthorized !== undefined) assert.ok(unauthorized.headers?.['WWW-Authenticate'] !== undefined, key);
    }
  });

  test('every POST takes Idempotency-Key (1..255 printable ASCII) and may answer a replay', () => {
    const param = doc.components.parameters.IdempotencyKey;
    assert.equal(param?.name, 'Idempotency-Key');
    assert.equal(param.in, 'header');
    assert.deepEqual([param.schema.minLength, param.schema.maxLength], [1, 255]);
    const printable = new RegExp(String(param.schema.pattern), 'u');
    assert.ok(printable.test('a-key_1 with spaces~') && !printable.test('tab\there') && !printable.test('é'));
    for (const { key, method, op } of operations()) {
      const refs = (op.parameters ?? []).filter((p) => '$ref' in p).map((p) => ('$ref' in p ? p.$ref : ''));
      const takesKey = refs.includes('#/components/parameters/IdempotencyKey');
      assert.equal(takesKey, method === 'POST', `${key}: Idempotency-Key`);
      // Other authenticated /v1 methods document the check (400, 409) under the same header name.
      const checksKey = refs.includes('#/components/parameters/IdempotencyKeyChecked');
      assert.equal(checksKey, method !== 'POST' && key.startsWith(`${method} /v1/`) && !PUBLIC.has(key), key);
      if (method !== 'POST') continue;
      const success = Object.entries(op.responses).find(([code]) => code.startsWith('2'));
      assert.ok(success?.[1].headers?.['Idempotent-Replayed'] !== undefined, `${key}: Idempotent-Replayed`);
    }
  });

  test('Idempotent-Replayed only where a replay can come from; a POST 409 may carry Retry-After', () => {
    // Refused before the key is claimed (key, scope, rate limit, body parser), or a fault: never stored.
    const NEVER = new Set(['401', '403', '413', '415', '429', '500', '503']);
    for (const { key, method, op } of operations()) {
      for (const [code, response] of Object.entries(op.responses)) {
        const replayed = response.headers?.['Idempotent-Replayed'] !== undefined;
        if (method !== 'POST' || NEVER.has(code)) {
          assert.equal(replayed, false, `${key} ${code} is never a replay`);
        } else if (MULTIPART.has(key) || TUS_BODY.has(key)) {
          // Only a successful upload is kept.
          assert.equal(replayed, code.startsWith('2'), `${key} ${code}`);
        } else {
          // A handler's 4xx (400, 404, a duplicate email's 409) is kept and replayed.
          assert.equal(replayed, true, `${key} ${code}`);
        }
        const retryAfter = response.headers?.['Retry-After']?.$ref;
        if (code === '429') assert.equal(retryAfter, '#/components/headers/RetryAfter', `${key} 429`);
        else if (code === '409' && method === 'POST') {
          assert.equal(retryAfter, '#/components/headers/RetryAfterInFlight', `${key} 409`);
        } else assert.equal(retryAfter, undefined, `${key} ${code}`);
      }
    }
    assert.equal(doc.components.headers.RetryAfterInFlight?.required, undefined);
    assert.equal(doc.components.headers.RetryAfter?.required, true);
  });

  test('creates answer Location; the server URL is relative, so no deployment is misdescribed', () => {
    for (const id of ['createListing', 'createClient', 'createUpload', 'createWebhookEndpoint']) {
      const op = operations().find((o) => o.op.operationId === id)?.op;
      assert.ok(op?.responses['201']?.headers?.Location !== undefined, id);
    }
    assert.deepEqual(
      doc.servers?.map((s) => s.url),
      ['/'],
    );
  });

  test('the error body is bounded: a known code, clipped message and details, a request id', () => {
    const error = (doc.components.schemas.Error as { properties: { error: { properties: Record<string, any> } } })
      .properties.error.properties;
    assert.ok(error.code.enum.includes('rate_limited') && error.code.enum.includes('validation_error'));
    assert.equal(error.message.maxLength, 1000);
    assert.equal(error.details.maxItems, 100);
    assert.equal(error.request_id.maxLength, 128);
  });
});

describe('the document states the configured limits', () => {
  test('upload limits follow MEDIA_MAX_FILES and MEDIA_MAX_FILE_BYTES', async () => {
    const small = await createTestContext({ MEDIA_MAX_FILES: '7', MEDIA_MAX_FILE_BYTES: '5000' });
    try {
      const res = await call(small, 'GET', '/v1/openapi.json', { key: null });
      const smallDoc = res.json<Document>();
      const upload = resolved(smallDoc.paths['/v1/listings/{id}/media']?.post, smallDoc);
      const body = upload?.requestBody?.content['multipart/form-data'] as {
        schema: { properties: { files: { maxItems: number; items: { maxLength: number } } } };
      };
      assert.equal(body.schema.properties.files.maxItems, 7);
      assert.equal(body.schema.properties.files.items.maxLength, 5000);
      const created = upload?.responses['201']?.content?.['application/json']?.schema as {
        properties: { data: { maxItems: number } };
      };
      assert.equal(created.properties.data.maxItems, 7);
    } finally {
      await small.close();
    }
  });
});
