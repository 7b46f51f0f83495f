// The gallery page and its maintained total in one statement (PostgreSQL's list path): the same
// rows, in the same order, and the same total as the page query and the count read apart, on
// every shallow window (first, middle, last partial, past the end), with and without a status,
// for an account with no counter row yet, and never for a deep page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccount, createTestContext, type TestContext } from '../../../test/support/helpers.ts';
import { seedListings } from '../../../test/support/seed.ts';
import { listingsCounter } from '../counts/counters.ts';
import { readCount } from '../counts/counts.repository.ts';
import { listListings, listListingsWithTotal } from './listings.repository.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

const onPostgres = { skip: process.env.DATABASE_URL === undefined ? 'PostgreSQL only (LATERAL join)' : false };

test('page and total together match the page and the count read apart', onPostgres, async () => {
  const account = await createAccount(ctx);
  await seedListings(ctx.deps.db, account.accountId, 57);
  const db = ctx.deps.db.kysely;
  for (const status of [undefined, 'active', 'archived', 'draft'] as const) {
    const filter = { status };
    const counter = listingsCounter(status);
    const total = await readCount(db, account.accountId, counter);
    for (const window of [
      { limit: 20, offset: 0 },
      { limit: 20, offset: 20 },
      { limit: 20, offset: 40 },
      { limit: 7, offset: 49 },
      { limit: 20, offset: 100 },
    ]) {
      const both = await listListingsWithTotal(db, account.accountId, filter, window, counter);
      const rows = await listListings(db, account.accountId, filter, window);
      assert.deepEqual(both, { rows, total }, `${status ?? 'all'} ${JSON.stringify(window)}`);
    }
  }
  assert.equal(await listListingsWithTotal(db, account.accountId, {}, { limit: 20, offset: 1000 }, 'listings'), undefined); // prettier-ignore
});

test('an account with no galleries (no counter row): no rows, total 0', onPostgres, async () => {
  const account = await createAccount(ctx);
  const db = ctx.deps.db.kysely;
  assert.deepEqual(await listListingsWithTotal(db, account.accountId, {}, { limit: 20, offset: 0 }, 'listings'), {
    rows: [],
    total: 0,
  });
});
