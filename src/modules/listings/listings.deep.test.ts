// Deep pages of the gallery list (read ids from the index first, then the rows) walk the same
// order as shallow ones, with and without a status filter, and carry the maintained total.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { seedListings } from '../../../test/support/seed.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

test('pages either side of the deep-page threshold follow created_at desc, id desc exactly', async () => {
  const account = await createAccount(ctx);
  await seedListings(ctx.deps.db, account.accountId, 3100);
  for (const status of [undefined, 'active'] as const) {
    let q = ctx.deps.db.kysely.selectFrom('listings').select('id').where('account_id', '=', account.accountId);
    if (status !== undefined) q = q.where('status', '=', status);
    const all = (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map((r) => r.id);
    // Offsets 960 (shallow) to 1040 (deep), and the last, partial page.
    for (const page of [49, 50, 51, 52, Math.ceil(all.length / 20)]) {
      const filter = status === undefined ? '' : `&status=${status}`;
      const res = await call(ctx, 'GET', `/v1/listings?page=${page}&limit=20${filter}`, { key: account.key });
      const body = res.json<{ data: { id: string; status: string }[]; pagination: { total: number } }>();
      assert.deepEqual(
        body.data.map((g) => g.id),
        all.slice((page - 1) * 20, page * 20),
        `page ${page} ${status ?? ''}`,
      );
      assert.equal(body.pagination.total, all.length);
      if (status !== undefined) assert.ok(body.data.every((g) => g.status === status));
    }
  }
});
