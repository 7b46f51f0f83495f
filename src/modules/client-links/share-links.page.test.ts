// docs/api.md §28: a share link's page is the client gallery page through the one link mechanism:
// every public URL behind the same gate (expiry 410, password, downloads off: no byte of an
// original or a ZIP, a rotated token: the unknown-token 404), its own counters, favorites and
// comments; the proofing bounds (selection_min/max) hold on both kinds of link, nothing half-saved.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg } from '../../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../../test/support/media-helpers.ts';
import { fakeClock } from '../../../test/support/notification-helpers.ts';
import { assertGalleryHeaders, assertGone, clientLink, linkedGallery, visit } from '../../../test/support/gallery.ts';
import { DAY, shareLinkHelpers, type FavoritesJson, type ShareLinkJson } from '../../../test/support/share-links.ts';

const PUBLIC_URL = 'http://127.0.0.1:3000';

describe('share links: the page', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let h: ReturnType<typeof shareLinkHelpers>;
  const clock = fakeClock(Date.parse('2026-05-01T10:00:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL }, { clock: clock.clock });
    owner = await createAccount(ctx, 'Harbour Light Studio');
    h = shareLinkHelpers(ctx, owner);
  });
  after(() => ctx.close());

  test("a share link walks every public URL; its counters are its own, not the client link's", async () => {
    const g = await h.galleryWithFiles();
    // The gallery also has a client: both links open the same page, each counted on its own.
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: owner.key,
      body: { name: 'Cleo Client', email: `cleo-${Date.now()}@example.test` },
    });
    const clientId = client.json<{ id: string }>().id;
    await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${g.listingId}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    const { link, path } = await h.shareLink(g.listingId);
    const urls = g.urls(path);
    for (const url of [...urls.pages, ...urls.images, ...urls.downloads]) {
      const res = await visit(ctx, url);
      assert.equal(res.statusCode, 200, url);
      assertGalleryHeaders(res, url);
    }
    const page = await visit(ctx, path);
    assert.match(page.body, /Harbour Light Studio/);
    assert.doesNotMatch(page.body, /Cleo Client/, "a share link's page does not name the client");
    const now = await h.get(g.listingId, link.id);
    assert.equal(now.views, 2, 'two page loads (the page, and again)');
    assert.equal(now.downloads, 4, 'three originals and the ZIP from byte 0');
    assert.equal(now.first_viewed_at, new Date(clock.now()).toISOString());
    const theirs = await clientLink(ctx, owner.key, g.listingId);
    assert.deepEqual({ v: theirs?.views, d: theirs?.downloads }, { v: 0, d: 0 });
    const viewed = (await h.events('share_link.viewed')).filter((e) => e.data.object.id === link.id);
    assert.equal(viewed.length, 2);
    const downloaded = (await h.events('share_link.downloaded')).filter((e) => e.data.object.id === link.id);
    assert.equal(downloaded.length, 4);
  });

  test('downloads off: no byte of an original or a ZIP under the share link; images still show', async () => {
    const g = await h.galleryWithFiles();
    const { link, path } = await h.shareLink(g.listingId, { downloads_enabled: false });
    const urls = g.urls(path);
    // A favorite, so the favorites ZIP would exist.
    assert.equal((await h.form(`${path}/favorites/${g.photo.id}`, { on: '1' })).statusCode, 303);
    for (const url of [...urls.downloads, `${path}/favorites.zip`]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await visit(ctx, url, { method, headers: { range: 'bytes=0-' } });
        assert.equal(res.statusCode, 404, `${method} ${url}`);
        assert.match(String(res.headers['content-type']), /^text\/html/, url);
        assert.equal(res.headers['content-range'], undefined);
        assert.equal(res.headers['content-disposition'], undefined);
      }
    }
    for (const url of [...urls.pages, ...urls.images.slice(0, 3)]) {
      assert.equal((await visit(ctx, url)).statusCode, 200, url);
    }
    const pageBody = (await visit(ctx, path)).body;
    assert.doesNotMatch(pageBody, /download\.zip|\/download"/);
    assert.equal((await h.get(g.listingId, link.id)).downloads, 0);
  });

  test('an expired share link answers 410 naming the studio and the date on every URL, and serves nothing', async () => {
    const g = await h.galleryWithFiles();
    const { link, path } = await h.shareLink(g.listingId, { expires_at: new Date(clock.now() + DAY).toISOString() });
    const urls = g.urls(path);
    assert.equal((await visit(ctx, path)).statusCode, 200);
    clock.advance(DAY);
    for (const url of [...urls.pages, ...urls.images, ...urls.downloads, `${path}/favorites.zip`]) {
      const res = await visit(ctx, url, { headers: { range: 'bytes=0-' } });
      assert.equal(res.statusCode, 410, url);
      assert.match(res.body, /Harbour Light Studio/, url);
      assertGalleryHeaders(res, url);
    }
    for (const [url, fields] of [
      [`${path}/favorites/${g.photo.id}`, { on: '1' }],
      [`${path}/comments/${g.photo.id}`, { comment: 'late' }],
      [`${path}/favorites`, { note: 'late' }],
    ] as const) {
      assert.equal((await h.form(url, fields)).statusCode, 410, url);
    }
    const after = await h.get(g.listingId, link.id);
    assert.deepEqual({ v: after.views, d: after.downloads, f: after.favorites_count }, { v: 1, d: 0, f: 0 });
  });

  test('a protected share link asks for its password on every URL; the right one opens it, 10 wrong ones then 429', async () => {
    const g = await h.galleryWithFiles();
    const { path } = await h.shareLink(g.listingId, { password: 'correct horse' });
    const urls = g.urls(path);
    for (const url of [...urls.pages, ...urls.images, ...urls.downloads]) {
      const res = await visit(ctx, url, { headers: { range: 'bytes=0-' } });
      assert.equal(res.statusCode, 403, url);
      assert.doesNotMatch(res.body, /porch\.jpg|walk\.mp4|plan\.pdf/);
    }
    const unlock = (password: string, address: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `${path}/unlock`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ password }).toString(),
        remoteAddress: address,
      });
    for (let i = 0; i < 10; i += 1) assert.equal((await unlock('wrong', '10.9.0.1')).statusCode, 403);
    assert.equal((await unlock('correct horse', '10.9.0.1')).statusCode, 429, 'the 11th answer is refused');
    const right = await unlock('correct horse', '10.9.0.2');
    assert.equal(right.statusCode, 303);
    const cookie = String(right.headers['set-cookie']).split(';')[0]!;
    for (const url of [...urls.pages, ...urls.images, ...urls.downloads]) {
      assert.equal((await visit(ctx, url, { headers: { cookie } })).statusCode, 200, url);
    }
  });

  test("rotating a share link's token: the old URL is the unknown-token 404 at once, the new one works, counters kept", async () => {
    const g = await h.galleryWithFiles();
    const { link, path } = await h.shareLink(g.listingId);
    assert.equal((await visit(ctx, path)).statusCode, 200);
    assert.equal((await h.form(`${path}/favorites/${g.photo.id}`, { on: '1' })).statusCode, 303);
    const res = await call(ctx, 'POST', `${h.base(g.listingId)}/${link.id}/rotate`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    const rotated = res.json<ShareLinkJson>();
    assert.notEqual(rotated.url, link.url);
    assert.deepEqual({ v: rotated.views, f: rotated.favorites_count }, { v: 1, f: 1 });
    const old = g.urls(path);
    for (const url of [...old.pages, ...old.images, ...old.downloads]) await assertGone(ctx, url, 'rotated');
    assert.equal((await h.form(`${path}/favorites/${g.photo.id}`, { on: '0' })).statusCode, 404);
    const fresh = new URL(rotated.url).pathname;
    assert.equal((await visit(ctx, fresh)).statusCode, 200);
  });

  test('deleting a share link stops it at once; deleting the gallery deletes its links', async () => {
    const g = await h.galleryWithFiles();
    const a = await h.shareLink(g.listingId, { label: 'A' });
    const b = await h.shareLink(g.listingId, { label: 'B' });
    assert.equal(
      (await call(ctx, 'DELETE', `${h.base(g.listingId)}/${a.link.id}`, { key: owner.key })).statusCode,
      204,
    );
    await assertGone(ctx, a.path, 'deleted link');
    await assertGone(ctx, `${a.path}/download.zip`, 'deleted link');
    expectError(await call(ctx, 'GET', `${h.base(g.listingId)}/${a.link.id}`, { key: owner.key }), 404, 'not_found');
    assert.equal((await visit(ctx, b.path)).statusCode, 200);
    assert.equal((await call(ctx, 'DELETE', `/v1/listings/${g.listingId}`, { key: owner.key })).statusCode, 204);
    await assertGone(ctx, b.path, 'gallery deleted');
    const left = await ctx.deps.db.kysely
      .selectFrom('gallery_links')
      .select('id')
      .where('account_id', '=', owner.accountId)
      .where('listing_id', '=', g.listingId)
      .execute();
    assert.deepEqual(left, []);
  });

  test('favorites and comments at a share link are its own; GET .../favorites reads them in position order', async () => {
    const g = await h.galleryWithPhotos(3);
    const one = await h.shareLink(g.listingId, { label: 'One' });
    const two = await h.shareLink(g.listingId, { label: 'Two' });
    const [a, b, c] = g.ids as [string, string, string];
    for (const id of [c, a]) assert.equal((await h.form(`${one.path}/favorites/${id}`, { on: '1' })).statusCode, 303);
    clock.advance(1000);
    assert.equal((await h.form(`${one.path}/comments/${c}`, { comment: '  Brighter, please  ' })).statusCode, 303);
    assert.equal((await h.form(`${one.path}/comments/${b}`, { comment: 'Crop the left' })).statusCode, 303);
    const json = await h.form(`${one.path}/comments/${a}`, { comment: 'Keep' }, { accept: 'application/json' });
    assert.equal(json.statusCode, 200, json.body);
    assert.deepEqual(json.json(), { comment: 'Keep' });
    assert.equal((await h.form(`${one.path}/comments/${a}`, { comment: '' })).statusCode, 303, 'empty removes it');
    assert.equal((await h.form(`${one.path}/comments/${b}`, { comment: 'x'.repeat(1001) })).statusCode, 400);
    const res = await call(ctx, 'GET', `${h.base(g.listingId)}/${one.link.id}/favorites`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    const at = new Date(clock.now()).toISOString();
    assert.deepEqual(res.json<FavoritesJson>(), {
      media_ids: [a, c],
      note: null,
      comments: [
        { media_id: b, text: 'Crop the left', updated_at: at },
        { media_id: c, text: 'Brighter, please', updated_at: at },
      ],
      submitted_at: null,
      updated_at: at,
    });
    assert.equal((await h.get(g.listingId, one.link.id)).favorites_count, 2);
    assert.equal(
      (await h.get(g.listingId, one.link.id)).updated_at,
      at,
      "a mark or comment moves the link's updated_at",
    );
    assert.equal((await h.get(g.listingId, two.link.id)).favorites_count, 0);
    const theirs = await call(ctx, 'GET', `${h.base(g.listingId)}/${two.link.id}/favorites`, { key: owner.key });
    assert.deepEqual(theirs.json<FavoritesJson>().comments, []);
    // The page shows the comment (without JavaScript: a form per photo, the text beside it).
    const page = (await visit(ctx, one.path)).body;
    assert.match(page, /Brighter, please/);
    assert.match(page, new RegExp(`action="${one.path}/comments/${b}"`));
  });

  test('favorites off: no heart, comment or selection form on the page, and their routes are 404', async () => {
    const g = await h.galleryWithPhotos(1);
    const { path } = await h.shareLink(g.listingId, { favorites_enabled: false });
    const page = (await visit(ctx, path)).body;
    assert.doesNotMatch(page, /\/favorites["/]|\/comments\/|♡/);
    for (const [url, fields] of [
      [`${path}/favorites/${g.ids[0]}`, { on: '1' }],
      [`${path}/comments/${g.ids[0]}`, { comment: 'x' }],
      [`${path}/favorites`, { note: 'x' }],
    ] as const) {
      assert.equal((await h.form(url, fields)).statusCode, 404, url);
    }
    assert.equal((await visit(ctx, `${path}/favorites.zip`)).statusCode, 404);
  });

  test('selection_max: a mark past it is refused with a message (with and without JavaScript); nothing changes', async () => {
    const g = await h.galleryWithPhotos(3);
    const { link, path } = await h.shareLink(g.listingId, { selection_max: 2 });
    const [a, b, c] = g.ids as [string, string, string];
    assert.match((await visit(ctx, path)).body, /Choose up to 2 photos\./);
    for (const id of [a, b]) assert.equal((await h.form(`${path}/favorites/${id}`, { on: '1' })).statusCode, 303);
    const refused = await h.form(`${path}/favorites/${c}`, { on: '1' });
    assert.equal(refused.statusCode, 303);
    assert.equal(refused.headers.location, `${path}?refused=max#photo-${c}`);
    const shown = (await visit(ctx, refused.headers.location.split('#')[0]!)).body;
    assert.match(shown, /role="alert"[^>]*>\s*You can choose up to 2 photos\. Unmark one before you mark another\./);
    const script = await h.form(`${path}/favorites/${c}`, { on: '1' }, { accept: 'application/json' });
    assert.equal(script.statusCode, 200);
    assert.deepEqual(script.json(), {
      on: false,
      refused: 'too_many',
      message: 'You can choose up to 2 photos. Unmark one before you mark another.',
    });
    assert.equal((await h.get(g.listingId, link.id)).favorites_count, 2);
    // Marking one already marked is no new mark; unmarking makes room.
    assert.equal((await h.form(`${path}/favorites/${a}`, { on: '1' })).headers.location, `${path}#photo-${a}`);
    assert.equal((await h.form(`${path}/favorites/${a}`, { on: '0' })).statusCode, 303);
    assert.equal((await h.form(`${path}/favorites/${c}`, { on: '1' })).headers.location, `${path}#photo-${c}`);
  });

  test('concurrent marks never pass selection_max', async () => {
    const g = await h.galleryWithPhotos(6);
    const { link, path } = await h.shareLink(g.listingId, { selection_max: 3 });
    const all = await Promise.all(g.ids.map((id) => h.form(`${path}/favorites/${id}`, { on: '1' })));
    assert.equal(all.filter((r) => !String(r.headers.location).includes('refused')).length, 3);
    assert.equal((await h.get(g.listingId, link.id)).favorites_count, 3);
  });

  test('selection_min: sending fewer is refused with a message, the note kept in the form and nothing saved', async () => {
    const g = await h.galleryWithPhotos(3);
    const { link, path } = await h.shareLink(g.listingId, { selection_min: 2, selection_max: 3 });
    assert.match((await visit(ctx, path)).body, /Choose between 2 and 3 photos\./);
    assert.equal((await h.form(`${path}/favorites/${g.ids[0]!}`, { on: '1' })).statusCode, 303);
    const before = await call(ctx, 'GET', `${h.base(g.listingId)}/${link.id}/favorites`, { key: owner.key });
    const refused = await h.form(`${path}/favorites`, { note: 'My <note>' });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /role="alert"[^>]*>\s*Your selection has 1 photo: choose at least 2 photos/);
    assert.match(refused.body, /<textarea[^>]*name="note"[^>]*>\n?My &lt;note&gt;<\/textarea>/);
    assertGalleryHeaders(refused, 'refused send');
    const after = await call(ctx, 'GET', `${h.base(g.listingId)}/${link.id}/favorites`, { key: owner.key });
    assert.equal(after.body, before.body, 'nothing half-saved: no note, no submitted_at');
    assert.equal(after.json<FavoritesJson>().submitted_at, null);
    const jobs = await ctx.deps.db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'selection.email')
      .where('subject_id', '=', link.id)
      .execute();
    assert.equal(jobs.length, 0, 'no email to the studio');
    assert.equal(
      (await h.events('share_link.selection_submitted')).filter((e) => e.data.object.id === link.id).length,
      0,
    );

    assert.equal((await h.form(`${path}/favorites/${g.ids[2]!}`, { on: '1' })).statusCode, 303);
    const sent = await h.form(`${path}/favorites`, { note: 'Two now' });
    assert.equal(sent.statusCode, 303);
    const now = await call(ctx, 'GET', `${h.base(g.listingId)}/${link.id}/favorites`, { key: owner.key });
    assert.deepEqual(
      { n: now.json<FavoritesJson>().note, s: now.json<FavoritesJson>().submitted_at },
      { n: 'Two now', s: new Date(clock.now()).toISOString() },
    );
    const submitted = (await h.events('share_link.selection_submitted')).filter((e) => e.data.object.id === link.id);
    assert.equal(submitted.length, 1);
    assert.equal(submitted[0]!.data.object.favorites_count, 2);
  });

  test('the client link takes selection_min/max too (PATCH), shown in client_link, enforced on its page', async () => {
    const linked = await linkedGallery(ctx, owner);
    const photos = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
      { filename: 'b.jpg', contentType: 'image/jpeg', data: await jpeg(30, 40) },
    ]);
    await makeVariantsNow(ctx);
    const res = await call(ctx, 'PATCH', `/v1/listings/${linked.listingId}/client_link`, {
      key: owner.key,
      body: { selection_min: 1, selection_max: 1 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const link = res.json<{ client_link: { selection_min: number; selection_max: number } }>().client_link;
    assert.deepEqual({ min: link.selection_min, max: link.selection_max }, { min: 1, max: 1 });
    expectError(
      await call(ctx, 'PATCH', `/v1/listings/${linked.listingId}/client_link`, {
        key: owner.key,
        body: { selection_min: 2 },
      }),
      400,
      'validation_error',
    );
    assert.match((await visit(ctx, linked.path)).body, /Choose 1 photo\./);
    assert.equal((await h.form(`${linked.path}/favorites`, { note: 'none' })).statusCode, 409, 'fewer than 1');
    assert.equal((await h.form(`${linked.path}/favorites/${photos[0]!.id}`, { on: '1' })).statusCode, 303);
    const second = await h.form(`${linked.path}/favorites/${photos[1]!.id}`, { on: '1' });
    assert.match(String(second.headers.location), /refused=max/);
    assert.equal((await h.form(`${linked.path}/favorites`, { note: 'one' })).statusCode, 303);
    // The client link's selection with its comments.
    assert.equal((await h.form(`${linked.path}/comments/${photos[1]!.id}`, { comment: 'Not this' })).statusCode, 303);
    const fav = await call(ctx, 'GET', `/v1/listings/${linked.listingId}/favorites`, { key: owner.key });
    assert.deepEqual(
      fav.json<FavoritesJson>().comments.map((c) => [c.media_id, c.text]),
      [[photos[1]!.id, 'Not this']],
    );
    assert.deepEqual(fav.json<FavoritesJson>().media_ids, [photos[0]!.id]);
  });
});
