// Over 400 lines on purpose: a link followed through every state change of its gallery, each test building on the same life cycle.
// The client link through every state change of its gallery (docs/api.md §14), over HTTP: assignment
// gives one, and unassignment, reassignment, client deletion, gallery deletion and rotation each
// stop it (the same 404 page as a token never issued); ?notify=false and .../notify; and the
// counters (views, downloads, first/last_viewed_at) for exactly the requests the contract counts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg, mp4, pdf } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { fakeClock, newClient, newGallery, notificationRows } from '../../test/support/notification-helpers.ts';
import {
  assertGalleryHeaders,
  assertGone,
  clientLink,
  linkedGallery,
  linkPath,
  visit,
  type ClientLinkJson,
  type LinkedGallery,
} from '../../test/support/gallery.ts';

const PUBLIC_URL = 'http://127.0.0.1:3000';

describe('client links over HTTP', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  const clock = fakeClock(Date.parse('2026-05-01T10:00:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL }, { clock: clock.clock });
    owner = await createAccount(ctx, 'Harbour Light Studio');
  });
  after(() => ctx.close());

  /** Every URL a link serves for a gallery with one photo and one document. */
  async function withFiles(linked: LinkedGallery): Promise<{ urls: string[]; photo: MediaJson; doc: MediaJson }> {
    const [photo, doc] = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'porch.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
      { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf('plan') },
    ]);
    await makeVariantsNow(ctx);
    const urls = [
      linked.path,
      `${linked.path}/thumb/${photo!.id}`,
      `${linked.path}/large/${photo!.id}`,
      `${linked.path}/cover.jpg`,
      `${linked.path}/media/${photo!.id}/download`,
      `${linked.path}/media/${doc!.id}/download`,
      `${linked.path}/download.zip`,
    ];
    for (const url of urls) {
      const res = await visit(ctx, url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
    }
    return { urls, photo: photo!, doc: doc! };
  }

  async function assertAllGone(urls: string[], label: string): Promise<void> {
    for (const url of urls) await assertGone(ctx, url, label);
  }

  test('assignment gives a link: client_link in the gallery object, a token of at least 128 random bits', async () => {
    const listing = await newGallery(ctx, owner);
    const unassigned = await call(ctx, 'GET', `/v1/listings/${listing.id}`, { key: owner.key });
    assert.equal(unassigned.json<{ client_link: unknown }>().client_link, null);

    const client = await newClient(ctx, owner);
    const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${listing.id}`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    const link = res.json<{ client_link: ClientLinkJson }>().client_link;
    assert.deepEqual(Object.keys(link).sort(), [
      'created_at',
      'downloads',
      'downloads_enabled',
      'expires_at',
      'favorites_count',
      'first_viewed_at',
      'last_viewed_at',
      'password_protected',
      'selection_max',
      'selection_min',
      'url',
      'views',
    ]);
    assert.deepEqual(
      { views: link.views, downloads: link.downloads, first: link.first_viewed_at, last: link.last_viewed_at },
      { views: 0, downloads: 0, first: null, last: null },
    );
    assert.equal(link.created_at, new Date(clock.now()).toISOString());
    const match = /^http:\/\/127\.0\.0\.1:3000\/g\/([A-Za-z0-9_-]+)$/.exec(link.url);
    assert.ok(match, link.url);
    // base64url carries 6 bits a character: 22 characters are at least 128 bits.
    assert.ok(match[1]!.length * 6 >= 128, `token of ${match[1]!.length} characters`);
    assert.deepEqual(await clientLink(ctx, owner.key, listing.id), link);

    const page = await visit(ctx, linkPath(link));
    assert.equal(page.statusCode, 200);
    assertGalleryHeaders(page, 'the page');

    // Tokens are not derived from anything guessable: a hundred are all different.
    const tokens = new Set<string>();
    for (let i = 0; i < 100; i++) tokens.add((await linkedGallery(ctx, owner)).path);
    assert.equal(tokens.size, 100);
  });

  test('unassigning stops the link and everything under it', async () => {
    const linked = await linkedGallery(ctx, owner);
    const { urls } = await withFiles(linked);
    const res = await call(ctx, 'DELETE', `/v1/clients/${linked.clientId}/listings/${linked.listingId}`, {
      key: owner.key,
    });
    assert.equal(res.statusCode, 204);
    assert.equal(await clientLink(ctx, owner.key, linked.listingId), null);
    await assertAllGone(urls, 'after unassignment');

    // Assigning again (the same client) gives a new link: the old one stays dead.
    const again = await call(ctx, 'POST', `/v1/clients/${linked.clientId}/listings/${linked.listingId}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    assert.equal(again.statusCode, 200);
    const fresh = linkPath(again.json<{ client_link: ClientLinkJson }>().client_link);
    assert.notEqual(fresh, linked.path);
    assert.equal((await visit(ctx, fresh)).statusCode, 200);
    await assertAllGone(urls, 'after assigning again');
  });

  test('reassigning gives the new client a new link and stops the old one', async () => {
    const linked = await linkedGallery(ctx, owner);
    const { urls } = await withFiles(linked);
    const other = await newClient(ctx, owner);
    const res = await call(ctx, 'POST', `/v1/clients/${other.id}/listings/${linked.listingId}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = res.json<{ client_link: ClientLinkJson }>().client_link;
    assert.notEqual(linkPath(fresh), linked.path);
    assert.equal(fresh.views, 0, 'the new client starts from nothing');
    assert.equal(fresh.downloads, 0);
    await assertAllGone(urls, 'after reassignment');
    assert.equal((await visit(ctx, linkPath(fresh))).statusCode, 200);

    // Assigning to the client it already has changes nothing: the link stays.
    const same = await call(ctx, 'POST', `/v1/clients/${other.id}/listings/${linked.listingId}`, {
      key: owner.key,
    });
    assert.equal(same.statusCode, 200);
    assert.equal(linkPath(same.json<{ client_link: ClientLinkJson }>().client_link), linkPath(fresh));
    assert.equal((await visit(ctx, linkPath(fresh))).statusCode, 200);
  });

  test('deleting the client stops their links; deleting the gallery stops its link', async () => {
    const client = await newClient(ctx, owner);
    const first = await linkedGallery(ctx, owner);
    const second = await linkedGallery(ctx, owner);
    // Both galleries to one client.
    for (const linked of [first, second]) {
      const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${linked.listingId}`, {
        key: owner.key,
        query: { notify: 'false' },
      });
      assert.equal(res.statusCode, 200);
      linked.path = linkPath(res.json<{ client_link: ClientLinkJson }>().client_link);
    }
    const firstUrls = (await withFiles(first)).urls;
    const secondUrls = [second.path, `${second.path}/download.zip`];
    assert.equal((await call(ctx, 'DELETE', `/v1/clients/${client.id}`, { key: owner.key })).statusCode, 204);
    assert.equal(await clientLink(ctx, owner.key, first.listingId), null);
    await assertAllGone([...firstUrls, ...secondUrls], 'after the client is deleted');

    const doomed = await linkedGallery(ctx, owner);
    const doomedUrls = (await withFiles(doomed)).urls;
    assert.equal((await call(ctx, 'DELETE', `/v1/listings/${doomed.listingId}`, { key: owner.key })).statusCode, 204);
    await assertAllGone(doomedUrls, 'after the gallery is deleted');
  });

  test('POST /v1/listings/:id/client_link replaces the token: the old link stops at once, the counters stay', async () => {
    const linked = await linkedGallery(ctx, owner);
    const { urls, photo } = await withFiles(linked);
    // withFiles opened the page once and downloaded two originals and the ZIP.
    await visit(ctx, linked.path);
    const before = await clientLink(ctx, owner.key, linked.listingId);
    assert.equal(before?.views, 2);
    assert.equal(before?.downloads, 3);

    clock.advance(60_000);
    const res = await call(ctx, 'POST', `/v1/listings/${linked.listingId}/client_link`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ id: string; client_id: string; client_link: ClientLinkJson }>();
    assert.equal(body.id, linked.listingId);
    assert.equal(body.client_id, linked.clientId);
    const rotated = body.client_link;
    assert.notEqual(rotated.url, before?.url);
    assert.deepEqual(
      { ...rotated, url: before?.url },
      before,
      'only the URL changes: counters, view times and created_at are kept',
    );
    await assertAllGone(urls, 'after rotation');
    const fresh = linkPath(rotated);
    assert.equal((await visit(ctx, `${fresh}/media/${photo.id}/download`)).statusCode, 200);
    assert.equal((await clientLink(ctx, owner.key, linked.listingId))?.downloads, 4, 'counting goes on');

    // Rotating twice: only the newest works.
    const twice = await call(ctx, 'POST', `/v1/listings/${linked.listingId}/client_link`, { key: owner.key });
    assert.equal(twice.statusCode, 200);
    await assertGone(ctx, fresh, 'after a second rotation');
    assert.equal(
      (await visit(ctx, linkPath(twice.json<{ client_link: ClientLinkJson }>().client_link))).statusCode,
      200,
    );
  });

  test('replacing the token of a gallery without a client is 409; of no gallery, 404', async () => {
    const listing = await newGallery(ctx, owner);
    expectError(await call(ctx, 'POST', `/v1/listings/${listing.id}/client_link`, { key: owner.key }), 409, 'conflict');
    assert.equal(await clientLink(ctx, owner.key, listing.id), null);
    const linked = await linkedGallery(ctx, owner);
    await call(ctx, 'DELETE', `/v1/clients/${linked.clientId}/listings/${linked.listingId}`, { key: owner.key });
    expectError(
      await call(ctx, 'POST', `/v1/listings/${linked.listingId}/client_link`, { key: owner.key }),
      409,
      'conflict',
    );
    expectError(
      await call(ctx, 'POST', `/v1/listings/lst_${'x'.repeat(20)}/client_link`, { key: owner.key }),
      404,
      'not_found',
    );
  });

  test('?notify=false assigns without an email; a plain assignment records one', async () => {
    const quiet = await linkedGallery(ctx, owner);
    assert.deepEqual(await notificationRows(ctx, quiet.listingId), []);
    assert.notEqual(await clientLink(ctx, owner.key, quiet.listingId), null);

    const listing = await newGallery(ctx, owner);
    const client = await newClient(ctx, owner);
    const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${listing.id}`, {
      key: owner.key,
      query: { notify: 'true' },
    });
    assert.equal(res.statusCode, 200);
    const rows = await notificationRows(ctx, listing.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.client_id, client.id);
  });

  test('POST .../notify sends again (202, a new notification); 404 unless assigned to that client', async () => {
    const linked = await linkedGallery(ctx, owner);
    const url = `/v1/clients/${linked.clientId}/listings/${linked.listingId}/notify`;
    const res = await call(ctx, 'POST', url, { key: owner.key });
    assert.equal(res.statusCode, 202, res.body);
    const notification = res.json<{ id: string; client_id: string; listing_id: string; status: string }>();
    assert.equal(notification.client_id, linked.clientId);
    assert.equal(notification.listing_id, linked.listingId);
    assert.equal(notification.status, 'queued');
    const second = await call(ctx, 'POST', url, { key: owner.key });
    assert.equal(second.statusCode, 202);
    assert.notEqual(second.json<{ id: string }>().id, notification.id);
    assert.deepEqual(
      (await notificationRows(ctx, linked.listingId)).map((r) => r.id).sort(),
      [notification.id, second.json<{ id: string }>().id].sort(),
    );
    assert.equal((await visit(ctx, linked.path)).statusCode, 200, 'sending again keeps the link');

    const stranger = await newClient(ctx, owner);
    expectError(
      await call(ctx, 'POST', `/v1/clients/${stranger.id}/listings/${linked.listingId}/notify`, { key: owner.key }),
      404,
      'not_found',
    );
    await call(ctx, 'DELETE', `/v1/clients/${linked.clientId}/listings/${linked.listingId}`, { key: owner.key });
    expectError(await call(ctx, 'POST', url, { key: owner.key }), 404, 'not_found');
    assert.equal((await notificationRows(ctx, linked.listingId)).length, 2, 'nothing recorded by a refusal');
  });
});

describe('client link counters', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  const clock = fakeClock(Date.parse('2026-06-01T08:00:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL }, { clock: clock.clock });
    owner = await createAccount(ctx);
  });
  after(() => ctx.close());

  const counters = async (listingId: string) => {
    const link = await clientLink(ctx, owner.key, listingId);
    assert.ok(link !== null);
    return link;
  };

  test('views count page loads (GET), with the first and the last time; HEAD and files do not', async () => {
    const linked = await linkedGallery(ctx, owner);
    const [photo] = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
    ]);
    await makeVariantsNow(ctx);

    const t1 = new Date(clock.now()).toISOString();
    assert.equal((await visit(ctx, linked.path)).statusCode, 200);
    assert.deepEqual(
      (({ views, first_viewed_at, last_viewed_at }) => ({ views, first_viewed_at, last_viewed_at }))(
        await counters(linked.listingId),
      ),
      { views: 1, first_viewed_at: t1, last_viewed_at: t1 },
    );

    clock.advance(3_600_000);
    const t2 = new Date(clock.now()).toISOString();
    assert.equal((await visit(ctx, linked.path)).statusCode, 200);
    assert.equal((await visit(ctx, linked.path, { method: 'HEAD' })).statusCode, 200);
    for (const part of ['thumb', 'large']) {
      assert.equal((await visit(ctx, `${linked.path}/${part}/${photo!.id}`)).statusCode, 200);
    }
    assert.equal((await visit(ctx, `${linked.path}/cover.jpg`)).statusCode, 200);
    const after2 = await counters(linked.listingId);
    assert.deepEqual(
      { views: after2.views, first: after2.first_viewed_at, last: after2.last_viewed_at, downloads: after2.downloads },
      { views: 2, first: t1, last: t2, downloads: 0 },
    );

    // A 404 under a stopped link counts nothing anywhere.
    await assertGone(ctx, `/g/${'B'.repeat(32)}`, 'an unknown token');
    assert.equal((await counters(linked.listingId)).views, 2);
  });

  test('downloads count responses from byte 0 of an original or the ZIP; HEAD, continuations and 304 do not', async () => {
    const linked = await linkedGallery(ctx, owner);
    const data = await jpeg(200, 150);
    const [photo, video] = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data },
      { filename: 'b.pdf', contentType: 'application/pdf', data: pdf('b') },
    ]);
    assert.equal(video!.kind, 'document');
    const original = `${linked.path}/media/${photo!.id}/download`;
    const zip = `${linked.path}/download.zip`;
    const head = await visit(ctx, zip, { method: 'HEAD' });
    const zipEtag = String(head.headers.etag);
    const cases: {
      label: string;
      url: string;
      headers?: Record<string, string>;
      head?: boolean;
      status: number;
      counts: boolean;
    }[] = [
      { label: 'the original, whole', url: original, status: 200, counts: true },
      { label: 'the original from byte 0', url: original, headers: { range: 'bytes=0-99' }, status: 206, counts: true },
      {
        label: 'the original, open range from 0',
        url: original,
        headers: { range: 'bytes=0-' },
        status: 206,
        counts: true,
      },
      {
        label: 'a continuation of the original',
        url: original,
        headers: { range: 'bytes=100-' },
        status: 206,
        counts: false,
      },
      {
        label: 'the last bytes of the original',
        url: original,
        headers: { range: 'bytes=-10' },
        status: 206,
        counts: false,
      },
      { label: 'HEAD of the original', url: original, head: true, status: 200, counts: false },
      {
        label: 'the original, not modified',
        url: original,
        headers: { 'if-none-match': `"${photo!.sha256}"` },
        status: 304,
        counts: false,
      },
      {
        label: 'a continuation whose If-Range no longer matches: the whole, from 0',
        url: original,
        headers: { range: 'bytes=100-', 'if-range': '"stale"' },
        status: 200,
        counts: true,
      },
      { label: 'the ZIP, whole', url: zip, status: 200, counts: true },
      { label: 'the ZIP from byte 0', url: zip, headers: { range: 'bytes=0-1023' }, status: 206, counts: true },
      { label: 'a continuation of the ZIP', url: zip, headers: { range: 'bytes=1024-' }, status: 206, counts: false },
      {
        label: 'a continuation of the ZIP with a matching If-Range',
        url: zip,
        headers: { range: 'bytes=1024-', 'if-range': zipEtag },
        status: 206,
        counts: false,
      },
      {
        label: 'a ZIP continuation whose If-Range no longer matches: the whole',
        url: zip,
        headers: { range: 'bytes=1024-', 'if-range': '"lightbox-old"' },
        status: 200,
        counts: true,
      },
      { label: 'HEAD of the ZIP', url: zip, head: true, status: 200, counts: false },
      { label: 'the ZIP, not modified', url: zip, headers: { 'if-none-match': zipEtag }, status: 304, counts: false },
    ];
    let expected = 0;
    for (const c of cases) {
      const res = await visit(ctx, c.url, { method: c.head === true ? 'HEAD' : 'GET', headers: c.headers ?? {} });
      assert.equal(res.statusCode, c.status, c.label);
      if (c.counts) expected += 1;
      assert.equal((await counters(linked.listingId)).downloads, expected, c.label);
    }
    assert.equal((await counters(linked.listingId)).views, 0, 'downloads are not views');
  });

  test('videos played in the page are not downloads', async () => {
    const linked = await linkedGallery(ctx, owner);
    const [video] = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'tour.mp4', contentType: 'video/mp4', data: mp4() },
    ]);
    assert.equal(video!.kind, 'video');
    assert.equal((await visit(ctx, `${linked.path}/media/${video!.id}/play`)).statusCode, 200);
    assert.equal(
      (await visit(ctx, `${linked.path}/media/${video!.id}/play`, { headers: { range: 'bytes=0-' } })).statusCode,
      206,
    );
    assert.equal((await counters(linked.listingId)).downloads, 0);
    assert.equal((await visit(ctx, `${linked.path}/media/${video!.id}/download`)).statusCode, 200);
    assert.equal((await counters(linked.listingId)).downloads, 1);
  });
});
