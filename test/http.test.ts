// Cross-cutting HTTP behaviour (docs/api.md §1, §2 and §10): request ids, the error
// shape for unknown routes and wrong methods, body parsing limits, faults that must not leak
// internals, health endpoints, and the one log line per request.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { closeDeps, createDeps } from '../src/deps.ts';
import {
  expectError,
  call,
  createAccount,
  createTestContext,
  type Response,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';

const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext();
  account = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

interface ErrorBody {
  error: { code: string; message: string; request_id: string; details?: { field: string; message: string }[] };
}

const assertError = expectError;

const listingCount = async (): Promise<number> =>
  (
    await ctx.deps.db.kysely
      .selectFrom('listings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n;

describe('X-Request-Id', () => {
  test('is generated when absent, and differs between requests', async () => {
    const a = await call(ctx, 'GET', '/healthz');
    const b = await call(ctx, 'GET', '/healthz');
    const idA = String(a.headers['x-request-id']);
    const idB = String(b.headers['x-request-id']);
    assert.match(idA, CALLER_ID);
    assert.match(idB, CALLER_ID);
    assert.notEqual(idA, idB);
  });

  test('is echoed when it is at most 128 characters of A-Za-z0-9._:-', async () => {
    for (const id of ['req-1', 'a.B_c:d-9', 'x'.repeat(128), '0', 'trace:2026-11-22T10:15:30.123Z']) {
      const res = await call(ctx, 'GET', '/healthz', { headers: { 'x-request-id': id } });
      assert.equal(res.headers['x-request-id'], id);
    }
  });

  test('is replaced when too long or with other characters', async () => {
    for (const id of [
      'x'.repeat(129),
      'has space',
      'semi;colon',
      'a/b',
      'q?x=1',
      '<script>',
      'ünïcode',
      'a,b',
      '"quoted"',
    ]) {
      const res = await call(ctx, 'GET', '/healthz', { headers: { 'x-request-id': id } });
      const echoed = String(res.headers['x-request-id']);
      assert.notEqual(echoed, id);
      assert.match(echoed, CALLER_ID);
    }
  });

  test('is on success and error responses alike, and equals error.request_id', async () => {
    const responses: [Response, number, string | null][] = [
      [await call(ctx, 'GET', '/v1/listings', { key: account.key }), 200, null],
      [await call(ctx, 'GET', '/v1/listings'), 401, 'unauthorized'],
      [await call(ctx, 'GET', '/v1/listings/lst_missing', { key: account.key }), 404, 'not_found'],
      [await call(ctx, 'GET', '/v1/listings?limit=0', { key: account.key }), 400, 'validation_error'],
      [await call(ctx, 'PUT', '/v1/listings', { key: account.key }), 405, 'method_not_allowed'],
      [await call(ctx, 'GET', '/nowhere'), 404, 'not_found'],
      [await call(ctx, 'POST', '/v1/listings', { key: account.key, body: '{' }), 400, 'invalid_json'],
    ];
    for (const [res, status, code] of responses) {
      assert.match(String(res.headers['x-request-id']), CALLER_ID);
      if (code === null) assert.equal(res.statusCode, status);
      else assertError(res, status, code);
    }
    const supplied = await call(ctx, 'GET', '/v1/listings', { headers: { 'x-request-id': 'caller-42' } });
    assert.equal(assertError(supplied, 401, 'unauthorized').request_id, 'caller-42');
  });
});

describe('routing', () => {
  test('an unknown route is 404 not_found in the error shape, with or without a key', async () => {
    for (const url of ['/nope', '/v1', '/v1/', '/v1/nope', '/v1/listings/lst_x/unknown', '/v2/listings']) {
      assertError(await call(ctx, 'GET', url), 404, 'not_found');
      assertError(await call(ctx, 'GET', url, { key: account.key }), 404, 'not_found');
    }
  });

  test('a known path with a wrong method is 405 method_not_allowed with an Allow header', async () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/v1/listings', ['GET', 'POST']],
      ['DELETE', '/v1/listings', ['GET', 'POST']],
      ['PUT', '/v1/listings/lst_x', ['GET', 'PATCH', 'DELETE']],
      ['POST', '/v1/listings/lst_x', ['GET', 'PATCH', 'DELETE']],
      ['PATCH', '/v1/clients/cli_x/listings/lst_y', ['POST', 'DELETE']],
      ['POST', '/healthz', ['GET']],
    ];
    for (const [method, url, expected] of cases) {
      const res = await call(ctx, method, url, { key: account.key });
      assertError(res, 405, 'method_not_allowed');
      const allow = String(res.headers.allow)
        .split(',')
        .map((m) => m.trim());
      for (const m of expected) assert.ok(allow.includes(m), `${method} ${url}: Allow ${allow.join(', ')} lacks ${m}`);
      assert.ok(!allow.includes(method), `${method} ${url}: Allow lists ${method}`);
    }
  });

  test('an id of a wrong shape in a path is simply not found', async () => {
    for (const id of ['x', 'lst_', '%ZZ', '%E0%A4%A', 'a%00b', 'lst_' + 'A'.repeat(2000), "1'%20or%20'1'='1"]) {
      assertError(await call(ctx, 'GET', `/v1/listings/${id}`, { key: account.key }), 404, 'not_found');
      assertError(await call(ctx, 'GET', `/v1/clients/${id}/listings`, { key: account.key }), 404, 'not_found');
    }
  });
});

describe('request bodies', () => {
  test('a JSON body over 1 MiB is 413 payload_too_large; just under is parsed', async () => {
    const over = JSON.stringify({ address: 'x'.repeat(1024 * 1024) });
    assertError(await call(ctx, 'POST', '/v1/listings', { key: account.key, body: over }), 413, 'payload_too_large');
    const under = JSON.stringify({ address: 'x'.repeat(1024 * 1024 - 100) });
    assert.ok(Buffer.byteLength(under) <= 1024 * 1024);
    // Parsed, then refused by the field rule (address is at most 500 characters).
    const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: under });
    assertError(res, 400, 'validation_error');
  });

  test('another content type is 415 unsupported_media_type, and nothing is created', async () => {
    const before = await listingCount();
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'text/html']) {
      const res = await call(ctx, 'POST', '/v1/listings', {
        key: account.key,
        body: 'address=1%20Main',
        headers: { 'content-type': type },
      });
      assertError(res, 415, 'unsupported_media_type');
      const patch = await call(ctx, 'PATCH', '/v1/listings/lst_x', {
        key: account.key,
        body: 'address=x',
        headers: { 'content-type': type },
      });
      assertError(patch, 415, 'unsupported_media_type');
    }
    assert.equal(await listingCount(), before);
  });

  test('a body that is not JSON is 400 invalid_json', async () => {
    for (const body of ['{"address":', "{'address': 'x'}", 'address=x', '{"address": "x",}', '\u0000']) {
      assertError(await call(ctx, 'POST', '/v1/listings', { key: account.key, body }), 400, 'invalid_json');
    }
  });

  test('an empty JSON body is no body: refused where a body is needed, accepted where none is', async () => {
    const jsonHeader = { 'content-type': 'application/json' };
    const empty = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: '', headers: jsonHeader });
    assertError(empty, 400, 'validation_error');
    assert.equal(empty.json<ErrorBody>().error.details?.[0]?.field, 'body');

    const listing = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '9 Empty Body Rd' } });
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: account.key,
      body: { name: 'Empty Body', email: `empty.${Date.now()}@example.com` },
    });
    const lid = listing.json<{ id: string }>().id;
    const cid = client.json<{ id: string }>().id;
    const assign = await call(ctx, 'POST', `/v1/clients/${cid}/listings/${lid}`, {
      key: account.key,
      body: '',
      headers: jsonHeader,
    });
    assert.equal(assign.statusCode, 200, assign.body);
    const del = await call(ctx, 'DELETE', `/v1/listings/${lid}`, { key: account.key, body: '', headers: jsonHeader });
    assert.equal(del.statusCode, 204, del.body);
  });

  test('JSON that is not an object is 400 validation_error', async () => {
    for (const body of ['[]', '"x"', '3', 'null', 'true']) {
      assertError(await call(ctx, 'POST', '/v1/listings', { key: account.key, body }), 400, 'validation_error');
    }
  });

  test('__proto__ and constructor.prototype payloads are refused and pollute nothing', async () => {
    const before = await listingCount();
    for (const body of [
      '{"address":"1 Main","__proto__":{"polluted":"yes"}}',
      '{"address":"1 Main","constructor":{"prototype":{"polluted":"yes"}}}',
      '{"address":"1 Main","description":{"__proto__":{"polluted":"yes"}}}',
    ]) {
      const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body });
      assert.equal(res.statusCode, 400, res.body);
      const { error } = res.json<ErrorBody>();
      assert.ok(['invalid_json', 'validation_error'].includes(error.code), error.code);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    }
    assert.equal(await listingCount(), before);
    // The app still works normally afterwards.
    const ok = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '1 Main' } });
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json<Record<string, unknown>>().polluted, undefined);
  });
});

describe('health', () => {
  test('/healthz is 200 without a key', async () => {
    const res = await call(ctx, 'GET', '/healthz');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  test('/readyz is 200 while the database answers', async () => {
    const res = await call(ctx, 'GET', '/readyz');
    assert.equal(res.statusCode, 200);
  });
});

/** What a 5xx body must never show: SQL, driver names, file paths, stack frames. */
const INTERNALS =
  /select|insert|from "|sqlite|postgres|kysely|driver|destroyed|connection|node_modules|\/work\/|\/tmp\/|\.ts\b|\.js\b|\bat \w|stack|Error:/i;

describe('faults', () => {
  // A context of its own, whose database connection this test destroys.
  test('with the database gone: 500/503 with nothing internal in the body; /readyz 503; /healthz 200', async () => {
    const broken = await createTestContext();
    try {
      const user = await createAccount(broken);
      const cached = user.key;
      // Used once, so the key check passes from the cache and the failure is in the query itself.
      assert.equal((await call(broken, 'GET', '/v1/listings', { key: cached })).statusCode, 200);
      const uncached = (await broken.services.apiKeys.create(user.accountId, { name: 'late' })).key;
      await broken.deps.db.destroy();

      const requests: [string, string, string, unknown][] = [
        ['GET', '/v1/listings', cached, undefined],
        ['POST', '/v1/listings', cached, { address: '1 Main' }],
        ['GET', '/v1/clients?search=x', cached, undefined],
        ['GET', '/v1/listings', uncached, undefined],
      ];
      for (const [method, url, key, body] of requests) {
        const res = await call(broken, method, url, { key, ...(body === undefined ? {} : { body }) });
        assert.ok(res.statusCode === 500 || res.statusCode === 503, `${method} ${url}: ${res.statusCode}`);
        const error = assertError(res, res.statusCode, res.statusCode === 500 ? 'internal_error' : 'unavailable');
        assert.equal(error.details, undefined);
        assert.doesNotMatch(res.body, INTERNALS, `${method} ${url} leaks: ${res.body}`);
        // The details go to the log, for the operator, under the same request id.
        const logged = broken
          .logs()
          .split('\n')
          .filter((line) => line.includes(error.request_id) && line.includes('"level":50'));
        assert.equal(logged.length, 1, `no error log line for ${error.request_id}`);
      }

      const ready = await call(broken, 'GET', '/readyz');
      const error = assertError(ready, 503, 'unavailable');
      assert.doesNotMatch(JSON.stringify(error), INTERNALS);
      assert.equal((await call(broken, 'GET', '/healthz')).statusCode, 200);
    } finally {
      await broken.close();
    }
  });

  test('with the database unreachable: 503 unavailable; /readyz 503; the URL and its password stay out of logs', async () => {
    // PostgreSQL on a port nobody listens on: every query is refused at connect time.
    const password = 'pg-Pa55word-unreachable';
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-unreachable-'));
    const deps = createDeps(
      loadConfig({ DATABASE_URL: `postgres://lightbox:${password}@127.0.0.1:1/lightbox`, DATA_DIR: dataDir }),
    );
    let logs = '';
    const logStream = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        logs += chunk.toString('utf8');
        done();
      },
    });
    const { app } = await buildApp(deps, { logStream });
    try {
      await app.ready();
      const unreachable = { ...ctx, app };
      const key = `lbx_${'a'.repeat(40)}`;
      for (const [method, url, body] of [
        ['GET', '/v1/listings', undefined],
        ['POST', '/v1/clients', { name: 'A', email: 'a@example.test' }],
      ] as const) {
        const res = await call(unreachable, method, url, { key, ...(body === undefined ? {} : { body }) });
        const error = assertError(res, 503, 'unavailable');
        assert.doesNotMatch(error.message, INTERNALS);
      }
      assertError(await call(unreachable, 'GET', '/readyz'), 503, 'unavailable');
      assert.equal((await call(unreachable, 'GET', '/healthz')).statusCode, 200);
      assert.ok(logs.includes('"status":503'));
      assert.ok(!logs.includes(password) && !logs.includes('127.0.0.1:1/lightbox'));
    } finally {
      await app.close();
      await closeDeps(deps);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('logs', () => {
  test('one JSON line per request, with request id, key id, status and time', async () => {
    const requests: { id: string; key?: string; url: string; status: number; keyId: string | null }[] = [
      { id: 'log-ok', key: account.key, url: '/v1/listings', status: 200, keyId: account.keyId },
      { id: 'log-missing', key: account.key, url: '/v1/listings/lst_none', status: 404, keyId: account.keyId },
      { id: 'log-anonymous', url: '/v1/listings', status: 401, keyId: null },
      { id: 'log-health', url: '/healthz', status: 200, keyId: null },
      { id: 'log-no-route', url: '/nowhere', status: 404, keyId: null },
      { id: 'log-bad-url', key: account.key, url: '/v1/listings/%ZZ', status: 404, keyId: null },
    ];
    for (const r of requests) {
      const res = await call(ctx, 'GET', r.url, { headers: { 'x-request-id': r.id }, key: r.key ?? null });
      assert.equal(res.statusCode, r.status, r.url);
    }
    const lines = ctx
      .logs()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const r of requests) {
      const mine = lines.filter((line) => line.request_id === r.id && line.msg === 'request');
      assert.equal(mine.length, 1, `${r.id}: ${mine.length} request lines`);
      const [line] = mine as [Record<string, unknown>];
      assert.equal(line.status, r.status);
      assert.equal(line.key_id, r.keyId);
      assert.equal(typeof line.time, 'number');
      assert.equal(typeof line.ms, 'number');
    }
  });

  test('no line ever holds an API key, an Authorization header or a password', async () => {
    const password = 'my password is hunter2-hunter2';
    const unknownKey = `lbx_${'Z'.repeat(40)}`;
    await call(ctx, 'GET', '/v1/listings', { key: unknownKey });
    await call(ctx, 'GET', '/v1/listings', { headers: { authorization: `Basic ${btoa(`me:${password}`)}` } });
    await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '1 Main', password } });
    await call(ctx, 'POST', '/v1/listings', { key: account.key, body: `{"password": "${password}"` });
    await call(ctx, 'GET', '/nowhere', { key: account.key, headers: { cookie: `session=${password}` } });

    const text = ctx.logs();
    assert.ok(text.length > 0);
    for (const line of text.split('\n').filter((l) => l !== '')) JSON.parse(line);
    for (const secret of [
      account.key,
      account.key.slice(10),
      unknownKey,
      'Bearer ',
      'Basic ',
      btoa(`me:${password}`),
      password,
      'correct horse battery', // the accounts' password (test/support/test-app.ts)
      'scrypt$',
    ]) {
      assert.ok(!text.includes(secret), `the log contains ${JSON.stringify(secret)}`);
    }
  });
});
