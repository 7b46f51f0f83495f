// A gallery search picks its plan without a count (decisions/0024): a walk of the order's index
// bounded to some rows, else every match from the trigram index, sorted. Whichever answers, the
// pages must be the same, by cursor and by number, in every order and with other filters. Here the
// bound is forced: huge (the walk always answers), 1 (the index answers as soon as a row follows)
// and in between (either, page by page; and with the plan judged from what the first walk found,
// walking on or the index); the answers are compared with each other and, on the
// galleries of ASCII text, with a reference model of the contract (a substring of the lower-cased
// address or MLS number). Random data from a small alphabet, as clients.search.test.ts does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { seedListings } from '../../../test/support/seed.ts';
import { createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import type { Database } from '../../db/schema.ts';
import type { ListingStatus } from '../../db/schema.ts';
import { queryListings, walkBound, type ListingQuery, type SearchPlan } from './listings.list.repository.ts';

interface Seeded {
  id: string;
  address: string;
  mls: string | null;
  status: ListingStatus;
}

let ctx: TestContext;
let accountId: string;
const galleries: Seeded[] = [];
const STATUSES: ListingStatus[] = ['draft', 'active', 'archived'];

before(async () => {
  ctx = await createTestContext();
  accountId = (await createAccount(ctx)).accountId;
  // Overlaps and near misses are common in a small alphabet; `%`, `_` and `\` must match
  // themselves; a long s, a Kelvin sign and an accent are text only the SQLite index folds.
  const char = fc.constantFrom('a', 'b', 'A', 'B', ' ', '%', '_', '\\', '1', 's', 'k');
  const text = fc.array(char, { minLength: 3, maxLength: 10 }).map((cs) => cs.join(''));
  const rows = fc.sample(
    fc.record({ address: text, mls: fc.option(text, { nil: null }), status: fc.constantFrom(...STATUSES) }),
    { numRuns: 90, seed: 24 },
  );
  rows.push(
    { address: 'ab \u017Fk', mls: null, status: 'draft' },
    { address: 'ab \u212Aa', mls: 'é1', status: 'active' },
    { address: 'Éab', mls: null, status: 'draft' },
  );
  for (const row of rows) {
    const created = await ctx.services.listings.create(accountId, {
      address: row.address,
      status: row.status,
      ...(row.mls === null ? {} : { mls_number: row.mls }),
    });
    galleries.push({ id: created.id, ...row });
  }
  // Some galleries change after others were created, so that the two orders differ.
  for (const g of galleries.filter((_, i) => i % 4 === 1)) {
    g.status = g.status === 'draft' ? 'active' : 'draft';
    await ctx.services.listings.update(accountId, g.id, { status: g.status });
  }
});
after(() => ctx.close());

const ascii = (s: string | null): boolean => s === null || /^[\x20-\x7e]*$/.test(s);

/** The galleries of ASCII text the contract says match, as a sorted list of ids. */
function reference(q: ListingQuery): string[] {
  const term = (q.search ?? '').toLowerCase();
  return galleries
    .filter((g) => ascii(g.address) && ascii(g.mls))
    .filter((g) => q.status === undefined || g.status === q.status)
    .filter((g) => g.address.toLowerCase().includes(term) || (g.mls ?? '').toLowerCase().includes(term))
    .map((g) => g.id)
    .sort();
}

interface Walked {
  byCursor: string[];
  byNumber: string[];
  plans: Set<SearchPlan>;
}

/**
 * Every page of the search, by cursor and by number, with the first walk bounded to `bound` rows,
 * and with `galleries`, the plan judged from what that walk found (walking on, or the index).
 */
async function walk(q: ListingQuery, limit: number, bound: number, galleries?: number): Promise<Walked> {
  const options = galleries === undefined ? { walkBound: bound } : { walkBound: bound, galleries };
  const { db } = ctx.deps;
  const plans = new Set<SearchPlan>();
  const byCursor: string[] = [];
  let position: { value: string; id: string } | undefined;
  for (;;) {
    const page = { fetch: limit + 1, offset: 0, after: position };
    const { rows, plan } = await queryListings(db.kysely, db.dialect, accountId, q, page, options);
    if (plan !== undefined) plans.add(plan);
    const kept = rows.slice(0, limit);
    byCursor.push(...kept.map((r) => r.id));
    const last = kept.at(-1);
    if (rows.length <= limit || last === undefined) break;
    position = { value: q.sort.column === 'created_at' ? last.created_at : last.updated_at, id: last.id };
  }
  const byNumber: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = { fetch: limit + 1, offset, after: undefined };
    const { rows, plan } = await queryListings(db.kysely, db.dialect, accountId, q, page, options);
    if (plan !== undefined) plans.add(plan);
    byNumber.push(...rows.slice(0, limit).map((r) => r.id));
    if (rows.length <= limit) break;
  }
  return { byCursor, byNumber, plans };
}

describe('a gallery search answers the same pages whichever plan it takes', () => {
  test('the walk, the trigram index and a mix of both agree with each other and the model', async () => {
    const sorts = [
      { column: 'created_at', desc: true },
      { column: 'created_at', desc: false },
      { column: 'updated_at', desc: true },
      { column: 'updated_at', desc: false },
    ] as const;
    const cases = fc.sample(
      fc.record({
        term: fc
          .array(fc.constantFrom('a', 'b', 'A', 'B', ' ', '%', '_', '\\', '1', 's', 'k'), {
            minLength: 3,
            maxLength: 5,
          })
          .map((cs) => cs.join('')),
        sort: fc.constantFrom(...sorts),
        status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 9 }),
        bound: fc.integer({ min: 2, max: 40 }),
        galleries: fc.constantFrom(100, 1_000_000),
      }),
      { numRuns: 40, seed: 36 },
    );
    // Terms the fixed data surely holds, more than a page of them, and a term of other characters.
    cases.push(
      { term: 'ab', sort: sorts[0], status: undefined, limit: 2, bound: 3, galleries: 100 },
      { term: 'aaa', sort: sorts[2], status: undefined, limit: 1, bound: 5, galleries: 100 },
      { term: 'b s', sort: sorts[1], status: 'draft', limit: 3, bound: 7, galleries: 100 },
      { term: 'ab s', sort: sorts[0], status: undefined, limit: 1, bound: 2, galleries: 100 },
      { term: 'ab k', sort: sorts[3], status: undefined, limit: 1, bound: 2, galleries: 100 },
      { term: 'éab', sort: sorts[0], status: undefined, limit: 1, bound: 2, galleries: 100 },
    );
    let walked = 0;
    let indexed = 0;
    for (const c of cases) {
      const q: ListingQuery = { search: c.term.toLowerCase(), sort: c.sort, status: c.status };
      const name = JSON.stringify(c);
      const byWalk = await walk(q, c.limit, 1_000_000_000);
      const byIndex = await walk(q, c.limit, 1);
      const mixed = await walk(q, c.limit, c.bound);
      const judged = await walk(q, c.limit, c.bound, c.galleries);
      assert.deepEqual(byWalk.byNumber, byWalk.byCursor, `${name}: by number and by cursor`);
      for (const other of [byIndex, mixed, judged]) {
        assert.deepEqual(other.byCursor, byWalk.byCursor, `${name}: by cursor`);
        assert.deepEqual(other.byNumber, byWalk.byNumber, `${name}: by number`);
      }
      const asciiIds = new Set(galleries.filter((g) => ascii(g.address) && ascii(g.mls)).map((g) => g.id));
      assert.deepEqual(byWalk.byCursor.filter((id) => asciiIds.has(id)).sort(), reference(q), `${name}: the model`);
      assert.equal(new Set(byWalk.byCursor).size, byWalk.byCursor.length, `${name}: each once`);
      if (byWalk.plans.has('walk')) walked += 1;
      if (byIndex.plans.has('index')) indexed += 1;
    }
    // The bounds did force both plans (else this test would compare a plan with itself).
    assert.ok(walked >= cases.length / 2, `the walk answered ${walked} of ${cases.length}`);
    assert.ok(indexed >= cases.length / 2, `the index answered ${indexed} of ${cases.length}`);
  });

  test('PostgreSQL: the walk never sorts, and the index plan reads the trigram indexes', async (t) => {
    const database = ctx.config.database;
    if (database.kind !== 'postgres') {
      t.skip('the plans are PostgreSQL’s (SQLite’s are pinned by CROSS JOIN and the subquery)');
      return;
    }
    // Enough galleries that the planner has a real choice, settled as autovacuum leaves them.
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
    const planOf = async (query: CompiledQuery): Promise<string> => {
      const plan = await logging.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
      );
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    try {
      const sort = { column: 'created_at', desc: true } as const;
      const page = { fetch: 21, offset: 0, after: undefined };
      // Every address holds "harbour": the walk answers, in the order's index, unsorted.
      captured.length = 0;
      const frequent = await queryListings(logging, 'postgres', big.accountId, { search: 'harbour', sort }, page);
      assert.equal(frequent.plan, 'walk');
      const walk = captured.find((c) => c.sql.includes('lower(l.address)'));
      assert.ok(walk, 'the walk’s query');
      const walkPlan = await planOf(walk);
      assert.match(walkPlan, /Index Scan (Backward )?using listings_account_order_idx/, walkPlan);
      assert.doesNotMatch(walkPlan, /Sort/, walkPlan);
      // One gallery holds "12345 harbour": the index answers, from the GIN indexes.
      captured.length = 0;
      const rare = await queryListings(logging, 'postgres', big.accountId, { search: '12345 harbour', sort }, page);
      assert.deepEqual([rare.plan, rare.rows.map((r) => r.address)], ['index', ['12345 Harbour Road']]);
      const index = captured.find((c) => c.sql.includes('lower(t.address)'));
      assert.ok(index, 'the index’s query');
      const indexPlan = await planOf(index);
      assert.match(indexPlan, /Bitmap Index Scan on listings_address_trgm_idx/, indexPlan);
      assert.doesNotMatch(indexPlan, /Seq Scan/, indexPlan);
    } finally {
      await logging.destroy();
    }
  });

  test('the bound grows with the rows a page needs, as the square root', () => {
    assert.equal(walkBound({ offset: 0, fetch: 21 }), 2050);
    assert.equal(walkBound({ offset: 79, fetch: 21 }), 4473);
    assert.ok(walkBound({ offset: 1000, fetch: 101 }) < 15_000);
  });
});
