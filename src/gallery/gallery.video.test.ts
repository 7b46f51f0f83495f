// Videos on the client gallery page (docs/api.md §25): once its variants are ready a video shows
// its poster and plays its web rendition when it has one, the original when it plays as it is;
// before that (or when they failed) it plays the original from its first frame. The poster is
// served under the link like thumbnails, and only for this gallery's visible videos.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts'; // prettier-ignore
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { patchMedia } from '../../test/support/gallery-order.ts';
import { assertGalleryHeaders, assertGone, linkedGallery, visit, type LinkedGallery } from '../../test/support/gallery.ts'; // prettier-ignore
import { makeVideo, undecodableMp4 } from '../../test/support/videos.ts';

describe('videos on the client gallery page', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let linked: LinkedGallery;
  let other: LinkedGallery;
  let needsWeb: MediaJson;
  let asIs: MediaJson;
  let broken: MediaJson;
  let photo: MediaJson;
  let otherVideo: MediaJson;
  let originals: Map<string, Buffer>;

  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx, 'Harbour Light');
    linked = await linkedGallery(ctx, owner);
    other = await linkedGallery(ctx, owner);
    const files = {
      walk: await makeVideo('mpeg4', { width: 480, height: 270 }),
      drone: await makeVideo('h264-faststart'),
      broken: undecodableMp4(),
    };
    [photo, needsWeb, asIs, broken] = (await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: await jpeg(64, 48) },
      { filename: 'walkthrough.mp4', contentType: 'video/mp4', data: files.walk },
      { filename: 'drone.mp4', contentType: 'video/mp4', data: files.drone },
      { filename: 'broken.mp4', contentType: 'video/mp4', data: files.broken },
    ])) as [MediaJson, MediaJson, MediaJson, MediaJson];
    [otherVideo] = (await uploaded(ctx, owner.key, other.listingId, [
      { filename: 'other.mp4', contentType: 'video/mp4', data: files.drone },
    ])) as [MediaJson];
    originals = new Map([
      [needsWeb.id, files.walk],
      [asIs.id, files.drone],
      [broken.id, files.broken],
    ]);
  });
  after(() => ctx.close());

  const videoTag = (page: string, id: string): string => {
    const tag = new RegExp(`<video[^>]*src="[^"]*/media/${id}/play[^"]*"[^>]*>`).exec(page)?.[0];
    assert.ok(tag !== undefined, `no <video> for ${id}`);
    return tag.replace(/\s+/g, ' ');
  };

  test('before the variants are made, each video plays its original from the first frame, with no poster', async () => {
    const page = (await visit(ctx, linked.path)).body;
    for (const m of [needsWeb, asIs, broken]) {
      const tag = videoTag(page, m.id);
      assert.match(tag, new RegExp(`src="${linked.path}/media/${m.id}/play#t=0\\.1"`));
      assert.doesNotMatch(tag, /poster=/);
    }
    await assertGone(ctx, `${linked.path}/poster/${needsWeb.id}`, 'a poster not made yet');
    const play = await visit(ctx, `${linked.path}/media/${needsWeb.id}/play`);
    assert.ok(play.rawPayload.equals(originals.get(needsWeb.id)!));
  });

  test('once ready: the poster shows, `play` serves the web rendition, or the original when it plays as it is', async () => {
    await makeVariantsNow(ctx);
    const page = (await visit(ctx, linked.path)).body;
    for (const m of [needsWeb, asIs]) {
      const tag = videoTag(page, m.id);
      assert.match(tag, new RegExp(`poster="${linked.path}/poster/${m.id}\\?v=[\\w-]{16}"`), tag);
      assert.match(tag, new RegExp(`src="${linked.path}/media/${m.id}/play"`), tag);
      assert.match(tag, /preload="none"/);
      const poster = await visit(ctx, `${linked.path}/poster/${m.id}`);
      assert.equal(poster.statusCode, 200);
      assert.equal(poster.headers['content-type'], 'image/jpeg');
      assert.match(String(poster.headers['content-disposition']), /^inline/);
      assertGalleryHeaders(poster, 'poster');
    }
    // The one that failed keeps the first-frame fallback.
    assert.match(videoTag(page, broken.id), /#t=0\.1/);

    const api = await call(ctx, 'GET', `/v1/listings/${linked.listingId}/media/${needsWeb.id}/variants/web`, {
      key: owner.key,
    });
    assert.equal(api.statusCode, 200);
    const web = await visit(ctx, `${linked.path}/media/${needsWeb.id}/play`);
    assert.equal(web.statusCode, 200);
    assert.equal(web.headers['content-type'], 'video/mp4');
    assert.match(String(web.headers['content-disposition']), /^inline/);
    assert.ok(web.rawPayload.equals(api.rawPayload), 'the web rendition, not the original');
    const part = await visit(ctx, `${linked.path}/media/${needsWeb.id}/play`, { headers: { range: 'bytes=10-109' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 10-109/${api.rawPayload.length}`);
    assert.ok(part.rawPayload.equals(api.rawPayload.subarray(10, 110)));
    assertGalleryHeaders(part, 'play of the web rendition');

    const original = await visit(ctx, `${linked.path}/media/${asIs.id}/play`);
    assert.ok(original.rawPayload.equals(originals.get(asIs.id)!), 'web is null: the original plays');
  });

  test("a poster is served only for this gallery's visible videos", async () => {
    await makeVariantsNow(ctx);
    await assertGone(ctx, `${linked.path}/poster/${photo.id}`, 'a photo has no poster');
    await assertGone(ctx, `${linked.path}/poster/${otherVideo.id}`, "another gallery's video");
    await assertGone(ctx, `${other.path}/poster/${needsWeb.id}`, 'through the other link');
    const hide = await patchMedia(ctx, owner.key, linked.listingId, needsWeb.id, { hidden: true });
    assert.equal(hide.statusCode, 200);
    await assertGone(ctx, `${linked.path}/poster/${needsWeb.id}`, 'a hidden video');
    await assertGone(ctx, `${linked.path}/media/${needsWeb.id}/play`, 'a hidden video');
    const page = (await visit(ctx, linked.path)).body;
    assert.ok(!page.includes(needsWeb.id), 'a hidden video is not on the page');
    await patchMedia(ctx, owner.key, linked.listingId, needsWeb.id, { hidden: false });
  });

  test('downloads off: `play` serves the web rendition only; a video without one shows its poster alone', async () => {
    await makeVariantsNow(ctx);
    const downloads = (on: boolean) =>
      call(ctx, 'PATCH', `/v1/listings/${linked.listingId}/client_link`, {
        key: owner.key,
        body: { downloads_enabled: on },
      });
    assert.equal((await downloads(false)).statusCode, 200);
    try {
      const api = await call(ctx, 'GET', `/v1/listings/${linked.listingId}/media/${needsWeb.id}/variants/web`, {
        key: owner.key,
      });
      const web = await visit(ctx, `${linked.path}/media/${needsWeb.id}/play`);
      assert.equal(web.statusCode, 200);
      assert.ok(web.rawPayload.equals(api.rawPayload), 'the web rendition plays');
      // The original plays as it is (no web rendition), or failed: its bytes are not served.
      for (const m of [asIs, broken]) {
        for (const method of ['GET', 'HEAD'] as const) {
          const res = await visit(ctx, `${linked.path}/media/${m.id}/play`, { method });
          assert.equal(res.statusCode, 404, `${method} ${m.filename}`);
          assert.ok(!res.rawPayload.equals(originals.get(m.id)!));
        }
      }
      const page = (await visit(ctx, linked.path)).body;
      assert.match(
        videoTag(page, needsWeb.id),
        new RegExp(`poster="${linked.path}/poster/${needsWeb.id}\\?v=[\\w-]{16}"`),
      );
      for (const m of [asIs, broken]) assert.ok(!page.includes(`/media/${m.id}/play`), m.filename);
      assert.match(page, new RegExp(`<img[^>]+src="${linked.path}/poster/${asIs.id}\\?v=[\\w-]{16}"`));
    } finally {
      assert.equal((await downloads(true)).statusCode, 200);
    }
  });
});
