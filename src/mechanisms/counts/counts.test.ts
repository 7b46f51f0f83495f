// Maintained counts stay exact: a long random sequence of writes through the real HTTP stack and
// the delivery worker (galleries, statuses, clients, assignments, media, gallery deletes that
// cascade, deliveries that succeed, fail or are retried), on either dialect; after it, and at
// points along it, every list's total equals COUNT(*) of its rows and the doctor check is clean.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Mailer } from '../../mail/mailer.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { pdf } from '../../../test/support/media-fixtures.ts';
import { upload } from '../../../test/support/media-helpers.ts';
import { uniqueEmail, workerOf } from '../../../test/support/notification-helpers.ts';
import { mulberry32 } from '../../../test/support/prng.ts';
import { LISTING_STATUSES, NOTIFICATION_STATUSES } from '../../db/schema.ts';
import { checkCounts } from './counts.service.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

interface Page {
  data: { id: string }[];
  pagination: { total: number };
}

async function total(account: TestAccount, url: string): Promise<number> {
  const res = await call(ctx, 'GET', url, { key: account.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Page>().pagination.total;
}

/** Every list total of the account, and every gallery's media_count, against COUNT(*). */
async function assertTotalsExact(account: TestAccount, note: string): Promise<void> {
  const db = ctx.deps.db.kysely;
  const count = async (table: 'listings' | 'clients' | 'media' | 'notifications', status?: string) => {
    let q = db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', account.accountId);
    if (status !== undefined) q = q.where('status' as never, '=', status as never);
    return (await q.executeTakeFirstOrThrow()).n;
  };
  assert.equal(await total(account, '/v1/listings'), await count('listings'), `listings total ${note}`);
  for (const status of LISTING_STATUSES) {
    assert.equal(await total(account, `/v1/listings?status=${status}`), await count('listings', status), note);
  }
  assert.equal(await total(account, '/v1/clients'), await count('clients'), `clients total ${note}`);
  assert.equal(await total(account, '/v1/notifications'), await count('notifications'), note);
  for (const status of NOTIFICATION_STATUSES) {
    assert.equal(
      await total(account, `/v1/notifications?status=${status}`),
      await count('notifications', status),
      `notifications ${status} ${note}`,
    );
  }
  const counts = await ctx.services.counts.counts(account.accountId);
  assert.equal(counts.media, await count('media'), `media ${note}`);
  assert.equal(counts.listings.total, await count('listings'));
  const galleries = await db
    .selectFrom('listings')
    .select(['id', 'media_count'])
    .where('account_id', '=', account.accountId)
    .execute();
  for (const g of galleries) {
    const res = await call(ctx, 'GET', `/v1/listings/${g.id}/media`, { key: account.key });
    assert.equal(res.json<Page>().pagination.total, g.media_count, `media of ${g.id} ${note}`);
  }
  const report = await checkCounts(ctx.deps.db);
  assert.deepEqual(report, { counters: [], mediaCounts: [], searchIndex: [], ok: true }, note);
}

describe('maintained counts', () => {
  test('random writes through the API and the worker leave every total exact', async () => {
    const seed = Number(process.env.COUNTS_SEED ?? 20261122);
    const random = mulberry32(seed);
    const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
    const accounts = [await createAccount(ctx), await createAccount(ctx)];
    const galleries = new Map<string, string[]>(accounts.map((a) => [a.accountId, []]));
    const clients = new Map<string, string[]>(accounts.map((a) => [a.accountId, []]));
    // Deliveries that succeed, are refused for good (550) or fail for now (451, retried later).
    const mailer: Mailer = {
      kind: 'smtp',
      send: () => {
        const r = random();
        if (r < 0.5) return Promise.resolve({ detail: '250 ok' });
        return Promise.reject(Object.assign(new Error('refused'), { responseCode: r < 0.75 ? 550 : 451 }));
      },
      close: () => undefined,
    };
    const worker = workerOf(ctx, { deps: { mailer } });
    const seen = new Set<string>();
    const ok = (status: number, op: string, body: string): void => {
      seen.add(op);
      assert.ok(status < 300 || status === 404, `${op}: ${status} ${body} (seed ${seed})`);
    };

    for (let step = 1; step <= 240; step += 1) {
      const account = pick(accounts) ?? accounts[0]!;
      const key = account.key;
      const mine = galleries.get(account.accountId) ?? [];
      const people = clients.get(account.accountId) ?? [];
      const gallery = pick(mine);
      const client = pick(people);
      const r = random();
      if (r < 0.16 || gallery === undefined) {
        const res = await call(ctx, 'POST', '/v1/listings', {
          key,
          body: { address: `${step} Quay`, ...(random() < 0.7 ? { status: pick(LISTING_STATUSES) } : {}) },
        });
        ok(res.statusCode, 'create gallery', res.body);
        mine.push(res.json<{ id: string }>().id);
      } else if (r < 0.3) {
        const body = random() < 0.8 ? { status: pick(LISTING_STATUSES) } : { beds: Math.floor(random() * 5) };
        const res = await call(ctx, 'PATCH', `/v1/listings/${gallery}`, { key, body });
        ok(res.statusCode, 'change gallery', res.body);
      } else if (r < 0.37) {
        const before = await call(ctx, 'GET', `/v1/listings/${gallery}`, { key });
        if (before.json<{ media_count: number }>().media_count > 0) seen.add('delete gallery with media');
        const res = await call(ctx, 'DELETE', `/v1/listings/${gallery}`, { key });
        ok(res.statusCode, 'delete gallery', res.body);
        mine.splice(mine.indexOf(gallery), 1);
      } else if (r < 0.48 || client === undefined) {
        const res = await call(ctx, 'POST', '/v1/clients', {
          key,
          body: { name: `Client ${step}`, email: uniqueEmail() },
        });
        ok(res.statusCode, 'create client', res.body);
        people.push(res.json<{ id: string }>().id);
      } else if (r < 0.52) {
        const res = await call(ctx, 'DELETE', `/v1/clients/${client}`, { key });
        ok(res.statusCode, 'delete client', res.body);
        people.splice(people.indexOf(client), 1);
      } else if (r < 0.68) {
        const res = await call(ctx, 'POST', `/v1/clients/${client}/listings/${gallery}`, { key });
        ok(res.statusCode, 'assign', res.body);
      } else if (r < 0.74) {
        const current = await call(ctx, 'GET', `/v1/listings/${gallery}`, { key });
        const owner = current.json<{ client_id: string | null }>().client_id ?? client;
        const res = await call(ctx, 'DELETE', `/v1/clients/${owner}/listings/${gallery}`, { key });
        ok(res.statusCode, 'unassign', res.body);
      } else if (r < 0.84) {
        const files = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => ({
          filename: `sheet-${step}-${i}.pdf`,
          contentType: 'application/pdf',
          data: pdf(`step ${step}`),
        }));
        const res = await upload(ctx, key, gallery, files);
        ok(res.statusCode, 'upload media', res.body);
      } else if (r < 0.9) {
        const list = await call(ctx, 'GET', `/v1/listings/${gallery}/media`, { key });
        const media = pick(list.json<Page>().data);
        if (media !== undefined) {
          const res = await call(ctx, 'DELETE', `/v1/listings/${gallery}/media/${media.id}`, { key });
          ok(res.statusCode, 'delete media', res.body);
        }
      } else {
        await worker.runOnce();
        seen.add('deliver');
      }
      if (step % 60 === 0) {
        for (const a of accounts) await assertTotalsExact(a, `after step ${step} (seed ${seed})`);
      }
    }
    await worker.drain();
    for (const a of accounts) await assertTotalsExact(a, `at the end (seed ${seed})`);
    // The sequence really exercised every kind of write, and the outcomes the counts track.
    for (const op of [
      'create gallery',
      'change gallery',
      'delete gallery',
      'delete gallery with media',
      'create client',
      'delete client',
      'assign',
      'unassign',
      'upload media',
      'delete media',
      'deliver',
    ]) {
      assert.ok(seen.has(op), `the sequence never ran ${op}`);
    }
    const statuses = await ctx.deps.db.kysely.selectFrom('notifications').select('status').distinct().execute();
    assert.deepEqual(statuses.map((s) => s.status).sort(), ['cancelled', 'failed', 'queued', 'sent']);
    const cascaded = await ctx.deps.db.kysely.selectFrom('media').select('id').limit(1).execute();
    assert.equal(cascaded.length, 1, 'some media remain, so the cascade and the survivors are both counted');
  });
});
