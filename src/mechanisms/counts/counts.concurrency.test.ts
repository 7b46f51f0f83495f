// Counts under concurrent writers. On PostgreSQL the requests below really run side by side (a
// pool of connections), contending for the same galleries, clients and counter rows: no count
// update may be lost, no status change counted from a stale status, and no two writers may
// deadlock (that would be a 500). On SQLite the same requests queue for the one writer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { uniqueEmail } from '../../../test/support/notification-helpers.ts';
import { LISTING_STATUSES } from '../../db/schema.ts';
import { addCounts, readCount } from './counts.repository.ts';
import { checkCounts } from './counts.service.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

const clean = { counters: [], mediaCounts: [], searchIndex: [], ok: true };

describe('maintained counts under concurrency', () => {
  test('parallel increments of one counter in separate transactions lose none', async () => {
    const account = await createAccount(ctx);
    const db = ctx.deps.db.kysely;
    // Each transaction holds its row lock a little, so they overlap for certain on PostgreSQL.
    await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await addCounts(trx, account.accountId, { clients: i % 3 === 0 ? -1 : 2 });
          await new Promise((resolve) => setTimeout(resolve, 2));
        }),
      ),
    );
    assert.equal(await readCount(db, account.accountId, 'clients'), 40 * -1 + 80 * 2);
    // Back to the truth (this account has no clients), for the checks of the next test.
    await addCounts(db, account.accountId, { clients: -(40 * -1 + 80 * 2) });
  });

  test('parallel creates, status races, reassignments and deletes leave every count exact', async () => {
    const account = await createAccount(ctx);
    const key = account.key;
    const statuses: string[] = [];
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(ctx, 'POST', '/v1/listings', { key, body: { address: `${i} Pier`, status: LISTING_STATUSES[i % 3] } }),
      ),
    );
    const galleries = created.map((res) => {
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ id: string }>().id;
    });
    const people = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(ctx, 'POST', '/v1/clients', { key, body: { name: 'Pat', email: uniqueEmail() } }),
      ),
    );
    const clients = people.map((res) => res.json<{ id: string }>().id);
    // Hot rows: most requests go to the first four galleries and the first two clients.
    const hot = galleries.slice(0, 4);
    const requests: Promise<{ statusCode: number; body: string }>[] = [];
    for (let i = 0; i < 160; i += 1) {
      const gallery = hot[i % hot.length]!;
      const client = clients[i % 2]!;
      switch (i % 8) {
        case 0:
        case 1:
        case 2:
          requests.push(
            call(ctx, 'PATCH', `/v1/listings/${gallery}`, {
              key,
              body: { status: LISTING_STATUSES[((i / 8) % 3) | 0] },
            }),
          );
          break;
        case 3:
        case 4:
          requests.push(call(ctx, 'POST', `/v1/clients/${client}/listings/${gallery}`, { key }));
          break;
        case 5:
          requests.push(call(ctx, 'DELETE', `/v1/clients/${client}/listings/${gallery}`, { key }));
          break;
        case 6:
          requests.push(call(ctx, 'POST', '/v1/listings', { key, body: { address: `${i} Mole`, status: 'active' } }));
          break;
        default:
          // Deletes of cold galleries, and of a client near the end, race the rest.
          requests.push(call(ctx, 'DELETE', `/v1/listings/${galleries[4 + (i >> 3)] ?? galleries[23]!}`, { key }));
      }
      if (i === 150) requests.push(call(ctx, 'DELETE', `/v1/clients/${clients[1]!}`, { key }));
    }
    const results = await Promise.all(requests);
    for (const res of results) {
      statuses.push(String(res.statusCode));
      // 503: no database connection came within its wait (160 requests on a pool of 10, on a
      // loaded machine). It must change nothing, which the counts below check with the rest.
      assert.ok([200, 201, 204, 404, 503].includes(res.statusCode), `${res.statusCode} ${res.body}`);
    }
    const unavailable = statuses.filter((s) => s === '503').length;
    assert.ok(unavailable <= results.length / 10, `${unavailable} of ${results.length} answered 503`);
    assert.ok(statuses.includes('200') && statuses.includes('204'));
    assert.deepEqual(await checkCounts(ctx.deps.db), clean);
    const list = await call(ctx, 'GET', '/v1/listings', { key });
    const stored = await ctx.deps.db.kysely
      .selectFrom('listings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', account.accountId)
      .executeTakeFirstOrThrow();
    assert.equal(list.json<{ pagination: { total: number } }>().pagination.total, stored.n);
  });
});
