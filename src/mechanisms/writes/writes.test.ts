// The unit of work (src/mechanisms/writes/writes.ts) under concurrent writers, on both dialects: each write is
// all or nothing on its own, its counts and events are exact, and its after-commit work runs
// only once it has committed. On SQLite, writes that arrive together share one transaction
// (./write-group.ts); that must change none of this.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createAccount, createTestContext, isPostgres, type TestContext } from '../../../test/support/test-app.ts';
import { newId } from '../../lib/ids.ts';
import { newPortalToken } from '../../modules/portals/portals.entry.ts';
import { checkCounts } from '../counts/counts.service.ts';
import { readCount } from '../counts/counts.repository.ts';
import * as clientsRepo from '../../modules/clients/clients.repository.ts';
import type { Executor } from '../../db/executor.ts';
import { lockAccount } from '../../modules/accounts/accounts.repository.ts';
import { lockListing, touchListing } from '../../modules/listings/listings.repository.ts';
import { lockMedia } from '../../modules/media/media.repository.ts';
import { lockPhotoForVariants } from '../../modules/variants/variants.repository.ts';
import { resourcesOf } from '../../services.ts';
import { createWrites, type LockQueries, type Write } from './writes.ts';

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
    portal_token: newPortalToken(),
    created_at: w.now,
    updated_at: w.now,
  });
  w.announce('client.created', id);
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

describe("the unit of work's locks, snapshots and events announced by id", () => {
  /** The registered lock queries (as src/services.ts registers them), each noting when it is taken. */
  function recordingLocks(taken: string[]): LockQueries {
    return {
      account: (trx, dialect, accountId) => (taken.push('account'), lockAccount(trx, dialect, accountId)),
      listing: (trx, dialect, accountId, id) => (taken.push('listing'), lockListing(trx, dialect, accountId, id)),
      media: (trx, dialect, accountId, listingId, id) => (
        taken.push('media'),
        lockMedia(trx, dialect, accountId, listingId, id)
      ),
      photo: (trx, dialect, accountId, id) => (taken.push('photo'), lockPhotoForVariants(trx, dialect, accountId, id)),
    };
  }

  test('locks are taken in one order, whatever the order asked; a row not there ends the taking', async () => {
    const { accountId } = await createAccount(ctx);
    const other = await createAccount(ctx);
    const gallery = await ctx.services.listings.create(accountId, { address: '1 Lock Lane' });
    const foreign = await ctx.services.listings.create(other.accountId, { address: '2 Lock Lane' });
    const taken: string[] = [];
    const writes = createWrites({
      db: ctx.deps.db,
      clock: ctx.deps.clock,
      locks: recordingLocks(taken),
      resources: resourcesOf(ctx.config),
    });

    const seen = await writes.run(
      accountId,
      { lock: { photo: newId('med'), listing: gallery.id, account: true } },
      (w) => Promise.resolve({ account: w.account?.id, listing: w.listing?.id, photo: w.photo }),
    );
    assert.deepEqual(taken, ['account', 'listing', 'photo']);
    assert.deepEqual(seen, { account: accountId, listing: gallery.id, photo: undefined });

    // A media row that is not the gallery's: the photo's lock after it is not taken.
    taken.length = 0;
    const partly = await writes.run(
      accountId,
      { lock: { photo: newId('med'), media: newId('med'), listing: gallery.id } },
      (w) => Promise.resolve({ listing: w.listing?.id, media: w.media }),
    );
    assert.deepEqual(taken, ['listing', 'media']);
    assert.deepEqual(partly, { listing: gallery.id, media: undefined });

    // Another account's gallery is not there for this account: nothing after it is taken.
    taken.length = 0;
    const none = await writes.run(accountId, { lock: { listing: foreign.id, media: newId('med') } }, (w) =>
      Promise.resolve(w.listing),
    );
    assert.deepEqual(taken, ['listing']);
    assert.equal(none, undefined);

    await assert.rejects(
      writes.run(accountId, { lock: { media: newId('med') } }, () => Promise.resolve()),
      /lock\.media: lock its gallery/,
    );
  });

  test('a snapshot sees the reads of one moment, and refuses a change on PostgreSQL', async () => {
    const { accountId } = await createAccount(ctx);
    const { writes } = ctx.services;
    const id = await writes.run(accountId, {}, (w) => addClient(w, 'snapshot@example.test'));
    assert.deepEqual(
      await writes.snapshot(async (trx) =>
        (await trx.selectFrom('clients').select('id').where('account_id', '=', accountId).execute()).map((r) => r.id),
      ),
      [id],
    );
    if (!isPostgres) return;
    await assert.rejects(
      writes.snapshot((trx) => trx.deleteFrom('clients').where('account_id', '=', accountId).execute()),
      /read-only transaction/,
    );
    assert.deepEqual(await clientIds(accountId), [id]);
  });

  test('an event announced by id is the resource as its GET returns it, touched and loaded once', async () => {
    const { accountId } = await createAccount(ctx);
    const gallery = await ctx.services.listings.create(accountId, { address: '3 Event Row' });
    const calls: string[] = [];
    const registered = resourcesOf(ctx.config);
    const writes = createWrites({
      db: ctx.deps.db,
      clock: ctx.deps.clock,
      locks: recordingLocks([]),
      resources: {
        // Only the gallery's events: an event of a kind left out has no resource to load.
        objectOf: { listing: 'listing', client_link: 'listing' },
        loaders: {
          ...registered.loaders,
          listing: {
            load: (trx, a, id) => (calls.push('load'), registered.loaders.listing.load(trx, a, id)),
            touch: (trx, a, id, now) => (calls.push('touch'), touchListing(trx, a, id, now)),
          },
        },
      },
    });
    const now = new Date(Date.parse(gallery.updated_at) + 60_000).toISOString();
    const answer = await writes.run(accountId, { now }, async (w) => {
      w.touch('listing', gallery.id);
      w.announce('listing.updated', gallery.id);
      w.announce('client_link.viewed', gallery.id);
      w.announce('listing.updated', newId('lst'));
      w.announce('listing.deleted', 'lst_gone');
      return w.load('listing', gallery.id);
    });
    // The answer's load is the events' too; the gallery not there costs its one read, and no event.
    assert.deepEqual(calls, ['touch', 'load', 'load']);
    const get = await ctx.services.listings.get(accountId, gallery.id);
    assert.equal(get.updated_at, now);
    assert.deepEqual(answer, get);
    const events = await ctx.deps.db.kysely
      .selectFrom('events')
      .select(['type', 'data'])
      .where('account_id', '=', accountId)
      .where('created_at', '=', now)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      events.map((e) => [e.type, JSON.parse(e.data) as unknown]),
      [
        ['listing.updated', { object: get }],
        ['client_link.viewed', { object: get }],
        ['listing.deleted', { object: { id: 'lst_gone' } }],
      ],
    );
    // An object handed over (built from the rows just written) is announced as it is: no read.
    calls.length = 0;
    const later = new Date(Date.parse(now) + 60_000).toISOString();
    await writes.run(accountId, { now: later }, (w) => {
      w.loaded('listing', gallery.id, { ...get, address: 'as handed over' });
      w.announce('listing.updated', gallery.id);
      return Promise.resolve();
    });
    assert.deepEqual(calls, []);
    const handed = await ctx.deps.db.kysely
      .selectFrom('events')
      .select('data')
      .where('account_id', '=', accountId)
      .where('created_at', '=', later)
      .executeTakeFirstOrThrow();
    assert.equal((JSON.parse(handed.data) as { object: { address: string } }).object.address, 'as handed over');
    // A touch pending would move its `updated_at`, which the object handed over does not show.
    await assert.rejects(
      writes.within(ctx.deps.db.kysely, accountId, {}, (w) => {
        w.touch('listing', gallery.id);
        w.loaded('listing', gallery.id, get);
      }),
      /has a touch pending/,
    );
    await assert.rejects(
      writes.within(ctx.deps.db.kysely, accountId, {}, (w) => w.announce('media.updated', newId('med'))),
      /no resource is registered for media.updated/,
    );
  });
});
