// Clients (`/v1/clients`): the list, its pagination and search, and a client's galleries
// (`/v1/clients/:id/listings`); docs/api.md §7, with §1, §2 and §4. The search
// index itself: clients.search.test.ts.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ISO_MS,
  GALLERY_ITEM_KEYS,
  assertValidation,
  idsOf,
  type Page,
  assertPagination,
} from '../../../test/support/api-assertions.ts';
import { clientsApi } from '../../../test/support/clients-api.ts';
import {
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';

const CLIENT_ITEM_KEYS = ['company', 'created_at', 'email', 'id', 'name', 'phone'];

let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx);
});
after(() => ctx.close());

const { createClient, createListing, get, assign } = clientsApi(() => ({ ctx, me }));

describe('GET /v1/clients', () => {
  test('list items carry id, name, email, phone, company, created_at; newest first; paginated', async () => {
    const account = await createAccount(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createClient({ name: `C${i}`, notes: 'secret' }, account.key)).id);
    const res = await get('/v1/clients', account.key);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assertPagination(body.pagination, { page: 1, limit: 20, total: 5 });
    assert.deepEqual(
      body.data.map((c: { id: string }) => c.id),
      [...ids].reverse(),
    );
    for (const item of body.data) {
      assert.deepEqual(Object.keys(item).sort(), CLIENT_ITEM_KEYS);
      assert.match(item.created_at, ISO_MS);
    }
    const walked: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const p = (await get(`/v1/clients?page=${page}&limit=2`, account.key)).json();
      assertPagination(p.pagination, { page, limit: 2, total: 5 });
      walked.push(...p.data.map((c: { id: string }) => c.id));
    }
    assert.deepEqual(walked, [...ids].reverse());
    const past = (await get('/v1/clients?page=9&limit=2', account.key)).json();
    assert.deepEqual(past, {
      data: [],
      pagination: { page: 9, limit: 2, total: 5, total_exact: true, next_cursor: null },
    });
    // The farthest page: 2^53 - 1, the largest a JSON number holds exactly (past it: 400, src/http/openapi.test.ts).
    const farPast = await get(`/v1/clients?page=${Number.MAX_SAFE_INTEGER}`, account.key);
    assert.equal(farPast.statusCode, 200, farPast.body);
    assert.deepEqual(farPast.json().data, []);
    assert.equal(farPast.json().pagination.total, 5);
    assert.equal(farPast.json().pagination.page, Number.MAX_SAFE_INTEGER);
  });

  test('bad page, limit and search values are 400, naming the query parameter', async () => {
    for (const [query, field] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['page=0', 'page'],
      ['page=x', 'page'],
      [`search=${'s'.repeat(201)}`, 'search'],
      ['search=%00', 'search'],
    ] as const) {
      assertValidation(await get(`/v1/clients?${query}`), field);
    }
    assert.equal((await get(`/v1/clients?search=${'s'.repeat(200)}`)).statusCode, 200);
  });

  test('search: case-insensitive substring of name or email; total counts the matches', async () => {
    const account = await createAccount(ctx);
    const dana = await createClient({ name: 'Dana Whitfield', email: 'dana@north.example' }, account.key);
    const eli = await createClient({ name: 'Eli Moss', email: 'eli.WHIT@south.example' }, account.key);
    await createClient({ name: 'Fay Stone', email: 'fay@east.example' }, account.key);
    const search = async (term: string) => {
      const res = await get(`/v1/clients?search=${encodeURIComponent(term)}`, account.key);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<Page<{ id: string }>>();
    };
    const whit = await search('WhIt');
    assert.deepEqual(
      whit.data.map((c: { id: string }) => c.id),
      [eli.id, dana.id],
    );
    assert.equal(whit.pagination.total, 2);
    assert.deepEqual(
      (await search('NORTH.EX')).data.map((c: { id: string }) => c.id),
      [dana.id],
    );
    assert.equal((await search('nobody')).pagination.total, 0);
    assert.equal((await search('')).pagination.total, 3);
    const paged = (await get('/v1/clients?search=whit&limit=1&page=2', account.key)).json();
    assertPagination(paged.pagination, { page: 2, limit: 1, total: 2 });
    assert.deepEqual(
      paged.data.map((c: { id: string }) => c.id),
      [dana.id],
    );
  });

  test('% and _ in a search match only themselves', async () => {
    const account = await createAccount(ctx);
    const percent = await createClient({ name: '100% Real', email: 'p@x.example' }, account.key);
    await createClient({ name: '1000 Real', email: 'q@x.example' }, account.key);
    const underscore = await createClient({ name: 'Under', email: 'a_b@x.com' }, account.key);
    await createClient({ name: 'Other', email: 'axb@x.com' }, account.key);
    const backslash = await createClient({ name: 'Back\\slash', email: 'bs@x.example' }, account.key);
    const ids = async (term: string) => idsOf(await get(`/v1/clients?search=${encodeURIComponent(term)}`, account.key));
    assert.deepEqual(await ids('100%'), [percent.id]);
    assert.deepEqual(await ids('0% r'), [percent.id]);
    assert.deepEqual(await ids('%'), [percent.id]);
    assert.deepEqual(await ids('a_b'), [underscore.id]);
    assert.deepEqual(await ids('_'), [underscore.id]);
    assert.deepEqual(await ids('\\'), [backslash.id]);
    assert.deepEqual(await ids('k\\s'), [backslash.id]);
  });

  test("another account's clients are never listed or found", async () => {
    const a = await createAccount(ctx);
    const b = await createAccount(ctx);
    const mine = await createClient({ name: 'Zed Unique' }, a.key);
    await createClient({ name: 'Zed Unique' }, b.key);
    const res = (await get('/v1/clients?search=zed', a.key)).json();
    assert.deepEqual(
      res.data.map((c: { id: string }) => c.id),
      [mine.id],
    );
    assert.equal(res.pagination.total, 1);
  });
});

describe('GET /v1/clients/:id/listings', () => {
  test("all the client's galleries, newest first; pagination {page: 1, limit: n, total: n}", async () => {
    const c = await createClient();
    const empty = (await get(`/v1/clients/${c.id}/listings`)).json();
    assert.deepEqual(empty, {
      data: [],
      pagination: { page: 1, limit: 0, total: 0, total_exact: true, next_cursor: null },
    });
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) ids.push((await createListing(me.key, `${i} Lane`)).id);
    for (const id of ids) assert.equal((await assign(c.id, id)).statusCode, 200);
    await createListing();
    const res = await get(`/v1/clients/${c.id}/listings`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assertPagination(body.pagination, { page: 1, limit: 23, total: 23 });
    assert.deepEqual(
      body.data.map((g: { id: string }) => g.id),
      [...ids].reverse(),
    );
    for (const g of body.data) {
      assert.deepEqual(Object.keys(g).sort(), GALLERY_ITEM_KEYS);
      assert.equal(g.client_id, c.id);
    }
  });
});
