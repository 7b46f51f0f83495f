// The unit of work (src/mechanisms/writes/writes.ts) under concurrent writers, on both dialects: each write is
// all or nothing on its own, its counts and events are exact, and its after-commit work runs
// only once it has committed. On SQLite, writes that arrive together share one transaction
// (./write-group.ts); that must change none of this.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createAccount, createTestContext, isPostgres, type TestContext } from '../../../test/support/test-app.ts';
import { newId } from '../../lib/ids.ts';
import { checkCounts } from '../counts/counts.service.ts';
import { readCount } from '../counts/counts.repository.ts';
import * as clientsRepo from '../../modules/clients/clients.repository.ts';
import type { Executor } from '../../db/executor.ts';
import type { Write } from './writes.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

/** A client made by hand in `w`, announced and counted as the clients service does. */
async function addClient(w: Write, email: string): Promise<string> {
  const id = newId('cli');
  await clientsRepo.insertClient(w.trx, {
    id,
    account_id: w.accountId,
    name: email,
    name_normalized: email,
    email,
    email_normalized: email,
    phone: null,
    company: null,
    notes: null,
    created_at: w.now,
    updated_at: w.now,
  });
  w.announce('client.created', { id });
  w.count({ clients: 1 });
  return id;
}

const clientIds = async (accountId: string): Promise<string[]> =>
  (await ctx.deps.db.kysely.selectFrom('clients').select('id').where('account_id', '=', accountId).execute()).map(
    (r) => r.id,
  );

const eventCount = async (accountId: string): Promise<number> =>
  (await ctx.deps.db.kysely.selectFrom('events').select('id').where('account_id', '=', accountId).execute()).length;

describe('the unit of work under concurrent writers', () => {
  test('writes started together each commit or fail alone; counts and events stay exact', async () => {
    const { accountId } = await createAccount(ctx);
    const { writes } = ctx.services;
    const transactions = new Set<Executor>();
    const afterCommit: string[] = [];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        writes.run(accountId, {}, async (w) => {
          transactions.add(w.trx);
          const id = await addClient(w, `w${i}@example.test`);
          w.afterCommit(() => Promise.resolve(void afterCommit.push(id)));
          // Every third write fails after its insert, its event and its count were made.
          if (i % 3 === 2) throw new Error(`write ${i} fails`);
          // A database error fails its own write only: the same email again.
          if (i % 10 === 4) await addClient(w, `w${i}@example.test`);
          return id;
        }),
      ),
    );
    const kept = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []));
    assert.deepEqual(failed, [2, 4, 5, 8, 11, 14, 17, 20, 23, 24, 26, 29]);
    assert.deepEqual((await clientIds(accountId)).sort(), [...kept].sort());
    assert.equal(await readCount(ctx.deps.db.kysely, accountId, 'clients'), kept.length);
    assert.equal(await eventCount(accountId), kept.length);
    assert.deepEqual([...afterCommit].sort(), [...kept].sort(), 'after-commit work of committed writes only');
    assert.equal((await checkCounts(ctx.deps.db)).ok, true);
    // SQLite: they arrived in one turn of the event loop, so they shared a transaction.
    if (!isPostgres) assert.equal(transactions.size, 1);
  });

  test('a long queue of writes is committed in bounded groups, every write answered', async () => {
    const { accountId } = await createAccount(ctx);
    const { writes } = ctx.services;
    const transactions = new Set<Executor>();
    const ids = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        writes.run(accountId, {}, (w) => {
          transactions.add(w.trx);
          return addClient(w, `many${i}@example.test`);
        }),
      ),
    );
    assert.equal(new Set(ids).size, 150);
    assert.equal(await readCount(ctx.deps.db.kysely, accountId, 'clients'), 150);
    // SQLite: at most 64 writes a group, so 150 queued at once make three.
    if (!isPostgres) assert.equal(transactions.size, 3);
  });

  test('a write is answered only once it is committed: another connection or request then sees it', async () => {
    const { accountId } = await createAccount(ctx);
    const { writes } = ctx.services;
    const ids = await Promise.all(
      Array.from({ length: 5 }, (_, i) => writes.run(accountId, {}, (w) => addClient(w, `seen${i}@example.test`))),
    );
    assert.deepEqual((await clientIds(accountId)).sort(), [...ids].sort());
  });

  test('SQLite: when a write ends the shared transaction, the writes it took with it fail too', async (t) => {
    if (isPostgres) {
      t.skip('each write has its own transaction on PostgreSQL');
      return;
    }
    const { accountId } = await createAccount(ctx);
    const { writes } = ctx.services;
    const outcomes = await Promise.allSettled([
      writes.run(accountId, {}, (w) => addClient(w, 'first@example.test')),
      writes.run(accountId, {}, async (w) => {
        await addClient(w, 'second@example.test');
        // What SQLITE_FULL or an I/O error does: the whole transaction is rolled back.
        await sql`rollback`.execute(w.trx);
        throw new Error('the transaction is gone');
      }),
      writes.run(accountId, {}, (w) => addClient(w, 'third@example.test')),
    ]);
    assert.equal(outcomes[0]?.status, 'rejected', 'its changes were rolled back: it must not be answered');
    assert.equal(outcomes[1]?.status, 'rejected');
    assert.equal(outcomes[2]?.status, 'fulfilled', 'a write after the failure gets a transaction of its own');
    const third = outcomes[2]?.status === 'fulfilled' ? outcomes[2].value : '';
    assert.deepEqual(await clientIds(accountId), [third]);
    assert.equal(await readCount(ctx.deps.db.kysely, accountId, 'clients'), 1);
    assert.equal(await eventCount(accountId), 1);
  });
});
