// The client's every operation against a real server (the app listening on 127.0.0.1, a real
// database): each resource method once at least, what it answers, and at the end a check that the
// requests sent cover every /v1 operation of the app's OpenAPI document.
import { assertPagination } from '../../../../test/support/api-assertions.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import {
  ConflictError,
  NotFoundError,
  NotModified,
  PermissionError,
  ValidationError,
  Lightbox,
  type Listing,
  type WithResponse,
} from '../node.ts';
import { testModeOf } from '../../../../test/support/test-app.ts';
import {
  documentOperations,
  matches,
  startClientWebhookServer,
  type ClientWebhookServer,
} from '../../../../test/support/client.ts';
import { jpeg, pdf } from '../../../../test/support/media-fixtures.ts';
import { makeVariantsNow } from '../../../../test/support/media-helpers.ts';
import { productsAndInvoices } from '../../test-fixtures/billing-cases.ts';
import type { DeliveryRunner } from '../../../../test/support/webhooks.ts';
import type { Receiver } from '../../../../test/support/loopback-receivers.ts';

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

// Operations exercised by their own suites (the resumable upload's tus requests: src/tus.test.ts).
const ELSEWHERE = (op: { path: string }): boolean => op.path.startsWith('/v1/listings/{id}/uploads');

describe('client: every operation against a real server', () => {
  let s: ClientWebhookServer;
  let lb: Lightbox;
  let receiver: Receiver;
  let runner: DeliveryRunner;

  before(async () => {
    s = await startClientWebhookServer();
    ({ lb, receiver, runner } = s);
  });
  after(() => s.close());

  test('the API key is not shown by util.inspect or JSON.stringify of the client', () => {
    const key = 'lbx_' + 'k'.repeat(40);
    const other = new Lightbox({ apiKey: key, baseUrl: s.base });
    assert.ok(!inspect(other, { depth: 10, showHidden: true }).includes(key));
    assert.ok(!JSON.stringify(other.http).includes(key));
  });

  let listing: WithResponse<Listing>;

  test('listings: create, get, update, list, iterate, replaceClientLink, delete', async () => {
    listing = await lb.listings.create({ address: '  1 Harbour Road ', beds: 3, status: 'active' });
    assert.match(listing.id, /^lst_/);
    assert.equal(listing.address, '1 Harbour Road');
    assert.equal(listing.lastResponse.status, 201);
    assert.match(listing.lastResponse.requestId ?? '', /.+/);
    assert.ok(!Object.keys(listing).includes('lastResponse'), 'lastResponse is not enumerable');

    const got = await lb.listings.get(listing.id);
    assert.deepEqual(got, listing);

    const updated = await lb.listings.update(listing.id, { description: 'Sea view', beds: null });
    assert.equal(updated.description, 'Sea view');
    assert.equal(updated.beds, null);
    const tour = { url: 'https://youtu.be/dQw4w9WgXcQ', label: 'Film', unbranded: true };
    assert.deepEqual((await lb.listings.update(listing.id, { tours: [tour] })).tours, [tour]);
    assert.deepEqual((await lb.listings.update(listing.id, { tours: [] })).tours, []);

    const page = await lb.listings.list({ status: 'active', limit: 5 });
    assert.deepEqual(
      page.data.map((g) => g.id),
      [listing.id],
    );
    assertPagination(page.pagination, { page: 1, limit: 5, total: 1 });
    const all: string[] = [];
    for await (const g of lb.listings.iterate({ status: 'active' })) all.push(g.id);
    assert.deepEqual(all, [listing.id]);

    const other = await lb.listings.create({ address: '2 Quay Street' });
    await lb.listings.delete(other.id);
    await assert.rejects(lb.listings.get(other.id), NotFoundError);
  });

  test('clients: create, get, update, list, iterate, assign, listings, notify, unassign, delete; notifications', async () => {
    const client = await lb.clients.create({ name: 'Ada', email: 'ada@example.test' });
    assert.match(client.id, /^cli_/);
    assert.deepEqual(client.listings, []);
    assert.equal((await lb.clients.update(client.id, { phone: '555' })).phone, '555');
    assert.equal((await lb.clients.get(client.id)).email, 'ada@example.test');
    assert.deepEqual(
      (await lb.clients.list({ search: 'ada' })).data.map((c) => c.id),
      [client.id],
    );
    const seen: string[] = [];
    for await (const c of lb.clients.iterate()) seen.push(c.id);
    assert.deepEqual(seen, [client.id]);

    const assigned = await lb.clients.assign(client.id, listing.id, { notify: false });
    assert.equal(assigned.client_id, client.id);
    assert.equal((await lb.notifications.list()).pagination.total, 0, 'notify: false records no email');
    const linkBefore = assigned.client_link?.url;
    const replaced = await lb.listings.replaceClientLink(listing.id);
    assert.notEqual(replaced.client_link?.url, linkBefore);
    const controlled = await lb.listings.updateClientLink(listing.id, {
      expires_at: '2099-01-01T00:00:00.000Z',
      password: 'a client password',
      downloads_enabled: false,
    });
    assert.deepEqual(
      {
        expires_at: controlled.client_link?.expires_at,
        password_protected: controlled.client_link?.password_protected,
        downloads_enabled: controlled.client_link?.downloads_enabled,
      },
      { expires_at: '2099-01-01T00:00:00.000Z', password_protected: true, downloads_enabled: false },
    );
    const picked = await lb.listings.favorites(listing.id);
    assert.deepEqual(picked.media_ids, []);
    assert.equal(picked.submitted_at, null);

    // docs/api.md §28: a share link, through every operation of its own.
    const share = await lb.listings.createShareLink(listing.id, {
      label: 'Agent team',
      selection_max: 3,
    });
    assert.equal(share.lastResponse.status, 201);
    assert.match(share.id, /^shl_/);
    assert.equal((await lb.listings.getShareLink(listing.id, share.id)).label, 'Agent team');
    assert.deepEqual(
      (await lb.listings.listShareLinks(listing.id, { limit: 10 })).data.map((l) => l.id),
      [share.id],
    );
    const renamed = await lb.listings.updateShareLink(listing.id, share.id, { label: 'Sellers', selection_min: 1 });
    assert.deepEqual({ l: renamed.label, min: renamed.selection_min }, { l: 'Sellers', min: 1 });
    const rotated = await lb.listings.rotateShareLink(listing.id, share.id);
    assert.notEqual(rotated.url, share.url);
    // Without an email there is nobody to send it to (409); the clients' test counts the emails.
    await assert.rejects(lb.listings.notifyShareLink(listing.id, share.id), ConflictError);
    const chosen = await lb.listings.shareLinkFavorites(listing.id, share.id);
    assert.deepEqual({ m: chosen.media_ids, c: chosen.comments }, { m: [], c: [] });
    assert.equal((await lb.listings.deleteShareLink(listing.id, share.id)).status, 204);

    // docs/api.md §25: publish (two public URLs), unpublish (204), publish again (new URLs).
    assert.equal(listing.property_page, null);
    const published = await lb.listings.publishPropertyPage(listing.id);
    assert.equal(published.lastResponse.status, 200);
    assert.match(published.property_page?.url ?? '', /\/p\/[A-Za-z0-9_-]{32}$/);
    assert.match(published.property_page?.unbranded_url ?? '', /\/p\/[A-Za-z0-9_-]{32}$/);
    assert.equal(published.property_page?.views, 0);
    const page = await fetch(published.property_page?.url ?? '');
    assert.equal(page.status, 200);
    const unpublished = await lb.listings.unpublishPropertyPage(listing.id);
    assert.equal(unpublished.status, 204);
    assert.equal((await fetch(published.property_page?.url ?? '')).status, 404);
    assert.equal((await lb.listings.get(listing.id)).property_page, null);
    const again = await lb.listings.publishPropertyPage(listing.id);
    assert.notEqual(again.property_page?.url, published.property_page?.url);
    const draft = await lb.listings.create({ address: '2 Draft Lane' });
    await assert.rejects(lb.listings.publishPropertyPage(draft.id), ConflictError);
    await lb.listings.delete(draft.id);

    const theirs = await lb.clients.listings(client.id);
    assert.deepEqual(
      theirs.data.map((g) => g.id),
      [listing.id],
    );
    assert.equal(theirs.pagination.next_cursor, null);
    const paged = await lb.clients.listings(client.id, { limit: 1 });
    assert.deepEqual(
      paged.data.map((g) => g.id),
      [listing.id],
    );
    assert.equal(paged.pagination.total, 1);

    const notification = await lb.clients.notify(client.id, listing.id);
    assert.equal(notification.lastResponse.status, 202);
    assert.equal(notification.to, 'ada@example.test');
    assert.equal((await lb.notifications.get(notification.id)).id, notification.id);
    assert.deepEqual(
      (await lb.notifications.list({ limit: 10 })).data.map((n) => n.id),
      [notification.id],
    );
    const notes: string[] = [];
    for await (const n of lb.notifications.iterate()) notes.push(n.id);
    assert.deepEqual(notes, [notification.id]);

    const before = (await lb.clients.get(client.id)).portal_url;
    const newPortal = await lb.clients.rotatePortal(client.id);
    assert.equal(newPortal.lastResponse.status, 200);
    assert.match(newPortal.portal_url, /\/c\/[A-Za-z0-9_-]{32}$/);
    assert.notEqual(newPortal.portal_url, before);

    await lb.clients.unassign(client.id, listing.id);
    assert.equal((await lb.listings.get(listing.id)).client_id, null);
    await assert.rejects(lb.clients.unassign(client.id, listing.id), NotFoundError);
    await lb.clients.delete(client.id);
    await assert.rejects(lb.clients.get(client.id), NotFoundError);
  });

  test('media: upload from a path-less Blob, bytes, a web stream and a Node stream; list, get, update, reorder, download, variant, delete', async () => {
    const photo = new Uint8Array(await jpeg(40, 30));
    const doc = new Uint8Array(pdf('client'));
    const uploaded = await lb.media.upload(listing.id, [
      new File([photo], 'front.jpg', { type: 'image/jpeg' }),
      { data: doc, filename: 'plan.pdf' },
    ]);
    assert.equal(uploaded.lastResponse.status, 201);
    assert.deepEqual(
      uploaded.data.map((m) => [m.filename, m.kind, m.sha256, m.position]),
      [
        ['front.jpg', 'photo', sha256(photo), 1],
        ['plan.pdf', 'document', sha256(doc), 2],
      ],
    );
    const streamed = await lb.media.upload(listing.id, [
      { data: new Blob([doc]).stream(), filename: 'web.pdf' },
      { data: Readable.from([Buffer.from(doc)]), filename: 'node.pdf' },
    ]);
    assert.deepEqual(
      streamed.data.map((m) => [m.filename, m.sha256]),
      [
        ['web.pdf', sha256(doc)],
        ['node.pdf', sha256(doc)],
      ],
    );
    const [front, plan] = uploaded.data as [(typeof uploaded.data)[0], (typeof uploaded.data)[0]];

    const list = await lb.media.list(listing.id);
    assert.deepEqual(
      list.data.map((m) => m.filename),
      ['front.jpg', 'plan.pdf', 'web.pdf', 'node.pdf'],
    );
    assert.equal((await lb.media.get(listing.id, front.id)).width, 40);
    const captioned = await lb.media.update(listing.id, plan.id, { caption: 'Floor plan', hidden: true });
    assert.deepEqual([captioned.caption, captioned.hidden], ['Floor plan', true]);

    const order = list.data.map((m) => m.id).reverse();
    const reordered = await lb.media.reorder(listing.id, order);
    assert.deepEqual(
      reordered.data.map((m) => m.id),
      order,
    );
    await assert.rejects(lb.media.reorder(listing.id, order.slice(1)), ValidationError);

    // docs/api.md §30: the visible photos (the plan is a document, and hidden), a reason for each.
    const suggested = await lb.media.suggestedOrder(listing.id);
    assert.deepEqual(
      [...suggested.media_ids].sort(),
      list.data
        .filter((m) => m.kind === 'photo' && !m.hidden)
        .map((m) => m.id)
        .sort(),
    );
    assert.deepEqual(
      suggested.reasons.map((r) => r.media_id),
      suggested.media_ids,
    );

    const content = await lb.media.download(listing.id, front.id);
    assert.equal(content.status, 200);
    assert.equal(sha256(new Uint8Array(await content.arrayBuffer())), sha256(photo));
    const part = await lb.media.download(listing.id, front.id, { range: 'bytes=0-9' });
    assert.equal(part.status, 206);
    assert.equal((await part.arrayBuffer()).byteLength, 10);
    const etag = content.headers.get('etag');
    assert.ok(etag !== null);
    const unchanged = await lb.media.download(listing.id, front.id, { ifNoneMatch: etag });
    assert.equal(unchanged.status, 304);

    // Variants are made in the background: until then the variant is not found.
    await assert.rejects(lb.media.downloadVariant(listing.id, front.id, 'thumb'), NotFoundError);

    await lb.media.delete(listing.id, plan.id);
    await assert.rejects(lb.media.get(listing.id, plan.id), NotFoundError);
  });

  test('webhook endpoints and events: create, get, update, list, iterate, test, deliveries, retry, rotateSecret, delete', async () => {
    const endpoint = await lb.webhookEndpoints.create({ url: receiver.url(), events: ['listing.updated'] });
    assert.match(endpoint.secret, /^whsec_/);
    assert.equal((await lb.webhookEndpoints.get(endpoint.id)).url, receiver.url());
    const updated = await lb.webhookEndpoints.update(endpoint.id, { description: 'CRM' });
    assert.equal(updated.description, 'CRM');
    assert.deepEqual(
      (await lb.webhookEndpoints.list()).data.map((e) => e.id),
      [endpoint.id],
    );
    const ids: string[] = [];
    for await (const e of lb.webhookEndpoints.iterate()) ids.push(e.id);
    assert.deepEqual(ids, [endpoint.id]);

    const testDelivery = await lb.webhookEndpoints.test(endpoint.id);
    assert.equal(testDelivery.lastResponse.status, 202);
    assert.equal(testDelivery.event_type, 'webhook.test');
    await runner.drain();
    const deliveries = await lb.webhookEndpoints.deliveries(endpoint.id, { status: 'succeeded' });
    assert.deepEqual(
      deliveries.data.map((d) => d.id),
      [testDelivery.id],
    );
    const walked: string[] = [];
    for await (const d of lb.webhookEndpoints.iterateDeliveries(endpoint.id)) walked.push(d.id);
    assert.deepEqual(walked, [testDelivery.id]);
    const retried = await lb.webhookEndpoints.retry(endpoint.id, testDelivery.id);
    assert.equal(retried.id, testDelivery.id);

    const rotated = await lb.webhookEndpoints.rotateSecret(endpoint.id);
    assert.notEqual(rotated.secret, endpoint.secret);

    const events = await lb.events.list({ type: 'listing.created' });
    assert.ok(events.data.length >= 1);
    const first = events.data[0]!;
    assert.equal((await lb.events.get(first.id)).type, 'listing.created');
    let count = 0;
    for await (const e of lb.events.iterate({ type: 'listing.created' })) {
      assert.equal(e.type, 'listing.created');
      count += 1;
    }
    assert.equal(count, events.pagination.total);

    await lb.webhookEndpoints.delete(endpoint.id);
    await assert.rejects(lb.webhookEndpoints.get(endpoint.id), NotFoundError);
  });

  test('the OpenAPI document, and conditional GETs with the ETag the server sent', async () => {
    const doc = await lb.openapi();
    assert.equal(doc.openapi, '3.1.0');
    const got = await lb.listings.get(listing.id);
    const etag = got.lastResponse.etag;
    assert.ok(etag !== null, 'every JSON GET carries an ETag (docs/api.md §17)');
    const again = await lb.listings.get(listing.id, { ifNoneMatch: etag });
    assert.ok(again instanceof NotModified);
    assert.equal(again.etag, etag);
  });

  test('account: the studio and the key in use', async () => {
    const account = await lb.account.get();
    assert.equal(account.id, s.account.accountId);
    assert.equal(account.livemode, true);
    assert.equal(account.key.scope, 'full');
    assert.equal(account.key.id, s.account.keyId);
  });

  test('testData.delete: a test key empties its test mode; a live key is refused', async () => {
    const test = await testModeOf(s.ctx, s.account);
    const sandbox = s.client({ apiKey: test.key });
    assert.equal((await sandbox.account.get()).livemode, false);
    const gallery = await sandbox.listings.create({ address: 'Sandbox Road' });
    const kept = await lb.listings.create({ address: 'Kept Road' });
    await assert.rejects(lb.testData.delete(), PermissionError);
    assert.equal('deleteTestData' in sandbox.account, false, 'the deletion is lb.testData.delete() only');
    const deleted = await sandbox.testData.delete();
    assert.deepEqual(deleted, { deleted: true });
    assert.equal(deleted.lastResponse.status, 202);
    await assert.rejects(sandbox.listings.get(gallery.id), NotFoundError);
    assert.equal((await lb.listings.get(kept.id)).address, 'Kept Road');
  });

  test('products and invoices: create, get, update, list, iterate, issue, payments, pdf, void, delete', async () => {
    await productsAndInvoices(lb);
  });

  test('MLS profiles and a gallery’s compliance: create, get, update, list, iterate, report, delete', async () => {
    const made = await lb.mlsProfiles.create({ name: 'Bright MLS', max_photos: 25 });
    assert.equal(made.lastResponse.status, 201);
    assert.deepEqual([made.max_long_edge, made.max_photos, made.forbid_text], [2048, 25, true]);
    assert.equal((await lb.mlsProfiles.get(made.id)).name, 'Bright MLS');
    const changed = await lb.mlsProfiles.update(made.id, { forbid_people: false });
    assert.equal(changed.forbid_people, false);
    assert.ok((await lb.mlsProfiles.list({ limit: 10 })).data.some((p) => p.id === made.id));
    const all: string[] = [];
    for await (const p of lb.mlsProfiles.iterate({ limit: 1 })) all.push(p.id);
    assert.ok(all.includes(made.id));
    const gallery = await lb.listings.create({ address: '31 Compliance Court' });
    await assert.rejects(lb.listings.getCompliance(gallery.id), ValidationError);
    const named = await lb.listings.getCompliance(gallery.id, { profile_id: made.id });
    assert.deepEqual([named.profile_id, named.status, named.photos], [made.id, 'pass', []]);
    await lb.listings.update(gallery.id, { mls_profile_id: made.id });
    assert.equal((await lb.listings.getCompliance(gallery.id)).profile_id, made.id);
    assert.equal((await lb.mlsProfiles.delete(made.id)).status, 204);
    assert.equal((await lb.listings.get(gallery.id)).mls_profile_id, null);
  });

  test('the listing kit: its status, a build refused for a draft, an item not made (docs/api.md §32)', async () => {
    const gallery = await lb.listings.create({ address: '32 Kit Lane' });
    const kit = await lb.listings.getKit(gallery.id);
    assert.deepEqual([kit.status, kit.built_at, kit.mls_zip], ['none', null, null]);
    await assert.rejects(lb.listings.buildKit(gallery.id), ConflictError);
    await assert.rejects(lb.listings.downloadKitItem(gallery.id, 'flyer'), NotFoundError);
  });

  test('the RESO media feed: a page, and every record across pages by @odata.nextLink (docs/api.md §33)', async () => {
    const gallery = await lb.listings.create({ address: '33 Feed Street', status: 'active', mls_number: 'TS-33' });
    const photos = await lb.media.upload(
      gallery.id,
      await Promise.all(
        ['front', 'hall', 'garden'].map(async (name, i) => ({
          data: new Uint8Array(await jpeg(40 + i, 30)),
          filename: `${name}.jpg`,
        })),
      ),
    );
    await makeVariantsNow(s.ctx);
    const $filter = "ResourceRecordKey eq 'TS-33'";
    const page = await lb.reso.media({ $filter, $top: 1 });
    assert.equal(page.value.length, 1);
    assert.match(page['@odata.nextLink'] ?? '', /cursor=/);
    const asked = s.sent.length;
    const all = [];
    for await (const record of lb.reso.iterateMedia({ $filter, $top: 1 })) all.push(record);
    // One request a page, three pages (the last without a next link).
    assert.equal(s.sent.slice(asked).filter((r) => r === 'GET /v1/reso/Media').length, 3);
    assert.deepEqual(all.map((r) => r.MediaKey).sort(), photos.data.map((m) => m.id).sort());
    assert.deepEqual(
      new Set(all.map((r) => [r.ResourceRecordKey, r.ResourceRecordID].join())),
      new Set([`TS-33,${gallery.id}`]),
    );
    const stamps = all.map((r) => r.MediaModificationTimestamp);
    assert.deepEqual([...stamps].sort(), stamps, 'oldest change first');
    const rest = [];
    for await (const record of lb.reso.iterateMedia({
      $filter: `${$filter} and MediaModificationTimestamp gt ${stamps[0]}`,
    }))
      rest.push(record.MediaKey);
    assert.deepEqual(
      rest,
      all.slice(1).map((r) => r.MediaKey),
    );
  });

  test('the requests sent cover every /v1 operation of the OpenAPI document', async () => {
    const doc = (await lb.openapi()) as Record<string, unknown>;
    const missing = documentOperations(doc)
      .filter((op) => op.path.startsWith('/v1/') && !ELSEWHERE(op))
      .filter((op) => !s.sent.some((sent) => matches(op, sent)))
      .map((op) => `${op.id} (${op.method} ${op.path})`);
    assert.deepEqual(missing, [], 'operations the client never called');
  });
});
