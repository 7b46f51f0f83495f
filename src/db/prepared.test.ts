// Queries compiled once (src/db/prepared.ts), on both dialects: arguments bound per call, the
// same answers as Kysely's, and never a read of another request's uncommitted writes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, createTestContext, type TestContext } from '../../test/support/test-app.ts';
import { sql } from 'kysely';
import { prepared } from './prepared.ts';

describe('prepared queries', () => {
  let ctx: TestContext;
  let accountId: string;

  const byName = prepared((db, p: { accountId: string; name: string; limit: number }) =>
    db
      .selectFrom('clients')
      .select(['id', 'name'])
      .where('account_id', '=', p.accountId)
      .where('name', '=', p.name)
      .orderBy('id')
      .limit(p.limit),
  );
  const rename = prepared((db, p: { accountId: string; from: string; to: string }) =>
    db.updateTable('clients').set({ name: p.to }).where('account_id', '=', p.accountId).where('name', '=', p.from),
  );

  before(async () => {
    ctx = await createTestContext();
    ({ accountId } = await createAccount(ctx));
    for (const [i, name] of ['Ada', 'Ada', 'Ben'].entries()) {
      await ctx.services.clients.create(accountId, { name, email: `c${i}@example.test` });
    }
  });

  after(async () => {
    await ctx.close();
  });

  test('a query that selects or returns * is refused: its named statement would break on a new column', async () => {
    const db = ctx.deps.db.kysely;
    const star = prepared((d, p: { accountId: string }) =>
      d.selectFrom('clients').selectAll().where('account_id', '=', p.accountId),
    );
    await assert.rejects(star.first(db, { accountId }), /must name its columns/);
    const tableStar = prepared((d, p: { accountId: string }) =>
      d.selectFrom('clients').selectAll('clients').where('account_id', '=', p.accountId),
    );
    await assert.rejects(tableStar.first(db, { accountId }), /must name its columns/);
    const counted = prepared((d, p: { accountId: string }) =>
      d
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', p.accountId),
    );
    assert.equal(Number((await counted.first(db, { accountId }))?.n), 3);
  });

  test('binds each call its own arguments and answers as the query builder does', async () => {
    const db = ctx.deps.db.kysely;
    const built = await db
      .selectFrom('clients')
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('name', '=', 'Ada')
      .orderBy('id')
      .execute();
    assert.equal(built.length, 2);
    assert.deepEqual(await byName.all(db, { accountId, name: 'Ada', limit: 10 }), built);
    assert.deepEqual(await byName.all(db, { accountId, name: 'Ada', limit: 1 }), built.slice(0, 1));
    assert.equal((await byName.first(db, { accountId, name: 'Ben', limit: 10 }))?.name, 'Ben');
    assert.equal(await byName.first(db, { accountId: 'acc_other', name: 'Ada', limit: 10 }), undefined);
    assert.equal(await rename.run(db, { accountId, from: 'Ben', to: 'Bea' }), 1);
    assert.equal(await rename.run(db, { accountId, from: 'Ben', to: 'Bea' }), 0);
    assert.equal((await byName.all(db, { accountId, name: 'Bea', limit: 10 })).length, 1);
  });

  test('inside a transaction sees its writes; outside it sees only what was committed', async () => {
    const db = ctx.deps.db.kysely;
    let reading: Promise<unknown[]> | undefined;
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        assert.equal(await rename.run(trx, { accountId, from: 'Ada', to: 'Cy' }), 2);
        assert.equal((await byName.all(trx, { accountId, name: 'Cy', limit: 10 })).length, 2);
        // Another request reading meanwhile (on SQLite: the same connection, mid-transaction).
        reading = byName.all(db, { accountId, name: 'Cy', limit: 10 });
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    // However long the read took on a loaded machine, it never saw the uncommitted rename.
    assert.deepEqual(await reading, [], 'the rolled-back rename was never visible outside its transaction');
    assert.equal((await byName.all(db, { accountId, name: 'Ada', limit: 10 })).length, 2);
  });

  test(
    'on PostgreSQL, runs as a named statement of the connection, with the same answers each call',
    { skip: process.env.DATABASE_URL === undefined ? 'PostgreSQL only: SQLite reuses statements itself' : false },
    async () => {
      // A transaction holds one connection: the session's prepared statements are visible in it.
      const named = await ctx.deps.db.kysely.transaction().execute(async (trx) => {
        for (const name of ['Ada', 'Nobody', 'Ada']) {
          const rows = await byName.all(trx, { accountId, name, limit: 10 });
          assert.deepEqual(
            rows.map((r) => r.name),
            name === 'Ada' ? ['Ada', 'Ada'] : [],
          );
        }
        const { rows } = await sql<{ name: string; statement: string }>`
          select name, statement from pg_prepared_statements where statement like ${'%"clients"%"name" = $2%'}
        `.execute(trx);
        return rows;
      });
      assert.equal(named.length, 1, JSON.stringify(named));
      assert.match(named[0]?.name ?? '', /^lbx_[0-9a-f]{24}$/);
    },
  );
});
