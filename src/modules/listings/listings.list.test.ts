// Galleries (`/v1/listings`): the list, its pagination, order and filters; docs/api.md §5, with the
// conventions of §1, §2 and §4.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertValidation,
  GALLERY_ITEM_KEYS,
  idsOf,
  ISO_MS,
  assertPagination,
} from '../../../test/support/api-assertions.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { listingsApi } from '../../../test/support/listings-api.ts';

let ctx: TestContext;
let key: string;

before(async () => {
  ctx = await createTestContext();
  ({ key } = await createAccount(ctx));
});
after(() => ctx.close());

const { createListing, patch } = listingsApi(() => ({ ctx, key }));

describe('GET /v1/listings', () => {
  const list = (query: string, as: string) => call(ctx, 'GET', `/v1/listings${query}`, { key: as });

  test('an account with no galleries: empty data, page 1, limit 20, total 0', async () => {
    const { key: fresh } = await createAccount(ctx);
    const res = await list('', fresh);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      data: [],
      pagination: { page: 1, limit: 20, total: 0, total_exact: true, next_cursor: null },
    });
  });

  test('pagination: defaults, limits, pages past the end, newest first with no gaps', async () => {
    const account = await createAccount(ctx);
    const created: string[] = [];
    for (let i = 0; i < 25; i += 1) created.push((await createListing({ address: `${i} Row` }, account.key)).id);
    const newestFirst = [...created].reverse();

    const first = await list('', account.key);
    assert.equal(first.statusCode, 200);
    const body = first.json();
    assert.deepEqual(Object.keys(body).sort(), ['data', 'pagination']);
    assertPagination(body.pagination, { page: 1, limit: 20, total: 25 });
    assert.deepEqual(
      body.data.map((g: { id: string }) => g.id),
      newestFirst.slice(0, 20),
    );
    for (const item of body.data) {
      assert.deepEqual(Object.keys(item).sort(), GALLERY_ITEM_KEYS);
      assert.match(item.created_at, ISO_MS);
    }

    const second = (await list('?page=2', account.key)).json();
    assertPagination(second.pagination, { page: 2, limit: 20, total: 25 });
    assert.deepEqual(
      second.data.map((g: { id: string }) => g.id),
      newestFirst.slice(20),
    );

    const all = (await list('?limit=100', account.key)).json();
    assertPagination(all.pagination, { page: 1, limit: 100, total: 25 });
    assert.equal(all.data.length, 25);

    // Up to 2^53 - 1, the largest page number a JSON number holds exactly (past it: 400, src/http/openapi.test.ts).
    for (const query of ['?page=4&limit=10', '?page=99', '?page=9007199254740991']) {
      const past = await list(query, account.key);
      assert.equal(past.statusCode, 200, `${query}: ${past.body}`);
      assert.deepEqual(past.json().data, []);
      assert.equal(past.json().pagination.total, 25);
    }

    // Walking every page of 7 sees each gallery once, in order.
    const walked: string[] = [];
    for (let page = 1; page <= 4; page += 1) {
      const res = (await list(`?page=${page}&limit=7`, account.key)).json();
      assertPagination(res.pagination, { page, limit: 7, total: 25 });
      walked.push(...res.data.map((g: { id: string }) => g.id));
    }
    assert.deepEqual(walked, newestFirst);
  });

  test('order is created_at descending, then id descending, stable across pages', async () => {
    const account = await createAccount(ctx);
    const base = {
      account_id: account.accountId,
      client_id: null,
      address: 'seeded',
      beds: null,
      baths: null,
      sqft: null,
      status: 'draft' as const,
      description: null,
      mls_number: null,
    };
    const same = '2026-01-01T00:00:00.000Z';
    // Ids chosen so that id order and insertion order disagree with created_at order.
    const rows = [
      { id: 'lst_00000000000000000000000003', created_at: same },
      { id: 'lst_00000000000000000000000009', created_at: '2025-12-31T23:59:59.999Z' },
      { id: 'lst_00000000000000000000000001', created_at: same },
      { id: 'lst_00000000000000000000000000', created_at: '2026-01-01T00:00:00.001Z' },
      { id: 'lst_00000000000000000000000002', created_at: same },
    ];
    for (const r of rows) {
      await ctx.deps.db.kysely
        .insertInto('listings')
        .values({ ...base, ...r, updated_at: r.created_at })
        .execute();
    }
    const expected = [
      'lst_00000000000000000000000000',
      'lst_00000000000000000000000003',
      'lst_00000000000000000000000002',
      'lst_00000000000000000000000001',
      'lst_00000000000000000000000009',
    ];
    const walked: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      walked.push(...idsOf(await list(`?page=${page}&limit=2`, account.key)));
    }
    assert.deepEqual(walked, expected);
    assert.equal(new Set(walked).size, walked.length);
    // Each seeded gallery can be fetched by its id.
    assert.equal((await call(ctx, 'GET', `/v1/listings/${expected[0]!}`, { key: account.key })).statusCode, 200);
  });

  test('bad page and limit values are 400, naming the query parameter', async () => {
    for (const [query, field] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['limit=1e400', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=2.5', 'page'],
      ['page=abc', 'page'],
    ] as const) {
      assertValidation(await list(`?${query}`, key), field);
    }
  });

  test('limit 100 and limit 1 are accepted', async () => {
    // A gallery of this file's account to list (in one file with the create tests, it had theirs).
    await createListing();
    assert.equal((await list('?limit=100', key)).json().pagination.limit, 100);
    const one = (await list('?limit=1', key)).json();
    assert.equal(one.pagination.limit, 1);
    assert.equal(one.data.length, 1);
  });

  test('status filter: only that status, and total counts only those', async () => {
    const account = await createAccount(ctx);
    const byStatus: Record<string, string[]> = { draft: [], active: [], archived: [] };
    for (const status of ['draft', 'active', 'active', 'archived', 'active', 'draft']) {
      byStatus[status]!.push((await createListing({ status }, account.key)).id);
    }
    for (const [status, ids] of Object.entries(byStatus)) {
      const res = (await list(`?status=${status}`, account.key)).json();
      assert.equal(res.pagination.total, ids.length, status);
      assert.deepEqual(
        res.data.map((g: { id: string }) => g.id),
        [...ids].reverse(),
      );
      for (const g of res.data) assert.equal(g.status, status);
    }
    const paged = (await list('?status=active&limit=2&page=2', account.key)).json();
    assertPagination(paged.pagination, { page: 2, limit: 2, total: 3 });
    assert.equal(paged.data.length, 1);
    // A status change moves the gallery between filters.
    await patch(byStatus.draft![0]!, { status: 'archived' }, account.key);
    assert.equal((await list('?status=archived', account.key)).json().pagination.total, 2);
    assert.equal((await list('?status=draft', account.key)).json().pagination.total, 1);
    assert.equal((await list('', account.key)).json().pagination.total, 6);
  });

  test('an unknown status filter is 400, naming status', async () => {
    for (const status of ['deleted', 'Draft', '']) assertValidation(await list(`?status=${status}`, key), 'status');
  });

  test("another account's galleries are never listed", async () => {
    const a = await createAccount(ctx);
    const b = await createAccount(ctx);
    const mine = await createListing({}, a.key);
    await createListing({}, b.key);
    const res = (await list('', a.key)).json();
    assert.deepEqual(
      res.data.map((g: { id: string }) => g.id),
      [mine.id],
    );
    assert.equal(res.pagination.total, 1);
  });
});
