// Galleries (`/v1/listings`): create, read, change and delete one gallery; docs/api.md §5, with the
// conventions of §1, §2 and §4.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertError, assertValidation, GALLERY_KEYS, ISO_MS } from '../../../test/support/api-assertions.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { listingsApi } from '../../../test/support/listings-api.ts';

let ctx: TestContext;
let key: string;

before(async () => {
  ctx = await createTestContext();
  ({ key } = await createAccount(ctx));
});
after(() => ctx.close());

const { createListing, post, patch } = listingsApi(() => ({ ctx, key }));

describe('POST /v1/listings', () => {
  test('creates a gallery: 201, Location, every field present, defaults', async () => {
    const res = await post({ address: '12 Harbour Road' });
    assert.equal(res.statusCode, 201);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const g = res.json();
    assert.deepEqual(Object.keys(g).sort(), GALLERY_KEYS);
    assert.match(g.id, /^lst_[A-Za-z0-9_-]+$/);
    assert.ok(g.id.length <= 40);
    assert.equal(res.headers.location, `/v1/listings/${g.id}`);
    assert.equal(g.address, '12 Harbour Road');
    assert.equal(g.status, 'draft');
    for (const field of ['beds', 'baths', 'sqft', 'description', 'mls_number', 'client_id']) {
      assert.equal(g[field], null, field);
    }
    assert.equal(g.media_count, 0);
    assert.match(g.created_at, ISO_MS);
    assert.match(g.updated_at, ISO_MS);
    assert.equal(g.created_at, g.updated_at);
    assert.ok(Math.abs(Date.parse(g.created_at) - Date.now()) < 60_000);
  });

  test('stores every field, trimmed, and GET returns the same object', async () => {
    const g = await createListing({
      address: '  7 Elm Avenue, Springfield \n',
      beds: 3,
      baths: 2.5,
      sqft: 1450.75,
      description: '\t Bright and airy.  ',
      mls_number: ' MLS-0042 ',
      status: 'active',
    });
    assert.equal(g.address, '7 Elm Avenue, Springfield');
    assert.equal(g.beds, 3);
    assert.equal(g.baths, 2.5);
    assert.equal(g.sqft, 1450.75);
    assert.equal(g.description, 'Bright and airy.');
    assert.equal(g.mls_number, 'MLS-0042');
    assert.equal(g.status, 'active');
    const got = await call(ctx, 'GET', `/v1/listings/${g.id}`, { key });
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), g);
    const row = await ctx.deps.db.kysely
      .selectFrom('listings')
      .selectAll()
      .where('id', '=', g.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.address, '7 Elm Avenue, Springfield');
    assert.equal(row.description, 'Bright and airy.');
    assert.equal(row.mls_number, 'MLS-0042');
  });

  test('accepts explicit nulls for the nullable fields', async () => {
    const g = await createListing({ beds: null, baths: null, sqft: null, description: null, mls_number: null });
    for (const field of ['beds', 'baths', 'sqft', 'description', 'mls_number']) assert.equal(g[field], null, field);
  });

  test('address: required, a string of 1..500 characters after trimming, never null', async () => {
    assertValidation(await post({}), 'address');
    assertValidation(await post({ beds: 2 }), 'address');
    assertValidation(await post({ address: '' }), 'address');
    assertValidation(await post({ address: ' \t\n ' }), 'address');
    assertValidation(await post({ address: null }), 'address');
    assertValidation(await post({ address: 42 }), 'address');
    assertValidation(await post({ address: ['1 Main St'] }), 'address');
    assertValidation(await post({ address: 'a'.repeat(501) }), 'address');
    assert.equal((await createListing({ address: 'a'.repeat(500) })).address, 'a'.repeat(500));
    // Length counts after trimming.
    assert.equal((await createListing({ address: `  ${'b'.repeat(500)}  ` })).address, 'b'.repeat(500));
  });

  for (const [field, max] of [
    ['beds', 1000],
    ['baths', 1000],
    ['sqft', 10_000_000],
  ] as const) {
    test(`${field}: a finite JSON number from 0 to ${max}, nullable`, async () => {
      assert.equal((await createListing({ [field]: 0 }))[field], 0);
      assert.equal((await createListing({ [field]: max }))[field], max);
      assert.equal((await createListing({ [field]: 1.5 }))[field], 1.5);
      assertValidation(await post({ address: 'x', [field]: -1 }), field);
      assertValidation(await post({ address: 'x', [field]: -0.01 }), field);
      assertValidation(await post({ address: 'x', [field]: max + 0.5 }), field);
      assertValidation(await post({ address: 'x', [field]: '3' }), field);
      assertValidation(await post({ address: 'x', [field]: '' }), field);
      assertValidation(await post({ address: 'x', [field]: true }), field);
      assertValidation(await post({ address: 'x', [field]: [3] }), field);
      assertValidation(await post({ address: 'x', [field]: { n: 3 } }), field);
      // 1e400 parses to Infinity: not finite, so refused.
      assertValidation(await post(`{"address":"x","${field}":1e400}`), field);
    });
  }

  test('description: a string of at most 10,000 characters, nullable', async () => {
    assert.equal((await createListing({ description: 'd'.repeat(10_000) })).description, 'd'.repeat(10_000));
    assertValidation(await post({ address: 'x', description: 'd'.repeat(10_001) }), 'description');
    assertValidation(await post({ address: 'x', description: 5 }), 'description');
  });

  test('mls_number: a string of at most 50 characters, nullable', async () => {
    assert.equal((await createListing({ mls_number: 'm'.repeat(50) })).mls_number, 'm'.repeat(50));
    assertValidation(await post({ address: 'x', mls_number: 'm'.repeat(51) }), 'mls_number');
    assertValidation(await post({ address: 'x', mls_number: 12345 }), 'mls_number');
  });

  test('status: draft, active or archived; nothing else, not null', async () => {
    for (const status of ['draft', 'active', 'archived']) {
      assert.equal((await createListing({ status })).status, status);
    }
    for (const status of ['deleted', 'Draft', 'ACTIVE', '', null, 1]) {
      assertValidation(await post({ address: 'x', status }), 'status');
    }
  });

  test('unknown fields are rejected, named in details', async () => {
    assertValidation(await post({ address: 'x', bedrooms: 3 }), 'bedrooms');
    assertValidation(await post({ address: 'x', foo: 1, bar: null }), 'foo', 'bar');
  });

  test('read-only fields are rejected, named in details', async () => {
    for (const field of ['id', 'created_at', 'updated_at', 'client_id', 'media_count']) {
      assertValidation(await post({ address: 'x', [field]: field === 'media_count' ? 0 : null }), field);
      assertValidation(await post({ address: 'x', [field]: 'lst_x' }), field);
    }
    const res = await post({ address: 'x', id: 'lst_mine', client_id: 'cli_x', media_count: 3 });
    assertValidation(res, 'id', 'client_id', 'media_count');
  });

  test('every broken rule is reported at once', async () => {
    const res = await post({ address: '', beds: -1, sqft: '9', status: 'gone', extra: true });
    assertValidation(res, 'address', 'beds', 'sqft', 'status', 'extra');
  });

  test('a refused create stores nothing', async () => {
    const { key: fresh } = await createAccount(ctx);
    await post({ address: 'x', beds: 'three' }, fresh);
    const list = await call(ctx, 'GET', '/v1/listings', { key: fresh });
    assert.equal(list.json().pagination.total, 0);
  });

  test('a NUL character in a string is a validation error, not a fault', async () => {
    assertValidation(await post({ address: 'a\u0000b' }), 'address');
    assertValidation(await post({ address: 'x', description: 'nul\u0000' }), 'description');
  });

  test('415 for a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await call(ctx, 'POST', '/v1/listings', {
        key,
        body: 'address=1+Main+St',
        headers: { 'content-type': type },
      });
      assertError(res, 415, 'unsupported_media_type');
    }
  });

  test('400 invalid_json for a body that is not JSON', async () => {
    for (const body of ['{"address":', "{'address': 'x'}", '{"address": "x",}', 'address']) {
      assertError(await post(body), 400, 'invalid_json');
    }
  });

  test('a body that is JSON but not an object is a validation error', async () => {
    for (const body of ['null', '[]', '"1 Main St"', '42']) assertValidation(await post(body));
  });

  test('a caller X-Request-Id is echoed, and equals error.request_id', async () => {
    const res = await call(ctx, 'POST', '/v1/listings', {
      key,
      body: { address: '' },
      headers: { 'x-request-id': 'trace-42.a:b_c' },
    });
    assert.equal(res.headers['x-request-id'], 'trace-42.a:b_c');
    assertValidation(res, 'address');
    const ok = await call(ctx, 'POST', '/v1/listings', {
      key,
      body: { address: 'y' },
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    assert.equal(ok.statusCode, 201);
    assert.notEqual(ok.headers['x-request-id'], 'bad id with spaces');
    assert.ok(String(ok.headers['x-request-id']).length > 0);
  });
});

describe('GET /v1/listings/:id', () => {
  test('404 for an unknown id, another account, or an id of the wrong shape', async () => {
    const other = await createAccount(ctx);
    const theirs = await createListing({}, other.key);
    const ids = [
      theirs.id,
      'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'nope',
      'lst_',
      'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      `lst_${'x'.repeat(100)}`,
      'lst_%00',
      'lst_%20x',
      "lst_'%3B--",
      'lst_%E2%9C%93',
    ];
    for (const id of ids) {
      const res = await call(ctx, 'GET', `/v1/listings/${id}`, { key });
      assertError(res, 404, 'not_found');
      assert.equal((await patch(id, { status: 'active' })).statusCode, 404, id);
      assert.equal((await call(ctx, 'DELETE', `/v1/listings/${id}`, { key })).statusCode, 404, id);
    }
    // The other account's gallery is untouched.
    assert.equal((await call(ctx, 'GET', `/v1/listings/${theirs.id}`, { key: other.key })).json().status, 'draft');
  });

  test('an id that is not a valid URL component, or is very long, is simply not found', async () => {
    for (const id of ['lst_%FF', '%', 'lst_%E0%A4%A', 'x'.repeat(1100)]) {
      assertError(await call(ctx, 'GET', `/v1/listings/${id}`, { key }), 404, 'not_found');
    }
  });
});

describe('PATCH /v1/listings/:id', () => {
  test('changes only the fields sent, trimmed; updated_at moves, created_at does not', async () => {
    const g = await createListing({ beds: 2, description: 'old', mls_number: 'M1' });
    await sleep(5);
    const res = await patch(g.id, { address: '  9 New Road ', baths: 1 });
    assert.equal(res.statusCode, 200);
    const u = res.json();
    assert.deepEqual(Object.keys(u).sort(), GALLERY_KEYS);
    assert.equal(u.id, g.id);
    assert.equal(u.address, '9 New Road');
    assert.equal(u.baths, 1);
    assert.equal(u.beds, 2);
    assert.equal(u.description, 'old');
    assert.equal(u.mls_number, 'M1');
    assert.equal(u.status, 'draft');
    assert.equal(u.created_at, g.created_at);
    assert.match(u.updated_at, ISO_MS);
    assert.ok(u.updated_at > g.updated_at, `${u.updated_at} > ${g.updated_at}`);
    assert.deepEqual((await call(ctx, 'GET', `/v1/listings/${g.id}`, { key })).json(), u);
  });

  test('null clears every nullable field', async () => {
    const g = await createListing({ beds: 1, baths: 1, sqft: 100, description: 'd', mls_number: 'm' });
    const u = (await patch(g.id, { beds: null, baths: null, sqft: null, description: null, mls_number: null })).json();
    for (const field of ['beds', 'baths', 'sqft', 'description', 'mls_number']) assert.equal(u[field], null, field);
    assert.equal(u.address, '1 Main St');
  });

  test('every status transition is allowed', async () => {
    const g = await createListing();
    for (const status of ['active', 'archived', 'draft', 'archived', 'active', 'draft', 'draft']) {
      const res = await patch(g.id, { status });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, status);
    }
  });

  test('the body must have at least one field', async () => {
    const g = await createListing();
    assertValidation(await patch(g.id, {}));
  });

  test('the field rules of create apply', async () => {
    const g = await createListing({ beds: 4 });
    assertValidation(await patch(g.id, { address: null }), 'address');
    assertValidation(await patch(g.id, { address: '   ' }), 'address');
    assertValidation(await patch(g.id, { address: 'a'.repeat(501) }), 'address');
    assertValidation(await patch(g.id, { beds: '3' }), 'beds');
    assertValidation(await patch(g.id, { baths: 1001 }), 'baths');
    assertValidation(await patch(g.id, { sqft: -5 }), 'sqft');
    assertValidation(await patch(g.id, { description: 'd'.repeat(10_001) }), 'description');
    assertValidation(await patch(g.id, { mls_number: 'm'.repeat(51) }), 'mls_number');
    assertValidation(await patch(g.id, { status: null }), 'status');
    assertValidation(await patch(g.id, { status: 'sold' }), 'status');
    assertValidation(await patch(g.id, { address: 'ok', colour: 'red' }), 'colour');
    assertValidation(await patch(g.id, { mls_number: 'a\u0000' }), 'mls_number');
    // Nothing changed.
    const now = (await call(ctx, 'GET', `/v1/listings/${g.id}`, { key })).json();
    assert.equal(now.address, '1 Main St');
    assert.equal(now.beds, 4);
    assert.equal(now.updated_at, g.updated_at);
  });

  test('client_id and the other read-only fields cannot be set here', async () => {
    const g = await createListing();
    assertValidation(await patch(g.id, { client_id: 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'client_id');
    assertValidation(await patch(g.id, { client_id: null }), 'client_id');
    for (const field of ['id', 'created_at', 'updated_at', 'media_count']) {
      assertValidation(await patch(g.id, { status: 'active', [field]: field === 'media_count' ? 1 : 'x' }), field);
    }
    assert.equal((await call(ctx, 'GET', `/v1/listings/${g.id}`, { key })).json().status, 'draft');
  });

  test('415 and invalid_json as for create', async () => {
    const g = await createListing();
    const res = await call(ctx, 'PATCH', `/v1/listings/${g.id}`, {
      key,
      body: 'status=active',
      headers: { 'content-type': 'text/plain' },
    });
    assertError(res, 415, 'unsupported_media_type');
    assertError(await patch(g.id, '{"status":'), 400, 'invalid_json');
  });

  test("404 for another account's gallery, which is left unchanged", async () => {
    const other = await createAccount(ctx);
    const theirs = await createListing({}, other.key);
    assertError(await patch(theirs.id, { address: 'hijacked' }), 404, 'not_found');
    assert.equal((await call(ctx, 'GET', `/v1/listings/${theirs.id}`, { key: other.key })).json().address, '1 Main St');
  });
});

describe('DELETE /v1/listings/:id', () => {
  test('204 with no body; then the gallery is gone', async () => {
    const g = await createListing();
    const res = await call(ctx, 'DELETE', `/v1/listings/${g.id}`, { key });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assertError(await call(ctx, 'GET', `/v1/listings/${g.id}`, { key }), 404, 'not_found');
    assertError(await call(ctx, 'DELETE', `/v1/listings/${g.id}`, { key }), 404, 'not_found');
    assertError(await patch(g.id, { status: 'active' }), 404, 'not_found');
    const row = await ctx.deps.db.kysely.selectFrom('listings').select('id').where('id', '=', g.id).executeTakeFirst();
    assert.equal(row, undefined);
  });

  test("404 for another account's gallery, which survives", async () => {
    const other = await createAccount(ctx);
    const theirs = await createListing({}, other.key);
    assertError(await call(ctx, 'DELETE', `/v1/listings/${theirs.id}`, { key }), 404, 'not_found');
    assert.equal((await call(ctx, 'GET', `/v1/listings/${theirs.id}`, { key: other.key })).statusCode, 200);
  });
});
