// docs/api.md §19: a gallery list filtered by client_id, mls_number, search, created_since or
// updated_since counts at most 1000 matches (`total` 1000 and `total_exact` false past that); the
// unfiltered and status lists keep their exact, maintained totals. A search counts through the
// page instead (part 4's amendment): its total is what the pages up to this one held, exact once
// nothing follows; the dashboard asks for the capped count. A frequent search term (more
// matches than the count goes to) pages by walking the order's index: it must answer exactly what
// the search index answers, page after page, on both dialects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema.ts';
import { seedListings } from '../../../test/support/seed.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { COUNT_CAP } from '../../lib/pagination.ts';
import { queryListings, type ListingQuery } from './listings.list.repository.ts';

interface ListPage {
  data: { id: string; address: string }[];
  pagination: { page: number | null; limit: number; total: number; total_exact: boolean; next_cursor: string | null };
}

const SEEDED = COUNT_CAP + 5;

let ctx: TestContext;
let me: TestAccount;
/** The seeded galleries' ids, newest first (the default order). */
let newestFirst: string[];
/** created_at of the seeded galleries, oldest first. */
let createdAt: string[];

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx);
  await seedListings(ctx.deps.db, me.accountId, SEEDED);
  // Every seeded address also says "Docks" (the search index follows the update).
  await sql`update listings set address = address || ' Docks' where account_id = ${me.accountId}`.execute(
    ctx.deps.db.kysely,
  );
  const rows = await ctx.deps.db.kysely
    .selectFrom('listings')
    .select(['id', 'created_at'])
    .where('account_id', '=', me.accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  newestFirst = rows.map((r) => r.id);
  createdAt = rows.map((r) => r.created_at).reverse();
});
after(() => ctx.close());

async function list(query: Record<string, string>): Promise<ListPage> {
  const res = await call(ctx, 'GET', '/v1/listings', { key: me.key, query });
  assert.equal(res.statusCode, 200, `${JSON.stringify(query)}: ${res.body}`);
  return res.json<ListPage>();
}

/** Every item of the list, walking by cursor. */
async function walk(query: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: ListPage = await list(cursor === null ? query : { ...query, cursor });
    ids.push(...page.data.map((g) => g.id));
    cursor = page.pagination.next_cursor;
  } while (cursor !== null);
  return ids;
}

describe('GET /v1/listings: totals of filtered lists (docs/api.md §19)', () => {
  test('unfiltered and by status: the exact total, total_exact true', async () => {
    const all = await list({});
    assert.equal(all.pagination.total, SEEDED);
    assert.equal(all.pagination.total_exact, true);
    const active = await list({ status: 'active', sort: 'updated_at' });
    assert.equal(active.pagination.total, Math.floor(SEEDED / 3) + (SEEDED % 3 >= 2 ? 1 : 0));
    assert.equal(active.pagination.total_exact, true);
  });

  test(`a filter counts up to ${COUNT_CAP}: exact at ${COUNT_CAP} matches, ${COUNT_CAP} and total_exact false past it`, async () => {
    const since = (n: number): string => createdAt[SEEDED - n] ?? '';
    const exactly = await list({ created_since: since(COUNT_CAP) });
    assert.deepEqual([exactly.pagination.total, exactly.pagination.total_exact], [COUNT_CAP, true]);
    const few = await list({ created_since: since(7) });
    assert.deepEqual([few.pagination.total, few.pagination.total_exact], [7, true]);
    // The last page by number holds the total (offset + its rows); past the end, it is counted.
    const last = await list({ created_since: since(25), page: '2' });
    assert.deepEqual([last.data.length, last.pagination.total, last.pagination.total_exact], [5, 25, true]);
    const beyond = await list({ created_since: since(25), page: '3' });
    assert.deepEqual([beyond.data.length, beyond.pagination.total, beyond.pagination.total_exact], [0, 25, true]);
    const deepLast = await list({ created_since: since(COUNT_CAP + 3), page: String(COUNT_CAP / 20 + 1) });
    assert.deepEqual(
      [deepLast.data.length, deepLast.pagination.total, deepLast.pagination.total_exact],
      [3, COUNT_CAP, false],
    );
    const capped: Record<string, string>[] = [
      { created_since: since(COUNT_CAP + 1) },
      { updated_since: '2000-01-01T00:00:00Z', sort: '-updated_at' },
      { client_id: 'none' },
    ];
    for (const query of capped) {
      const page = await list(query);
      assert.deepEqual(
        [page.pagination.total, page.pagination.total_exact],
        [COUNT_CAP, false],
        `total of ${JSON.stringify(query)}`,
      );
      assert.equal(page.data.length, 20);
      assert.equal(typeof page.pagination.next_cursor, 'string');
    }
    const past = await list({ client_id: 'none', page: '999' });
    assert.deepEqual(past, {
      data: [],
      pagination: { page: 999, limit: 20, total: COUNT_CAP, total_exact: false, next_cursor: null },
    });
  });

  test('a search counts through the page, by number and by cursor; the dashboard counts up to the cap', async () => {
    const since = createdAt[0] ?? '';
    for (const query of [
      { search: 'docks' },
      { search: 'harbour', sort: 'created_at' },
      { search: 'road docks', created_since: since },
    ] as Record<string, string>[]) {
      const first = await list(query);
      assert.deepEqual([first.pagination.total, first.pagination.total_exact], [20, false], JSON.stringify(query));
      assert.equal(typeof first.pagination.next_cursor, 'string');
      const third = await list({ ...query, page: '3' });
      assert.deepEqual([third.pagination.total, third.pagination.total_exact], [60, false], JSON.stringify(query));
      const counted = await ctx.services.listings.list(me.accountId, query, { countMatches: true });
      assert.deepEqual(
        [counted.pagination.total, counted.pagination.total_exact],
        [COUNT_CAP, false],
        `the dashboard's count of ${JSON.stringify(query)}`,
      );
    }
    // By cursor: the total is what the walk has seen so far; the last page's is exact.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { search: 'docks', limit: '100' };
      const page: ListPage = await list(cursor === null ? query : { ...query, cursor });
      seen.push(...page.data.map((g) => g.id));
      cursor = page.pagination.next_cursor;
      assert.deepEqual([page.pagination.total, page.pagination.total_exact], [seen.length, cursor === null]);
    } while (cursor !== null);
    assert.deepEqual(seen, newestFirst);
    // By number: the last page's total is exact, and so is a page past the end's (all before it).
    const last = await list({ search: 'docks', limit: '100', page: String(Math.ceil(SEEDED / 100)) });
    assert.deepEqual(
      [last.pagination.total, last.pagination.total_exact, last.pagination.next_cursor],
      [SEEDED, true, null],
    );
    const beyond = await list({ search: 'docks', limit: '100', page: '99' });
    assert.deepEqual([beyond.data.length, beyond.pagination.total, beyond.pagination.total_exact], [0, SEEDED, true]);
    const rare = await list({ search: '1004 harbour', page: '2' });
    assert.deepEqual([rare.data.length, rare.pagination.total, rare.pagination.total_exact], [0, 1, true]);
  });

  test('a capped list still walks to its end: every match once, in order', async () => {
    assert.deepEqual(await walk({ updated_since: '2000-01-01T00:00:00Z', limit: '100' }), newestFirst);
    assert.deepEqual(await walk({ search: 'docks', limit: '100', sort: 'created_at' }), [...newestFirst].reverse());
  });

  test('a frequent term answers what the search index answers; a rare one is counted exactly', async () => {
    const rare = await list({ search: '1004 harbour' });
    assert.deepEqual(
      rare.data.map((g) => g.address),
      ['1004 Harbour Road Docks'],
    );
    assert.deepEqual([rare.pagination.total, rare.pagination.total_exact], [1, true]);
    // Page 1 of a frequent term is the newest matches, as a walk of the whole list finds them.
    const drafts = await list({ search: 'DOCKS', status: 'draft', limit: '30' });
    const draftIds = new Set(
      (
        await ctx.deps.db.kysely
          .selectFrom('listings')
          .select('id')
          .where('account_id', '=', me.accountId)
          .where('status', '=', 'draft')
          .execute()
      ).map((r) => r.id),
    );
    assert.deepEqual(
      drafts.data.map((g) => g.id),
      newestFirst.filter((id) => draftIds.has(id)).slice(0, 30),
    );
    if (ctx.deps.db.dialect === 'sqlite') {
      // The FTS index folds a Kelvin sign to "k" and a long s to "s"; SQLite's LIKE does not: the
      // frequent term's walk asks the index about such rows, and finds what a rare term's would.
      const kelvin = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '1 Doc\u212As Lane' } });
      const longS = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '2 Docks \u017Fide' } });
      const plain = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '3 Wharf Lane' } });
      assert.deepEqual([kelvin.statusCode, longS.statusCode, plain.statusCode], [201, 201, 201]);
      const newest = await list({ search: 'docks', limit: '3' });
      assert.equal(newest.pagination.total_exact, false);
      assert.deepEqual(
        newest.data.map((g) => g.address),
        ['2 Docks \u017Fide', '1 Doc\u212As Lane', '1004 Harbour Road Docks'],
      );
      const side = await list({ search: 'docks side' });
      assert.deepEqual(
        side.data.map((g) => g.address),
        ['2 Docks \u017Fide'],
        'a rare term: the index',
      );
    }
  });
});

describe('GET /v1/listings: a capped count reads the filter’s index (PostgreSQL)', () => {
  test('updated_since, created_since and client_id count from their index, never the table', async (t) => {
    const database = ctx.config.database;
    if (database.kind !== 'postgres') {
      t.skip('the planner choice is PostgreSQL’s (SQLite counts from the same indexes unasked)');
      return;
    }
    // An account big enough that reading the whole table costs more than reading the index (at
    // a thousand galleries, the planner rightly prefers the table), settled as autovacuum leaves
    // it: statistics and the visibility map.
    const big = await createAccount(ctx, 'Big studio');
    await seedListings(ctx.deps.db, big.accountId, 30_000);
    await sql`vacuum analyze listings`.execute(ctx.deps.db.kysely);
    const captured: CompiledQuery[] = [];
    const logging = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    try {
      const newest = { column: 'updated_at', desc: true } as const;
      const queries: [string, ListingQuery][] = [
        ['updated_since', { updatedSince: '2000-01-01T00:00:00Z', sort: newest }],
        ['created_since', { createdSince: '2000-01-01T00:00:00Z', sort: { column: 'created_at', desc: true } }],
        ['client_id=none', { clientId: null, sort: newest }],
        ['client_id=none, updated_since', { clientId: null, updatedSince: '2000-01-01T00:00:00Z', sort: newest }],
      ];
      for (const [name, q] of queries) {
        captured.length = 0;
        const { total } = await queryListings(logging, 'postgres', big.accountId, q, {
          fetch: 21,
          offset: 0,
          after: undefined,
        });
        assert.deepEqual([total?.n, total?.exact], [COUNT_CAP, false], name);
        const count = captured.find((c) => c.sql.includes('count(*)'));
        assert.ok(count, `${name}: no count query`);
        const plan = await logging.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`explain ${count.sql}`, [...count.parameters]),
        );
        const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(text, /Index (Only )?Scan using listings_account_/, `${name}:\n${text}`);
        assert.doesNotMatch(text, /Seq Scan/, `${name}:\n${text}`);
      }
    } finally {
      await logging.destroy();
    }
  });
});
