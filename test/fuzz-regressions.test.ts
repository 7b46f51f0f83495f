// Every failure the spec-driven fuzz suite (test/fuzz.test.ts, npm run fuzz) has found, kept as a
// plain, explicit request: the fuzzer's counterexample, shrunk by hand to what it is about.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { storedKeys } from './support/media-helpers.ts';
import { jpeg, multipart } from './support/media-fixtures.ts';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: '1000000000' });
  account = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

const codePoints = (s: string): number => Array.from(s).length;

async function newListing(): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: '1 Fuzz Road' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function rowCount(table: 'listings' | 'clients'): Promise<number> {
  const { n } = await ctx.deps.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('account_id', '=', account.accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

describe('found by the fuzz suite', () => {
  // createListing, invalid-body arm: {"address": " ", "k…k" (5,000 characters): []} answered an
  // error whose message and details.field quoted the whole name, past the documented bounds.
  test('an unknown field with a 5,000-character name: 400, the error body within its bounds', async () => {
    const name = 'k'.repeat(5000);
    const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: ' ', [name]: [] } });
    const error = expectError(res, 400, 'validation_error');
    assert.ok(codePoints(error.message) <= 1000, `message of ${codePoints(error.message)} characters`);
    for (const d of error.details ?? []) {
      assert.ok(codePoints(d.field) <= 300 && codePoints(d.message) <= 1000);
    }
    // Still names the field, recognisably.
    assert.ok(detailFields(error).some((f) => f.startsWith('kkkk') && f.endsWith('…')));
  });

  test('thousands of unknown fields: 400 with at most 100 details', async () => {
    const body: Record<string, unknown> = { address: 1 };
    for (let i = 0; i < 3000; i += 1) body[`extra_${i}`] = i;
    const res = await call(ctx, 'PATCH', `/v1/listings/${await newListing()}`, { key: account.key, body });
    const error = expectError(res, 400, 'validation_error');
    assert.ok(error.details !== undefined && error.details.length <= 100, `${error.details?.length} details`);
    assert.ok(codePoints(error.message) <= 1000);
  });

  // createClient, valid arm: {"name": "\udfff…", "email": "a@a.aa"} was stored, and read back with
  // U+FFFD in place of the lone surrogate, on both dialects.
  test('an unpaired surrogate in a text field: 400 naming the field, nothing stored', async () => {
    const before = await rowCount('clients');
    for (const [field, json] of [
      ['name', '{"name":"\\udfff\u{10000}","email":"lone@example.test"}'],
      ['notes', '{"name":"Ada","email":"lone2@example.test","notes":"abc\\ud800"}'],
    ] as const) {
      const res = await call(ctx, 'POST', '/v1/clients', { key: account.key, body: json });
      const error = expectError(res, 400, 'validation_error');
      assert.deepEqual(error.details, [{ field, message: 'must be valid Unicode text (no unpaired surrogates)' }]);
    }
    assert.equal(await rowCount('clients'), before);
    // A well-formed pair (an emoji) is text like any other, and reads back exactly.
    const ok = await call(ctx, 'POST', '/v1/clients', {
      key: account.key,
      body: '{"name":"Ada \\ud83d\\ude00","email":"pair@example.test"}',
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json<{ name: string }>().name, 'Ada 😀');
  });

  test('an unpaired surrogate in a gallery update and in the client search: 400', async () => {
    const id = await newListing();
    const patch = await call(ctx, 'PATCH', `/v1/listings/${id}`, {
      key: account.key,
      body: '{"description":"\\udfff"}',
    });
    assert.deepEqual(detailFields(expectError(patch, 400, 'validation_error')), ['description']);
    const search = await call(ctx, 'GET', '/v1/clients', { key: account.key, query: { search: 'a\u0000b' } });
    assert.deepEqual(detailFields(expectError(search, 400, 'validation_error')), ['search']);
  });

  // createInvoice, valid arm: an item described as "\udfff" was stored as U+FFFD: the strings of a
  // list of objects (an invoice's items, a gallery's tours) were not checked as top-level ones are.
  test('an unpaired surrogate inside a list of objects: 400 naming the list', async () => {
    const id = await newListing();
    const res = await call(ctx, 'PATCH', `/v1/listings/${id}`, {
      key: account.key,
      body: '{"tours":[{"url":"https://my.matterport.com/show/?m=abc","label":"\\udfff"}]}',
    });
    assert.deepEqual(detailFields(expectError(res, 400, 'validation_error')), ['tours']);
  });

  // uploadMedia, valid arm: a JPEG named with 200 "e" + combining acute accents (400 characters)
  // was kept with a 400-character filename: 255 graphemes, not 255 characters as documented.
  test('a file name of combining accents is cut to 255 characters, between graphemes', async () => {
    const listingId = await newListing();
    const name = `${'e\u0301'.repeat(200)}.jpg`;
    const { body, contentType } = multipart([{ filename: name, contentType: 'image/jpeg', data: await jpeg() }]);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/v1/listings/${listingId}/media`,
      headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
      payload: body,
    });
    assert.equal(res.statusCode, 201, res.body);
    const [media] = res.json<{ data: { filename: string; id: string }[] }>().data;
    assert.ok(media !== undefined);
    assert.equal(media.filename, 'e\u0301'.repeat(127));
    assert.equal(codePoints(media.filename), 254);
    // The same name is what a later read answers, and the bytes are stored once.
    const again = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${media.id}`, { key: account.key });
    assert.equal(again.json<{ filename: string }>().filename, media.filename);
    assert.equal((await storedKeys(ctx)).length, 1);
  });

  test('a name of 300 plain characters is cut to 255; one of 255 emoji stays whole', async () => {
    const listingId = await newListing();
    const files = [
      { filename: 'x'.repeat(300), contentType: 'image/jpeg', data: await jpeg() },
      { filename: '😀'.repeat(255), contentType: 'image/jpeg', data: await jpeg() },
    ];
    const { body, contentType } = multipart(files);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/v1/listings/${listingId}/media`,
      headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
      payload: body,
    });
    assert.equal(res.statusCode, 201, res.body);
    const names = res.json<{ data: { filename: string }[] }>().data.map((m) => m.filename);
    assert.deepEqual(names, ['x'.repeat(255), '😀'.repeat(255)]);
  });
  // getMediaContent (and every id route), not-found arm with a raw path of '%zz': the router
  // refuses a malformed percent-escape before any hook runs, and the 404 came without the
  // rate-limit headers every /v1 response documents; such requests were not counted either.
  test('a malformed percent-escape in a /v1 path: 404 with the rate-limit headers, counted', async () => {
    const first = await call(ctx, 'GET', '/v1/listings/%zz', { key: account.key });
    expectError(first, 404, 'not_found');
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit', 'ratelimit-policy']) {
      assert.ok(first.headers[name] !== undefined, `${name} is missing`);
    }
    const second = await call(ctx, 'GET', '/v1/clients/%E0%A4%A', { key: account.key });
    expectError(second, 404, 'not_found');
    assert.equal(Number(second.headers['ratelimit-remaining']), Number(first.headers['ratelimit-remaining']) - 1);
  });
});
