// A deprecated route (src/http/deprecation.ts) on the app as built for production: a test-only
// route registered before the app is ready carries Deprecation (RFC 9745), Sunset (RFC 8594)
// and Link on every answer, errors included, and is `deprecated` in the OpenAPI document; routes
// without the option carry none of them, and a malformed deprecation stops the start.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { closeDeps, createDeps, type Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { deprecationHeaders } from './deprecation.ts';
import type { App } from './types.ts';

const deprecated = { since: '2026-12-01', sunset: '2027-06-01T00:00:00Z', link: 'https://example.com/changes#v2' };

let dir: string;
let deps: Deps;
let app: App;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lightbox-deprecation-'));
  deps = createDeps(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  ({ app } = await buildApp(deps, { logStream: new Writable({ write: (_c, _e, done) => done() }) }));
  app.get(
    '/deprecated-for-test',
    {
      config: { deprecated },
      schema: {
        summary: 'A test-only route',
        response: { 200: { description: 'ok', type: 'object', properties: { ok: { type: 'boolean' } } } },
        querystring: { type: 'object', properties: { fail: { type: 'string' } } },
      },
    },
    (request) => {
      if ((request.query as { fail?: string }).fail !== undefined) throw new AppError('not_found', 'Nothing here');
      return { ok: true };
    },
  );
  await app.ready();
});
after(async () => {
  await app.close();
  await closeDeps(deps);
  await rm(dir, { recursive: true, force: true });
});

describe('a deprecated route', () => {
  test('answers with Deprecation as @unix-seconds, Sunset as an HTTP date, and Link to the notice', async () => {
    const res = await app.inject({ method: 'GET', url: '/deprecated-for-test' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.deprecation, `@${String(Date.UTC(2026, 11, 1) / 1000)}`);
    assert.equal(res.headers.deprecation, '@1796083200');
    assert.equal(res.headers.sunset, 'Tue, 01 Jun 2027 00:00:00 GMT');
    assert.equal(
      res.headers.link,
      '<https://example.com/changes#v2>; rel="deprecation"; type="text/html", <https://example.com/changes#v2>; rel="sunset"; type="text/html"',
    );
  });

  test('its errors carry the headers too', async () => {
    const res = await app.inject({ method: 'GET', url: '/deprecated-for-test?fail=1' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers.deprecation, '@1796083200');
    assert.equal(res.headers.sunset, 'Tue, 01 Jun 2027 00:00:00 GMT');
  });

  test('is marked deprecated in the OpenAPI document; other operations are not', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    type Op = { deprecated?: boolean; responses: Record<string, { headers?: Record<string, unknown> }> };
    const paths = res.json<{ paths: Record<string, Record<string, Op>> }>().paths;
    const op = paths['/deprecated-for-test']?.get;
    assert.equal(op?.deprecated, true);
    // Its answers document the two headers; no other operation's do.
    assert.deepEqual(
      Object.keys(op.responses['200']?.headers ?? {}).filter((h) => /^(Deprecation|Sunset)$/.test(h)),
      ['Deprecation', 'Sunset'],
    );
    const others = Object.entries(paths).filter(([p]) => p !== '/deprecated-for-test');
    assert.ok(others.length > 10);
    for (const [p, item] of others) {
      for (const other of Object.values(item)) {
        assert.notEqual(other.deprecated, true, p);
        for (const response of Object.values(other.responses))
          assert.equal((response.headers ?? {}).Deprecation, undefined, p);
      }
    }
  });

  test('other routes send no Deprecation or Sunset', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.deprecation, undefined);
    assert.equal(res.headers.sunset, undefined);
  });
});

describe('deprecationHeaders', () => {
  test('without a sunset or link: Deprecation alone', () => {
    assert.deepEqual(deprecationHeaders({ since: '2027-01-01T12:00:00Z' }), { deprecation: '@1798804800' });
  });

  test('a malformed date, or a sunset before the deprecation, is refused', () => {
    assert.throws(() => deprecationHeaders({ since: 'soon' }), /since must be an ISO 8601 date/);
    assert.throws(() => deprecationHeaders({ since: '2027-01-01', sunset: 'next year' }), /sunset must be/);
    assert.throws(() => deprecationHeaders({ since: '2027-01-01', sunset: '2026-01-01' }), /after/);
  });

  test('a route registered with a malformed deprecation stops the start', async () => {
    const other = createDeps(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
    const built = await buildApp(other, { logStream: new Writable({ write: (_c, _e, done) => done() }) });
    try {
      assert.throws(
        () => built.app.get('/bad', { config: { deprecated: { since: 'yesterday' } } }, () => ({})),
        /since/,
      );
    } finally {
      await built.app.close();
      await closeDeps(other);
    }
  });
});
