// What the /v1 scope does with a request's method, query and body before any handler runs
// (docs/api.md §1 and §2): the method is checked before any body rule, unknown query parameters are
// refused like unknown body fields, `{}` and `null` are no body where an operation takes none,
// and a body's shape (keys, depth) is bounded before it is parsed or validated.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';
import { jpeg } from './support/media-fixtures.ts';
import { assign, newClient, newGallery } from './support/notification-helpers.ts';

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext();
  account = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

const allowOf = (header: unknown): string[] =>
  String(header)
    .split(',')
    .map((m) => m.trim());

describe('a known path with a wrong method', () => {
  test('is 405 with Allow even when it carries a JSON body', async () => {
    const cases: [string, string, unknown, string[]][] = [
      ['PUT', '/v1/listings', { address: 'x' }, ['GET', 'POST']],
      ['PUT', '/v1/listings/lst_x', { address: 'x' }, ['GET', 'PATCH', 'DELETE']],
      ['POST', '/v1/notifications', {}, ['GET']],
      ['PATCH', '/v1/clients/cli_x/listings/lst_y', { a: 1 }, ['POST', 'DELETE']],
      ['POST', '/healthz', { a: 1 }, ['GET']],
    ];
    for (const [method, url, body, allowed] of cases) {
      const res = await call(ctx, method, url, { key: account.key, body });
      expectError(res, 405, 'method_not_allowed');
      const allow = allowOf(res.headers.allow);
      for (const m of allowed) assert.ok(allow.includes(m), `${method} ${url}: Allow ${allow.join(', ')} lacks ${m}`);
    }
  });

  test('is 405 before the body is looked at: invalid JSON, another type, over 1 MiB, compressed', async () => {
    const bodies: [string, Record<string, string>][] = [
      ['{"address":', { 'content-type': 'application/json' }],
      ['address=x', { 'content-type': 'text/plain' }],
      [`{"address":"${'x'.repeat(1024 * 1024)}"}`, { 'content-type': 'application/json' }],
      ['\u001f\u008b not really gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
    ];
    for (const [body, headers] of bodies) {
      const res = await call(ctx, 'PUT', '/v1/listings', { key: account.key, body, headers });
      expectError(res, 405, 'method_not_allowed');
      // The body was left unread, so the connection is not kept for another request.
      assert.equal(res.headers.connection, 'close');
    }
    const nowhere = await call(ctx, 'POST', '/v1/nowhere', { key: account.key, body: '{' });
    expectError(nowhere, 404, 'not_found');
  });

  test('without a key: still 405 (after the address is counted), not 401', async () => {
    const res = await call(ctx, 'PUT', '/v1/listings', { body: { address: 'x' } });
    expectError(res, 405, 'method_not_allowed');
    assert.equal(typeof res.headers['ratelimit-remaining'], 'string');
  });
});

describe('unknown query parameters', () => {
  test('are refused on a list, named as the parameter (400 validation_error)', async () => {
    const res = await call(ctx, 'GET', '/v1/notifications?client_id=cli_x', { key: account.key });
    const error = expectError(res, 400, 'validation_error');
    assert.deepEqual(error.details, [{ field: 'client_id', message: 'is not a known query parameter' }]);
    assert.match(error.message, /^client_id /);

    const two = await call(ctx, 'GET', '/v1/listings?status=draft&order=price&q=x', { key: account.key });
    assert.deepEqual(detailFields(expectError(two, 400, 'validation_error')), ['order', 'q']);
  });

  test('are refused on every route, including those that declare none', async () => {
    const listing = (await newGallery(ctx, account)).id;
    const client = (await newClient(ctx, account)).id;
    const routes: [string, string][] = [
      ['GET', `/v1/listings/${listing}`],
      ['GET', `/v1/listings/${listing}/media`],
      ['GET', `/v1/clients/${client}/listings`],
      ['DELETE', `/v1/listings/lst_x`],
      ['POST', `/v1/clients/${client}/listings/${listing}`],
      ['GET', '/v1/openapi.json'],
    ];
    for (const [method, url] of routes) {
      const res = await call(ctx, method, `${url}?expand=all`, { key: account.key });
      assert.deepEqual(detailFields(expectError(res, 400, 'validation_error')), ['expand'], `${method} ${url}`);
    }
    // Nothing was assigned by the refused POST.
    const listed = await call(ctx, 'GET', `/v1/clients/${client}/listings`, { key: account.key });
    assert.equal(listed.json<{ pagination: { total: number } }>().pagination.total, 0);
  });

  test('the declared ones still work, and the error names the parameter, not a read-only field', async () => {
    assert.equal((await call(ctx, 'GET', '/v1/notifications?status=queued', { key: account.key })).statusCode, 200);
    assert.equal((await call(ctx, 'GET', '/v1/listings?page=1&limit=5', { key: account.key })).statusCode, 200);
    const res = await call(ctx, 'GET', '/v1/listings?id=lst_x', { key: account.key });
    assert.deepEqual(expectError(res, 400, 'validation_error').details, [
      { field: 'id', message: 'is not a known query parameter' },
    ]);
  });
});

describe('an operation that takes no body', () => {
  test('accepts {} and null as no body (assign, delete)', async () => {
    for (const body of ['{}', 'null', ' { } ']) {
      const listing = (await newGallery(ctx, account)).id;
      const client = (await newClient(ctx, account)).id;
      const res = await call(ctx, 'POST', `/v1/clients/${client}/listings/${listing}`, { key: account.key, body });
      assert.equal(res.statusCode, 200, `${body}: ${res.body}`);
      const gallery = await call(ctx, 'GET', `/v1/listings/${listing}`, { key: account.key });
      assert.equal(gallery.json<{ client_id: string }>().client_id, client);
      const del = await call(ctx, 'DELETE', `/v1/listings/${listing}`, { key: account.key, body });
      assert.equal(del.statusCode, 204, `${body}: ${del.body}`);
    }
  });

  test('an Idempotency-Key replays the same assignment whether {} or nothing was sent', async () => {
    const listing = (await newGallery(ctx, account)).id;
    const client = (await newClient(ctx, account)).id;
    const url = `/v1/clients/${client}/listings/${listing}`;
    const headers = { 'idempotency-key': `empty-body-${listing}` };
    const first = await call(ctx, 'POST', url, { key: account.key, body: {}, headers });
    assert.equal(first.statusCode, 200, first.body);
    const again = await call(ctx, 'POST', url, { key: account.key, headers });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });

  test('still refuses a body with anything in it', async () => {
    const listing = (await newGallery(ctx, account)).id;
    const client = (await newClient(ctx, account)).id;
    for (const body of ['{"notify":false}', '[]', '0', '""', 'false']) {
      const res = await call(ctx, 'POST', `/v1/clients/${client}/listings/${listing}`, { key: account.key, body });
      assert.deepEqual(detailFields(expectError(res, 400, 'validation_error')), ['body'], body);
    }
    await assign(ctx, account, client, listing);
  });
});

describe('a raw upload', () => {
  test('is told to send multipart/form-data, or JSON naming a URL (415)', async () => {
    const listing = (await newGallery(ctx, account)).id;
    for (const type of ['image/jpeg', 'application/octet-stream']) {
      const res = await call(ctx, 'POST', `/v1/listings/${listing}/media`, {
        key: account.key,
        body: (await jpeg()).toString('base64'),
        headers: { 'content-type': type },
      });
      const error = expectError(res, 415, 'unsupported_media_type');
      assert.equal(error.message, 'Unsupported Content-Type; send multipart/form-data or application/json');
    }
    // A JSON route still names JSON.
    const json = await call(ctx, 'POST', '/v1/listings', {
      key: account.key,
      body: 'x',
      headers: { 'content-type': 'image/jpeg' },
    });
    assert.match(expectError(json, 415, 'unsupported_media_type').message, /application\/json/);
  });
});

describe('the shape of a JSON body is bounded before it is parsed', () => {
  test('80,000 unknown fields in 1 MiB: 400 naming the limit, with one detail', async () => {
    const parts: string[] = [];
    for (let i = 0, size = 2; size + 20 < 1024 * 1024; i += 1) {
      parts.push(`"f${i}":0`);
      size += parts.at(-1)!.length + 1;
    }
    const body = `{${parts.join(',')}}`;
    assert.ok(parts.length > 70_000 && body.length <= 1024 * 1024);
    for (const [method, url] of [
      ['POST', '/v1/listings'],
      ['PATCH', '/v1/listings/lst_x'],
      ['POST', '/v1/clients'],
    ] as const) {
      const error = expectError(await call(ctx, method, url, { key: account.key, body }), 400, 'validation_error');
      assert.deepEqual(detailFields(error), ['body'], `${method} ${url}`);
      assert.match(error.details?.[0]?.message ?? '', /at most 256 fields/);
    }
  });

  test('arrays nested 5,000 deep in 10 KB: 400, not a 500', async () => {
    const deep = `{"address":${'['.repeat(5000)}"x"${']'.repeat(5000)}}`;
    for (const [method, url] of [
      ['POST', '/v1/listings'],
      ['POST', '/v1/clients'],
      ['DELETE', '/v1/listings/lst_x'],
    ] as const) {
      const error = expectError(
        await call(ctx, method, url, { key: account.key, body: deep }),
        400,
        'validation_error',
      );
      assert.deepEqual(detailFields(error), ['body']);
      assert.match(error.details?.[0]?.message ?? '', /nested at most 32 deep/);
    }
    // A NUL hidden deep inside (but within the limit) is found without recursion trouble.
    const nul = `{"address":${'['.repeat(30)}"a\\u0000b"${']'.repeat(30)}}`;
    const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: nul });
    assert.ok(detailFields(expectError(res, 400, 'validation_error')).includes('address'));
  });

  test('strings that look like structure do not count: brackets, colons and escaped quotes inside text', async () => {
    const text = `${'[{:'.repeat(100)}\\"${':'.repeat(300)}`;
    const body = `{"address":"1 Main","description":"${text}"}`;
    const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json<{ description: string }>().description, text.replace('\\"', '"'));
  });

  test('a value far over its maxLength is reported as before, whatever it is made of', async () => {
    for (const address of ['x'.repeat(1024 * 1000), '😀'.repeat(200_000), `${'a'.repeat(1001)}😀`]) {
      const body = { address, beds: -1 };
      const error = expectError(
        await call(ctx, 'POST', '/v1/listings', { key: account.key, body }),
        400,
        'validation_error',
      );
      assert.deepEqual(error.details, [
        { field: 'address', message: 'must NOT have more than 500 characters' },
        { field: 'beds', message: 'must be >= 0' },
      ]);
    }
    // 500 emoji are 1,000 UTF-16 units and 500 characters: accepted, exactly.
    const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '😀'.repeat(500) } });
    assert.equal(res.statusCode, 201, res.body);
  });

  test('up to the limits is validated as before: every unknown field named', async () => {
    const body: Record<string, unknown> = { address: 'x' };
    for (let i = 0; i < 255; i += 1) body[`extra_${i}`] = i;
    const error = expectError(
      await call(ctx, 'POST', '/v1/listings', { key: account.key, body }),
      400,
      'validation_error',
    );
    assert.equal(error.details?.length, 100);
    assert.equal(error.details?.[0]?.field, 'extra_0');
  });
});
