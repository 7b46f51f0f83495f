// The favorites of docs/api.md §25 over HTTP: the client marks and unmarks photos with plain forms (no
// JavaScript), sends the selection with a note and sends it again; GET /v1/listings/:id/favorites,
// favorites_count and client_link.selection_submitted report it; the forms pass the link's gate.
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
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { newGallery } from '../../test/support/notification-helpers.ts';
import { clientLink, linkedGallery, visit } from '../../test/support/gallery.ts';

interface FavoritesJson {
  media_ids: string[];
  note: string | null;
  submitted_at: string | null;
  updated_at: string | null;
}

describe('favorites', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL: 'http://127.0.0.1:3000' });
    owner = await createAccount(ctx, 'Harbour Light Studio');
  });
  after(() => ctx.close());

  const form = (url: string, fields: Record<string, string>) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: '127.0.0.1',
    });
  const favorites = async (listingId: string, key = owner.key) => {
    const res = await call(ctx, 'GET', `/v1/listings/${listingId}/favorites`, { key });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<FavoritesJson>();
  };

  async function galleryWithPhotos() {
    const linked = await linkedGallery(ctx, owner);
    const photos = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
      { filename: 'b.jpg', contentType: 'image/jpeg', data: await jpeg(30, 40) },
      { filename: 'c.jpg', contentType: 'image/jpeg', data: await jpeg(50, 30) },
    ]);
    await makeVariantsNow(ctx);
    return { ...linked, ids: photos.map((p) => p.id) };
  }

  test('mark and unmark without JavaScript; the API lists them in position order with favorites_count', async () => {
    const g = await galleryWithPhotos();
    assert.deepEqual(await favorites(g.listingId), {
      media_ids: [],
      note: null,
      comments: [],
      submitted_at: null,
      updated_at: null,
    });
    const page = await visit(ctx, g.path);
    for (const id of g.ids) {
      assert.match(page.body, new RegExp(`action="${g.path}/favorites/${id}"`));
    }
    assert.match(page.body, /aria-pressed="false"/);
    const [a, b, c] = g.ids as [string, string, string];
    for (const id of [c, a, b]) {
      const res = await form(`${g.path}/favorites/${id}`, { on: '1' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `${g.path}#photo-${id}`);
    }
    assert.equal((await form(`${g.path}/favorites/${a}`, { on: '1' })).statusCode, 303, 'marking twice is one');
    assert.equal((await form(`${g.path}/favorites/${b}`, { on: '0' })).statusCode, 303);
    const got = await favorites(g.listingId);
    assert.deepEqual(got.media_ids, [a, c]);
    assert.notEqual(got.updated_at, null);
    assert.equal(got.submitted_at, null);
    assert.equal((await clientLink(ctx, owner.key, g.listingId))?.favorites_count, 2);
    const after = await visit(ctx, g.path);
    assert.equal((after.body.match(/aria-pressed="true"/g) ?? []).length, 2);
    // Another gallery's photo, a missing one: 404 and nothing marked.
    const other = await galleryWithPhotos();
    assert.equal((await form(`${g.path}/favorites/${other.ids[0]!}`, { on: '1' })).statusCode, 404);
    assert.deepEqual((await favorites(g.listingId)).media_ids, [a, c]);
  });

  test("marking or unmarking a photo moves the gallery's updated_at (favorites_count, docs/api.md §19)", async () => {
    const g = await galleryWithPhotos();
    const updatedAt = async () => {
      const res = await call(ctx, 'GET', `/v1/listings/${g.listingId}`, { key: owner.key });
      return res.json<{ updated_at: string }>().updated_at;
    };
    for (const on of ['1', '0']) {
      const before = await updatedAt();
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal((await form(`${g.path}/favorites/${g.ids[0]!}`, { on })).statusCode, 303);
      assert.ok((await updatedAt()) > before, `on=${on}`);
    }
  });

  test('sending the selection records client_link.selection_submitted; it can be changed and sent again', async () => {
    const g = await galleryWithPhotos();
    await form(`${g.path}/favorites/${g.ids[1]!}`, { on: '1' });
    const sent = await form(`${g.path}/favorites`, { note: '  Please retouch the kitchen.  ' });
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `${g.path}?sent=1#favorites`);
    const first = await favorites(g.listingId);
    assert.deepEqual([first.media_ids, first.note], [[g.ids[1]], 'Please retouch the kitchen.']);
    assert.notEqual(first.submitted_at, null);
    assert.match((await visit(ctx, `${g.path}?sent=1`)).body, /Sent to Harbour Light Studio/);

    const events = await call(ctx, 'GET', '/v1/events', {
      key: owner.key,
      query: { type: 'client_link.selection_submitted' },
    });
    assert.equal(events.statusCode, 200, events.body);
    const list = events.json<{
      data: { data: { object: { id: string; client_link: { favorites_count: number } } } }[];
    }>().data;
    const mine = list.filter((e) => e.data.object.id === g.listingId);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.data.object.client_link.favorites_count, 1);

    await form(`${g.path}/favorites/${g.ids[0]!}`, { on: '1' });
    await form(`${g.path}/favorites`, { note: '' });
    const second = await favorites(g.listingId);
    assert.deepEqual([second.media_ids, second.note], [[g.ids[0], g.ids[1]], null]);
    const again = await call(ctx, 'GET', '/v1/events', {
      key: owner.key,
      query: { type: 'client_link.selection_submitted' },
    });
    const both = again.json<{ data: { data: { object: { id: string } } }[] }>().data;
    assert.equal(both.filter((e) => e.data.object.id === g.listingId).length, 2);
    assert.equal((await form(`${g.path}/favorites`, { note: 'x'.repeat(2001) })).statusCode, 400);
  });

  test('a selection sent (and sent again) has one timestamp: updated_at is submitted_at', async () => {
    const g = await galleryWithPhotos();
    for (const [id, note] of [
      [g.ids[0]!, 'first'],
      [g.ids[2]!, 'second'],
    ] as const) {
      await form(`${g.path}/favorites/${id}`, { on: '1' });
      // A moment between the mark and the send, so two timestamps would differ.
      await new Promise((resolve) => setTimeout(resolve, 15));
      assert.equal((await form(`${g.path}/favorites`, { note })).statusCode, 303);
      const sent = await favorites(g.listingId);
      assert.equal(sent.note, note);
      assert.notEqual(sent.submitted_at, null);
      assert.equal(sent.updated_at, sent.submitted_at, note);
    }
  });

  test('favorites pass the gate: a protected or expired link takes no mark and no selection', async () => {
    const g = await galleryWithPhotos();
    await call(ctx, 'PATCH', `/v1/listings/${g.listingId}/client_link`, {
      key: owner.key,
      body: { password: 'the password' },
    });
    assert.equal((await form(`${g.path}/favorites/${g.ids[0]!}`, { on: '1' })).statusCode, 403);
    assert.equal((await form(`${g.path}/favorites`, { note: 'hi' })).statusCode, 403);
    assert.deepEqual(await favorites(g.listingId), {
      media_ids: [],
      note: null,
      comments: [],
      submitted_at: null,
      updated_at: null,
    });
  });

  test('GET favorites: scoped by account, 404 for an unknown gallery, empty for one without a client', async () => {
    const g = await galleryWithPhotos();
    await form(`${g.path}/favorites/${g.ids[0]!}`, { on: '1' });
    const other = await createAccount(ctx, 'Other');
    expectError(await call(ctx, 'GET', `/v1/listings/${g.listingId}/favorites`, { key: other.key }), 404, 'not_found');
    expectError(await call(ctx, 'GET', '/v1/listings/lst_nope/favorites', { key: owner.key }), 404, 'not_found');
    const lone = await newGallery(ctx, owner);
    assert.deepEqual((await favorites(lone.id)).media_ids, []);
    // The ETag moves when the client marks a photo.
    const before = await call(ctx, 'GET', `/v1/listings/${g.listingId}/favorites`, { key: owner.key });
    await form(`${g.path}/favorites/${g.ids[2]!}`, { on: '1' });
    const later = await call(ctx, 'GET', `/v1/listings/${g.listingId}/favorites`, {
      key: owner.key,
      headers: { 'if-none-match': String(before.headers.etag) },
    });
    assert.equal(later.statusCode, 200);
    // A new client starts afresh.
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: owner.key,
      body: { name: 'New Client', email: 'new.client@example.test' },
    });
    await call(ctx, 'POST', `/v1/clients/${client.json<{ id: string }>().id}/listings/${g.listingId}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    assert.deepEqual((await favorites(g.listingId)).media_ids, []);
  });
});
