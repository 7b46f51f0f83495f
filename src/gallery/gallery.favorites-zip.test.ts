// docs/api.md §25: the ZIP of the favorites alone, at /g/<token>/favorites.zip. The same code path as
// "Download all" (docs/api.md §14) with a filter: Content-Length before the first byte, ranges that
// are slices of the whole, a strong ETag (its own, and it follows the marks), entries in position
// order; 404 with no favorite or with downloads off, and behind the password like every route.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { linkedGallery, readZip, visit } from '../../test/support/gallery.ts';

describe('the favorites ZIP', () => {
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
  const patch = async (listingId: string, body: Record<string, unknown>) => {
    const res = await call(ctx, 'PATCH', `/v1/listings/${listingId}/client_link`, { key: owner.key, body });
    assert.equal(res.statusCode, 200, res.body);
  };

  async function galleryWithPhotos() {
    const g = await linkedGallery(ctx, owner, { address: '4 Mill Lane' });
    const photo = await jpeg(30, 20);
    const data = () => Buffer.concat([photo, randomBytes(40_000)]);
    const media = await uploaded(ctx, owner.key, g.listingId, [
      { filename: 'one.jpg', contentType: 'image/jpeg', data: data() },
      { filename: 'two.jpg', contentType: 'image/jpeg', data: data() },
      { filename: 'three.jpg', contentType: 'image/jpeg', data: data() },
    ]);
    await makeVariantsNow(ctx);
    return { ...g, ids: media.map((m) => m.id) };
  }

  test('404 until a photo is marked; then only the favorites, in position order, with their own name', async () => {
    const g = await galleryWithPhotos();
    const none = await visit(ctx, `${g.path}/favorites.zip`);
    assert.equal(none.statusCode, 404);
    // Not offered with no favorite: there for the script to show, hidden.
    assert.match((await visit(ctx, g.path)).body, /<p class="selection__download" data-favorites-zip hidden>/);

    for (const id of [g.ids[2]!, g.ids[0]!])
      assert.equal((await form(`${g.path}/favorites/${id}`, { on: '1' })).statusCode, 303);
    const page = (await visit(ctx, g.path)).body;
    assert.match(page, /<p class="selection__download" data-favorites-zip\s*>/);
    assert.match(page, new RegExp(`href="${g.path}/favorites.zip"`));

    const res = await visit(ctx, `${g.path}/favorites.zip`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/zip');
    assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.match(String(res.headers['content-disposition']), /4 Mill Lane - favorites\.zip/);
    const entries = readZip(res.rawPayload);
    assert.deepEqual(
      entries.map((e) => e.name),
      ['one.jpg', 'three.jpg'],
    );

    const all = await visit(ctx, `${g.path}/download.zip`);
    assert.notEqual(res.headers.etag, all.headers.etag);
    assert.match(String(res.headers.etag), /^"[^"]+"$/, 'a strong ETag');

    // A range is that slice of the whole, and If-Range with the ETag keeps it.
    const part = await visit(ctx, `${g.path}/favorites.zip`, {
      headers: { range: 'bytes=1000-20999', 'if-range': String(res.headers.etag) },
    });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 1000-20999/${res.rawPayload.length}`);
    assert.ok(part.rawPayload.equals(res.rawPayload.subarray(1000, 21000)));
    const head = await visit(ctx, `${g.path}/favorites.zip`, { method: 'HEAD' });
    assert.equal(Number(head.headers['content-length']), res.rawPayload.length);

    // Another mark: another set, another ETag (an old If-Range gets the whole new ZIP).
    assert.equal((await form(`${g.path}/favorites/${g.ids[1]!}`, { on: '1' })).statusCode, 303);
    const more = await visit(ctx, `${g.path}/favorites.zip`, {
      headers: { range: 'bytes=0-9', 'if-range': String(res.headers.etag) },
    });
    assert.equal(more.statusCode, 200);
    assert.notEqual(more.headers.etag, res.headers.etag);
    assert.deepEqual(
      readZip(more.rawPayload).map((e) => e.name),
      ['one.jpg', 'two.jpg', 'three.jpg'],
    );
  });

  test('404 with downloads off (and not offered); the password form before a password is given', async () => {
    const g = await galleryWithPhotos();
    assert.equal((await form(`${g.path}/favorites/${g.ids[0]!}`, { on: '1' })).statusCode, 303);
    await patch(g.listingId, { downloads_enabled: false });
    assert.equal((await visit(ctx, `${g.path}/favorites.zip`)).statusCode, 404);
    assert.doesNotMatch((await visit(ctx, g.path)).body, /favorites\.zip/);
    await patch(g.listingId, { downloads_enabled: true, password: 'open sesame 1' });
    const locked = await visit(ctx, `${g.path}/favorites.zip`);
    assert.equal(locked.statusCode, 403);
    assert.match(String(locked.headers['content-type']), /^text\/html/);
  });

  test("the page's script asks for JSON: the mark and the count come back, no redirect", async () => {
    const g = await galleryWithPhotos();
    const mark = (id: string, on: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `${g.path}/favorites/${id}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        payload: new URLSearchParams({ on }).toString(),
        remoteAddress: '127.0.0.1',
      });
    const first = await mark(g.ids[1]!, '1');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { on: true, favorites_count: 1 });
    assert.deepEqual((await mark(g.ids[2]!, '1')).json(), { on: true, favorites_count: 2 });
    assert.deepEqual((await mark(g.ids[1]!, '0')).json(), { on: false, favorites_count: 1 });
  });
});
