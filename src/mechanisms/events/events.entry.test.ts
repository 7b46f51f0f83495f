// Over 400 lines on purpose: every event type against one verifying receiver and one delivery runner, so the suite proves the whole catalogue is announced.
// Every event type, fired by its action through the real HTTP stack, delivered by the delivery
// job to a receiver on 127.0.0.1 that verifies each request with the `standardwebhooks` package,
// and its `data.object` equal to what the resource's GET returns at that moment (docs/api.md
// §15). Then what must not be announced: a gallery's media when the gallery goes (listing.deleted
// stands for them), and a write that failed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import {
  call,
  createAccount,
  createTestContext,
  isPostgres,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg } from '../../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import {
  captureLog,
  newClient,
  newGallery,
  uniqueEmail,
  workerOf,
} from '../../../test/support/notification-helpers.ts';
import { startSmtpServer, type TestSmtpServer } from '../../../test/support/smtp-server.ts';
import {
  createEndpoint,
  deliveryRunner,
  listDeliveries,
  verifyingReceiver,
  type DeliveredEvent,
  type DeliveryRunner,
  type VerifyingReceiver,
} from '../../../test/support/webhooks.ts';
import { blockedConnections, systemLookups } from '../../../test/support/loopback-receivers.ts';

const ALL_TYPES = [
  'listing.created',
  'listing.updated',
  'listing.deleted',
  'listing.assigned',
  'listing.unassigned',
  'media.created',
  'media.updated',
  'media.deleted',
  'media.variants_ready',
  'client.created',
  'client.updated',
  'client.deleted',
  'notification.sent',
  'notification.failed',
  'client_link.viewed',
  'client_link.downloaded',
  'webhook.test',
] as const;

let ctx: TestContext;
let smtp: TestSmtpServer;
let me: TestAccount;
let receiver: VerifyingReceiver;
let runner: DeliveryRunner;
let endpointId: string;
let secret = '';
/** Every type a test saw delivered (and checked). */
const seen = new Set<string>();

before(async () => {
  smtp = await startSmtpServer();
  // Loopback receivers are private addresses: allowed here, as in development.
  ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_URL: smtp.url });
  me = await createAccount(ctx);
  receiver = await verifyingReceiver(() => [secret]);
  const endpoint = await createEndpoint(ctx, me, { url: receiver.url() });
  endpointId = endpoint.id;
  secret = endpoint.secret;
  runner = deliveryRunner(ctx.deps);
});

after(async () => {
  await runner.close();
  await receiver.close();
  await smtp.close();
  await ctx.close();
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

/** Clears the receiver, does `action`, runs the delivery job until nothing is due; what arrived. */
async function delivered(action: () => Promise<unknown>): Promise<DeliveredEvent[]> {
  receiver.clear();
  await action();
  await runner.drain();
  assert.deepEqual(receiver.rejected, [], 'every request verifies with the endpoint secret');
  for (const { event, headers } of receiver.verified) assert.equal(headers['webhook-id'], event.id);
  return receiver.events();
}

/** The one event of `type` among `events`, which must be the same as GET /v1/events/:id returns. */
async function one(events: DeliveredEvent[], type: string): Promise<DeliveredEvent> {
  const matching = events.filter((e) => e.type === type);
  assert.equal(matching.length, 1, `one ${type} in ${JSON.stringify(events.map((e) => e.type))}`);
  const event = matching[0] as DeliveredEvent;
  seen.add(type);
  const stored = await call(ctx, 'GET', `/v1/events/${event.id}`, { key: me.key });
  assert.equal(stored.statusCode, 200, stored.body);
  assert.deepEqual(stored.json(), event);
  return event;
}

/** GET `url` with the account's key, asserted 200. */
async function read(url: string): Promise<unknown> {
  const res = await call(ctx, 'GET', url, { key: me.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const galleryUrl = (id: string) => `/v1/listings/${id}`;
const mediaUrl = (m: { id: string; listing_id: string }) => `/v1/listings/${m.listing_id}/media/${m.id}`;

async function uploadPhoto(listingId: string, name = 'front.jpg'): Promise<MediaJson> {
  const [media] = await uploaded(ctx, me.key, listingId, [
    { filename: name, contentType: 'image/jpeg', data: await jpeg(40, 30) },
  ]);
  assert.ok(media);
  return media;
}

describe('webhooks: every event, verified, carries its resource as its GET returns it', () => {
  test('listing.created, listing.updated, listing.deleted', async () => {
    let id = '';
    const created = await delivered(async () => {
      id = (await newGallery(ctx, me, { address: '12 Oak Street' })).id;
    });
    assert.deepEqual((await one(created, 'listing.created')).data.object, await read(galleryUrl(id)));

    const updated = await delivered(() =>
      call(ctx, 'PATCH', galleryUrl(id), { key: me.key, body: { beds: 3, status: 'active' } }),
    );
    assert.deepEqual((await one(updated, 'listing.updated')).data.object, await read(galleryUrl(id)));

    const deleted = await delivered(() => call(ctx, 'DELETE', galleryUrl(id), { key: me.key }));
    assert.deepEqual((await one(deleted, 'listing.deleted')).data.object, { id });
  });

  test('media.created, media.variants_ready, media.updated, media.deleted', async () => {
    const gallery = await newGallery(ctx, me);
    let media: MediaJson | undefined;
    const created = await delivered(async () => {
      media = await uploadPhoto(gallery.id);
    });
    assert.ok(media);
    assert.deepEqual((await one(created, 'media.created')).data.object, await read(mediaUrl(media)));

    const ready = await delivered(() => makeVariantsNow(ctx));
    const variantsReady = await one(ready, 'media.variants_ready');
    const now = (await read(mediaUrl(media))) as MediaJson;
    assert.equal(now.variants?.status, 'ready');
    assert.deepEqual(variantsReady.data.object, now);

    const updated = await delivered(() =>
      call(ctx, 'PATCH', mediaUrl(media as MediaJson), { key: me.key, body: { caption: 'The porch at dusk' } }),
    );
    assert.deepEqual((await one(updated, 'media.updated')).data.object, await read(mediaUrl(media)));

    const deleted = await delivered(() => call(ctx, 'DELETE', mediaUrl(media as MediaJson), { key: me.key }));
    assert.deepEqual((await one(deleted, 'media.deleted')).data.object, { id: media.id });
  });

  test('the events that come with another: positions closed up, a cover gone, a new link, a new order', async () => {
    const gallery = await newGallery(ctx, me);
    const a = await uploadPhoto(gallery.id, 'a.jpg');
    const b = await uploadPhoto(gallery.id, 'b.jpg');
    const c = await uploadPhoto(gallery.id, 'c.jpg');
    await delivered(() => makeVariantsNow(ctx));
    const covered = await delivered(() =>
      call(ctx, 'PATCH', galleryUrl(gallery.id), { key: me.key, body: { cover_media_id: a.id } }),
    );
    assert.deepEqual((await one(covered, 'listing.updated')).data.object, await read(galleryUrl(gallery.id)));

    // The cover goes first: b and c move up one place each, and the gallery loses its cover.
    const deleted = await delivered(() => call(ctx, 'DELETE', mediaUrl(a), { key: me.key }));
    const moved = deleted.filter((e) => e.type === 'media.updated');
    assert.deepEqual(moved.map((e) => e.data.object.id).sort(), [b.id, c.id].sort());
    for (const e of moved) {
      assert.deepEqual(e.data.object, await read(mediaUrl({ id: String(e.data.object.id), listing_id: gallery.id })));
    }
    const uncovered = (await one(deleted, 'listing.updated')).data.object;
    assert.equal(uncovered.cover_media_id, null);
    assert.deepEqual(uncovered, await read(galleryUrl(gallery.id)));

    const reordered = await delivered(() =>
      call(ctx, 'PUT', `/v1/listings/${gallery.id}/media/order`, { key: me.key, body: { media_ids: [c.id, b.id] } }),
    );
    const orderEvents = reordered.filter((e) => e.type === 'media.updated');
    assert.equal(orderEvents.length, 2, JSON.stringify(reordered.map((e) => e.type)));
    for (const e of orderEvents) {
      assert.deepEqual(e.data.object, await read(mediaUrl({ id: String(e.data.object.id), listing_id: gallery.id })));
    }

    const client = await newClient(ctx, me);
    await delivered(() =>
      call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key, query: { notify: 'false' } }),
    );
    const relinked = await delivered(() => call(ctx, 'POST', `${galleryUrl(gallery.id)}/client_link`, { key: me.key }));
    assert.deepEqual((await one(relinked, 'listing.updated')).data.object, await read(galleryUrl(gallery.id)));
    // The client's own object lists the gallery now.
    const clientNow = (await read(`/v1/clients/${client.id}`)) as { listings: { id: string }[] };
    assert.deepEqual(
      clientNow.listings.map((l) => l.id),
      [gallery.id],
    );
  });

  test('client.created, client.updated, client.deleted: the single-client object, with its listings', async () => {
    let id = '';
    const created = await delivered(async () => {
      id = (await newClient(ctx, me, { name: 'Ann Lee' })).id;
    });
    assert.deepEqual((await one(created, 'client.created')).data.object, await read(`/v1/clients/${id}`));

    const updated = await delivered(() =>
      call(ctx, 'PATCH', `/v1/clients/${id}`, { key: me.key, body: { name: 'Ann Lee-Park', phone: '+1 555 0100' } }),
    );
    const object = (await one(updated, 'client.updated')).data.object;
    assert.deepEqual(object, await read(`/v1/clients/${id}`));
    assert.ok(Array.isArray(object.listings), 'the single-client object has its listings');

    const deleted = await delivered(() => call(ctx, 'DELETE', `/v1/clients/${id}`, { key: me.key }));
    assert.deepEqual((await one(deleted, 'client.deleted')).data.object, { id });
  });

  test('listing.assigned, notification.sent, client_link.viewed and .downloaded, listing.unassigned', async () => {
    const gallery = await newGallery(ctx, me);
    const media = await uploadPhoto(gallery.id);
    const client = await newClient(ctx, me);
    await delivered(() => makeVariantsNow(ctx));

    const assigned = await delivered(() =>
      call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key }),
    );
    const listing = (await read(galleryUrl(gallery.id))) as { client_link: { url: string } | null };
    assert.deepEqual((await one(assigned, 'listing.assigned')).data.object, listing);

    // The email goes out (the notification worker, as the serve process runs it); then its event.
    const sent = await delivered(() => workerOf(ctx, { log: captureLog() }).drain());
    assert.equal(smtp.received.length, 1);
    const notification = (await one(sent, 'notification.sent')).data.object;
    assert.equal(notification.status, 'sent');
    assert.deepEqual(notification, await read(`/v1/notifications/${String(notification.id)}`));

    // What the client does with the link: the gallery object's link counters change.
    assert.ok(listing.client_link);
    const page = new URL(listing.client_link.url).pathname;
    const viewed = await delivered(async () => {
      const res = await ctx.app.inject({ method: 'GET', url: page });
      assert.equal(res.statusCode, 200);
    });
    const afterView = (await read(galleryUrl(gallery.id))) as { client_link: { views: number } };
    assert.equal(afterView.client_link.views, 1);
    assert.deepEqual((await one(viewed, 'client_link.viewed')).data.object, afterView);

    const downloaded = await delivered(async () => {
      const res = await ctx.app.inject({ method: 'GET', url: `${page}/media/${media.id}/download` });
      assert.equal(res.statusCode, 200);
      // Counted, with its event, by the time the client has the file.
      const counted = (await read(galleryUrl(gallery.id))) as { client_link: { downloads: number } };
      assert.equal(counted.client_link.downloads, 1);
    });
    const afterDownload = (await read(galleryUrl(gallery.id))) as { client_link: { downloads: number } };
    assert.equal(afterDownload.client_link.downloads, 1);
    assert.deepEqual((await one(downloaded, 'client_link.downloaded')).data.object, afterDownload);

    const unassigned = await delivered(() =>
      call(ctx, 'DELETE', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key }),
    );
    assert.deepEqual((await one(unassigned, 'listing.unassigned')).data.object, await read(galleryUrl(gallery.id)));
  });

  test('notification.failed: the mail server refused the address for good', async () => {
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me, { email: uniqueEmail('bounce') });
    await delivered(() => call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key }));
    await smtp.setMode('550');
    try {
      const failed = await delivered(() => workerOf(ctx, { log: captureLog() }).drain());
      const notification = (await one(failed, 'notification.failed')).data.object;
      assert.equal(notification.status, 'failed');
      assert.deepEqual(notification, await read(`/v1/notifications/${String(notification.id)}`));
    } finally {
      await smtp.setMode('accept');
    }
  });

  test('webhook.test: sent to the endpoint on request, verified, never listed in GET /v1/events', async () => {
    const before = await read('/v1/events?limit=1');
    const events = await delivered(async () => {
      const res = await call(ctx, 'POST', `/v1/webhook_endpoints/${endpointId}/test`, { key: me.key });
      assert.equal(res.statusCode, 202, res.body);
    });
    const [event] = events;
    assert.equal(events.length, 1);
    assert.equal(event?.type, 'webhook.test');
    assert.ok(event.id.startsWith('evt_'));
    seen.add('webhook.test');
    const listed = await call(ctx, 'GET', `/v1/events/${event.id}`, { key: me.key });
    assert.equal(listed.statusCode, 404);
    assert.deepEqual(await read('/v1/events?limit=1'), before);
    const [delivery] = await listDeliveries(ctx, me, endpointId);
    assert.equal(delivery?.event_id, event.id);
    assert.equal(delivery.status, 'succeeded');
  });

  test("an endpoint hears the types it subscribes to (and webhook.test), and only its own account's", async () => {
    let narrowSecret = '';
    const narrow = await verifyingReceiver(() => [narrowSecret]);
    const other = await createAccount(ctx, 'Another studio');
    let otherSecret = '';
    const elsewhere = await verifyingReceiver(() => [otherSecret]);
    try {
      const onlyClients = await createEndpoint(ctx, me, { url: narrow.url(), events: ['client.created'] });
      narrowSecret = onlyClients.secret;
      otherSecret = (await createEndpoint(ctx, other, { url: elsewhere.url() })).secret;
      let clientId = '';
      await delivered(async () => {
        await newGallery(ctx, me);
        clientId = (await newClient(ctx, me)).id;
      });
      assert.deepEqual(
        narrow.events().map((e) => [e.type, e.data.object.id]),
        [['client.created', clientId]],
      );
      assert.deepEqual(elsewhere.received, []);
      // The test event goes to the endpoint asked, whatever it subscribes to.
      await delivered(() => call(ctx, 'POST', `/v1/webhook_endpoints/${onlyClients.id}/test`, { key: me.key }));
      assert.deepEqual(
        narrow.events().map((e) => e.type),
        ['client.created', 'webhook.test'],
      );
      assert.deepEqual(receiver.received, [], 'another endpoint of the account does not get the test event');
      assert.deepEqual(narrow.rejected, []);
      const gone = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${onlyClients.id}`, { key: me.key });
      assert.equal(gone.statusCode, 204);
    } finally {
      await narrow.close();
      await elsewhere.close();
    }
  });

  test('a gallery deleted with its media: one listing.deleted stands for them, no media.deleted each', async () => {
    const gallery = await newGallery(ctx, me);
    await uploadPhoto(gallery.id, 'a.jpg');
    await uploadPhoto(gallery.id, 'b.jpg');
    await uploadPhoto(gallery.id, 'c.jpg');
    await delivered(() => makeVariantsNow(ctx));
    const events = await delivered(() => call(ctx, 'DELETE', galleryUrl(gallery.id), { key: me.key }));
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object]),
      [['listing.deleted', { id: gallery.id }]],
    );
    const mediaDeleted = (await read('/v1/events?type=media.deleted&limit=100')) as { data: DeliveredEvent[] };
    for (const e of mediaDeleted.data) assert.notEqual(e.data.object.listing_id, gallery.id);
  });

  test('a write that fails after its event was written announces nothing (the event is rolled back)', async () => {
    const db = ctx.deps.db.kysely;
    const countBefore = (await read('/v1/events?limit=1')) as { pagination: { total: number } };
    const listingsBefore = (await read('/v1/listings?limit=1')) as { pagination: { total: number } };
    // The gallery's row and its event (with its endpoint to fan out to) are written; the count
    // upsert that ends the transaction then fails.
    if (isPostgres) {
      await sql`create function lbx_fail_count() returns trigger language plpgsql as $$
        begin raise exception 'forced failure after the event insert'; end $$`.execute(db);
      await sql`create trigger lbx_fail_count after insert or update on account_counts
        for each row execute function lbx_fail_count()`.execute(db);
    } else {
      await sql`create trigger lbx_fail_count after insert on account_counts
        begin select raise(abort, 'forced failure after the event insert'); end`.execute(db);
      await sql`create trigger lbx_fail_count_update after update on account_counts
        begin select raise(abort, 'forced failure after the event insert'); end`.execute(db);
    }
    let events: DeliveredEvent[];
    try {
      events = await delivered(async () => {
        const res = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '9 Never Lane' } });
        assert.equal(res.statusCode, 500, res.body);
      });
    } finally {
      await sql`drop trigger lbx_fail_count${sql.raw(isPostgres ? ' on account_counts' : '')}`.execute(db);
      if (isPostgres) await sql`drop function lbx_fail_count()`.execute(db);
      else await sql`drop trigger lbx_fail_count_update`.execute(db);
    }
    assert.deepEqual(events, []);
    assert.deepEqual(await read('/v1/events?limit=1'), countBefore);
    assert.deepEqual(
      ((await read('/v1/listings?limit=1')) as { pagination: { total: number } }).pagination,
      listingsBefore.pagination,
    );
    const stored = await db.selectFrom('events').select('id').where('data', 'like', '%9 Never Lane%').execute();
    assert.deepEqual(stored, []);
  });

  test('every event type was fired, delivered, verified and checked above', () => {
    assert.deepEqual([...seen].sort(), [...ALL_TYPES].sort());
  });
});
