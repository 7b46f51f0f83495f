// The OpenAPI document (section 10): public, valid OpenAPI 3.1, exactly the routes the app
// registered, every status code each can answer; and /docs, served without any external host.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { appRoutes, routeKey } from './app-routes.ts';
import { call, createTestContext, type TestContext } from './helpers.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
}

interface Document {
  openapi: string;
  info: { title: string; version: string };
  security?: Record<string, string[]>[];
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme?: string }> };
  paths: Record<string, Record<string, Operation>>;
}

/**
 * Registered but deliberately not in the document: Swagger UI's own page, assets and copies of
 * the document under /docs. HEAD twins of GET routes are left out too (Fastify adds them).
 * The document itself, /healthz and /readyz are in it.
 */
const UNDOCUMENTED = (url: string): boolean => url === '/docs' || url.startsWith('/docs/');

/** No key needed (section 3 and 10). */
const PUBLIC = new Set(['GET /v1/openapi.json', 'GET /healthz', 'GET /readyz']);

/** Codes specific to an operation's rules, beyond those every route of its kind answers. */
const SPECIFIC: Record<string, string[]> = {
  'POST /v1/clients': ['409'],
  'PATCH /v1/clients/{id}': ['409'],
  'GET /readyz': ['503'],
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let ctx: TestContext;
let doc: Document;

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

/** The success status a route of this shape answers: 201 creates in a collection, 204 deletes. */
function expectedSuccess(method: string, path: string): string {
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
    const registered = appRoutes(ctx.app)
      .filter((r) => r.method !== 'HEAD' && !UNDOCUMENTED(r.url))
      .map(routeKey)
      .sort();
    const documented = operations()
      .map(({ method, path }) => `${method} ${path.replace(/\{([^}]+)\}/g, ':$1')}`)
      .sort();
    assert.deepEqual(documented, registered);
    // And what is left out really is only /docs.
    for (const route of appRoutes(ctx.app)) {
      if (UNDOCUMENTED(route.url)) assert.ok(route.url === '/docs' || route.url.startsWith('/docs/'));
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
        const param = (op.parameters ?? []).find((p) => p.in === 'path' && p.name === name);
        assert.ok(param !== undefined, `${key}: path parameter ${String(name)} is not documented`);
        assert.equal(param.required, true);
      }
    }
  });

  test('every operation lists every status code it can answer', () => {
    for (const { key, method, path, op } of operations()) {
      const codes = Object.keys(op.responses);
      const success = codes.filter((c) => c.startsWith('2'));
      const expected = PUBLIC.has(key) ? ['200'] : [expectedSuccess(method, path)];
      assert.deepEqual(success, expected, `${key}: success codes`);

      const errors = new Set(['500', '503', ...(SPECIFIC[key] ?? [])]);
      if (!PUBLIC.has(key)) errors.add('401');
      if (!PUBLIC.has(key) && method !== 'GET') errors.add('403');
      // Any method that may carry a body meets the JSON body parser: 400, 413 and 415.
      if (method !== 'GET') for (const c of ['400', '413', '415']) errors.add(c);
      if (op.requestBody !== undefined) errors.add('400');
      if ((op.parameters ?? []).some((p) => p.in === 'query')) errors.add('400');
      if (path.includes('{')) errors.add('404');
      for (const code of errors) assert.ok(codes.includes(code), `${key} does not document ${code}`);
    }
  });

  test('error responses use the one error body; 204 has no content; others describe their body', () => {
    for (const { key, op } of operations()) {
      for (const [code, response] of Object.entries(op.responses)) {
        assert.ok(response.description !== undefined && response.description !== '', `${key} ${code}: no description`);
        if (code === '204') {
          assert.equal(response.content, undefined, `${key} 204 has content`);
        } else if (Number(code) >= 400) {
          const schema = response.content?.['application/json']?.schema;
          assert.equal(schema?.$ref, '#/components/schemas/Error', `${key} ${code}`);
        } else {
          assert.ok(response.content?.['application/json'] !== undefined, `${key} ${code} has no JSON body`);
        }
      }
    }
    assert.ok('Error' in doc.components.schemas);
  });

  test('JSON writes document their request body from the validating schema', () => {
    for (const { key, method, op } of operations()) {
      if (method !== 'POST' && method !== 'PATCH') continue;
      if (op.requestBody === undefined) continue;
      assert.ok('application/json' in op.requestBody.content, `${key} body is not JSON`);
    }
    const create = doc.paths['/v1/listings']?.post?.requestBody?.content['application/json'] as {
      schema: { additionalProperties?: boolean; required?: string[] };
    };
    assert.equal(create.schema.additionalProperties, false);
    assert.deepEqual(create.schema.required, ['address']);
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

  test('the page reads this document from the same server, with the online validator off', async () => {
    const { body } = await load('/docs/static/swagger-initializer.js');
    assert.match(body, /url: resolveUrl\('\.\/json'\)/);
    assert.match(body, /validatorUrl: null/);
    const copy = await call(ctx, 'GET', '/docs/json');
    assert.equal(copy.statusCode, 200);
    assert.deepEqual(copy.json(), doc);
  });
});
