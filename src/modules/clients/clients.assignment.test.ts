// Assignment (`/v1/clients/:id/listings/:listing_id`): assign and unassign a gallery, and the
// notification each records or cancels; docs/api.md §7, with §1, §2 and §4.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GALLERY_KEYS, ISO_MS, assertError } from '../../../test/support/api-assertions.ts';
import { clientsApi } from '../../../test/support/clients-api.ts';
import {
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { uniqueEmail } from '../../../test/support/notification-helpers.ts';

let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx);
});
after(() => ctx.close());

const { createClient, createListing, get, assign, unassign, notificationsOf } = clientsApi(() => ({ ctx, me }));

describe('POST /v1/clients/:id/listings/:listing_id (assign)', () => {
  test('200 the gallery object with client_id; a queued notification to the client is recorded', async () => {
    const c = await createClient({ email: uniqueEmail('Notify.Me') });
    const g = await createListing();
    await sleep(5);
    const res = await assign(c.id, g.id);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), GALLERY_KEYS);
    assert.equal(body.id, g.id);
    assert.equal(body.client_id, c.id);
    assert.ok(body.updated_at > g.updated_at);
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, c.id);

    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    const n = rows[0]!;
    assert.match(n.id, /^ntf_/);
    assert.equal(n.account_id, me.accountId);
    assert.equal(n.client_id, c.id);
    assert.equal(n.listing_id, g.id);
    assert.equal(n.to_email, c.email);
    assert.equal(n.status, 'queued');
    assert.equal(n.sent_at, null);
    assert.match(n.created_at, ISO_MS);
    assert.ok(n.message_id.length > 0);
  });

  test('assigning again to the same client changes and records nothing', async () => {
    const c = await createClient();
    const g = await createListing();
    const first = (await assign(c.id, g.id)).json();
    await sleep(5);
    const again = await assign(c.id, g.id);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), first);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'queued');
  });

  test('concurrent identical assignments record one notification between them', async () => {
    const c = await createClient();
    const g = await createListing();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => assign(c.id, g.id)));
    for (const r of answers) {
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json().client_id, c.id);
    }
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'queued');
  });

  test('reassigning records a notification for the new client and cancels the earlier queued one', async () => {
    const a = await createClient();
    const b = await createClient();
    const g = await createListing();
    await assign(a.id, g.id);
    const res = await assign(b.id, g.id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().client_id, b.id);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 2);
    const forA = rows.find((r) => r.client_id === a.id);
    const forB = rows.find((r) => r.client_id === b.id);
    assert.equal(forA?.status, 'cancelled');
    assert.equal(forA?.to_email, a.email);
    assert.equal(forB?.status, 'queued');
    assert.equal(forB?.to_email, b.email);
    assert.deepEqual((await get(`/v1/clients/${a.id}/listings`)).json().data, []);
    assert.deepEqual(
      (await get(`/v1/clients/${b.id}`)).json().listings.map((l: { id: string }) => l.id),
      [g.id],
    );
  });

  test("a sent notification is never cancelled by reassignment; other galleries' emails are untouched", async () => {
    const a = await createClient();
    const b = await createClient();
    const g = await createListing();
    const other = await createListing();
    await assign(a.id, g.id);
    await assign(a.id, other.id);
    await ctx.deps.db.kysely
      .updateTable('notifications')
      .set({ status: 'sent' })
      .where('listing_id', '=', g.id)
      .execute();
    await assign(b.id, g.id);
    const rows = await notificationsOf(g.id);
    assert.deepEqual(rows.map((r) => [r.client_id, r.status]).sort(), [
      [a.id, 'sent'],
      [b.id, 'queued'],
    ]);
    assert.equal((await notificationsOf(other.id))[0]?.status, 'queued');
  });

  test('404 for an unknown client or gallery, or one of another account; nothing recorded', async () => {
    const c = await createClient();
    const g = await createListing();
    const other = await createAccount(ctx);
    const theirClient = await createClient({}, other.key);
    const theirGallery = await createListing(other.key);
    for (const [clientId, listingId] of [
      ['cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', g.id],
      [c.id, 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      [theirClient.id, g.id],
      [c.id, theirGallery.id],
      ['nope', g.id],
      [c.id, 'nope'],
      ['cli_%00', g.id],
      [c.id, 'lst_%00'],
    ]) {
      assertError(await assign(clientId, listingId), 404, 'not_found');
    }
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, null);
    assert.equal((await get(`/v1/listings/${theirGallery.id}`, other.key)).json().client_id, null);
    assert.equal((await notificationsOf(g.id)).length, 0);
    assert.equal((await notificationsOf(theirGallery.id)).length, 0);
  });
});

describe('DELETE /v1/clients/:id/listings/:listing_id (unassign)', () => {
  test('204; the gallery is unassigned and its queued notification cancelled; then 404', async () => {
    const c = await createClient();
    const g = await createListing();
    await assign(c.id, g.id);
    const res = await unassign(c.id, g.id);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, null);
    assert.deepEqual((await get(`/v1/clients/${c.id}`)).json().listings, []);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'cancelled');
    assertError(await unassign(c.id, g.id), 404, 'not_found');
    // Assigning again records a fresh notification.
    await assign(c.id, g.id);
    assert.deepEqual((await notificationsOf(g.id)).map((r) => r.status).sort(), ['cancelled', 'queued']);
  });

  test('404 when the gallery is assigned to another client, or to nobody; nothing changes', async () => {
    const a = await createClient();
    const b = await createClient();
    const g = await createListing();
    const free = await createListing();
    await assign(a.id, g.id);
    assertError(await unassign(b.id, g.id), 404, 'not_found');
    assertError(await unassign(a.id, free.id), 404, 'not_found');
    assertError(await unassign('cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', g.id), 404, 'not_found');
    assertError(await unassign(a.id, 'lst_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
    assertError(await unassign('cli_%00', 'lst_%00'), 404, 'not_found');
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, a.id);
    assert.equal((await notificationsOf(g.id))[0]?.status, 'queued');
  });

  test("404 for another account's assignment, which survives", async () => {
    const other = await createAccount(ctx);
    const c = await createClient({}, other.key);
    const g = await createListing(other.key);
    await assign(c.id, g.id, other.key);
    assertError(await unassign(c.id, g.id), 404, 'not_found');
    assert.equal((await get(`/v1/listings/${g.id}`, other.key)).json().client_id, c.id);
    assert.equal((await notificationsOf(g.id))[0]?.status, 'queued');
  });
});

describe('assignToClientByEmail (the dashboard: assign to a client named by email)', () => {
  const db = () => ctx.deps.db.kysely;
  const clientsNamed = (email: string) =>
    db()
      .selectFrom('clients')
      .select(['id', 'name'])
      .where('account_id', '=', me.accountId)
      .where('email_normalized', '=', email.toLowerCase())
      .execute();
  const eventsOf = (type: 'client.created') =>
    db().selectFrom('events').select('id').where('account_id', '=', me.accountId).where('type', '=', type).execute();
  const clientCount = async () => (await get('/v1/clients?limit=1')).json().pagination.total as number;

  test('a new email: the client is made and the gallery assigned, with its email, in one write', async () => {
    const g = await createListing();
    const email = uniqueEmail('By.Email');
    const done = await ctx.services.clients.assignToClientByEmail(me.accountId, g.id, { name: 'Ada', email });
    assert.equal(done.existing, false);
    assert.equal(done.listing.client_id, done.clientId);
    assert.deepEqual(await clientsNamed(email), [{ id: done.clientId, name: 'Ada' }]);
    const rows = await notificationsOf(g.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.to_email, email);
    // Its client.created is the client as its GET returns it after the write: with this gallery.
    const event = await db()
      .selectFrom('events')
      .select('data')
      .where('account_id', '=', me.accountId)
      .where('type', '=', 'client.created')
      .where('data', 'like', `%${done.clientId}%`)
      .executeTakeFirstOrThrow();
    const client = (await get(`/v1/clients/${done.clientId}`)).json<{ listings: { id: string }[] }>();
    assert.deepEqual(
      client.listings.map((l) => l.id),
      [g.id],
    );
    assert.deepEqual((JSON.parse(event.data) as { object: unknown }).object, client);
  });

  test('an email the studio knows (in any case): that client is assigned, no second one made', async () => {
    const c = await createClient({ email: uniqueEmail('Known.One') });
    const g = await createListing();
    const before = await clientCount();
    const done = await ctx.services.clients.assignToClientByEmail(
      me.accountId,
      g.id,
      { name: 'Someone Else', email: c.email.toUpperCase() },
      { notify: false },
    );
    assert.deepEqual({ existing: done.existing, clientId: done.clientId }, { existing: true, clientId: c.id });
    assert.equal((await get(`/v1/listings/${g.id}`)).json().client_id, c.id);
    assert.equal(await clientCount(), before);
    assert.equal((await notificationsOf(g.id)).length, 0);
  });

  test('a failure half way (the gallery deleted meanwhile) leaves nothing written: no client, event or count', async () => {
    const g = await createListing();
    assert.equal(
      (
        await ctx.app.inject({
          method: 'DELETE',
          url: `/v1/listings/${g.id}`,
          headers: { authorization: `Bearer ${me.key}` },
        })
      ).statusCode,
      204,
    );
    const email = uniqueEmail('Half.Way');
    const before = { count: await clientCount(), created: (await eventsOf('client.created')).length };
    await assert.rejects(
      ctx.services.clients.assignToClientByEmail(me.accountId, g.id, { name: 'Half Way', email }),
      (err: { code?: string }) => err.code === 'not_found',
    );
    assert.deepEqual(await clientsNamed(email), []);
    assert.equal(await clientCount(), before.count);
    assert.equal((await eventsOf('client.created')).length, before.created);
  });
});
