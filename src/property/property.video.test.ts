// Videos on the property pages (docs/api.md §25): as on the client gallery page, once the
// variants are made a video shows its poster and plays its web rendition, under the branded and
// the unbranded token alike, and a played file is named by its id (never its file name). Before,
// the branded page plays the original and the unbranded one nothing (property.unbranded.test.ts).
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts'; // prettier-ignore
import { makeVariantsNow, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { visit } from '../../test/support/gallery.ts';
import { makeVideo } from '../../test/support/videos.ts';
import { pathOf, publish, type PropertyPageJson } from '../../test/support/property.ts';

describe('videos on the property pages', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let walk: MediaJson;
  let original: Buffer;
  let pages: string[];

  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx, 'Harbour Light');
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: owner.key,
      body: { address: '9 Reel Street', status: 'active' },
    });
    const listingId = created.json<{ id: string }>().id;
    original = await makeVideo('mpeg4', { width: 480, height: 270 });
    [walk] = (await uploaded(ctx, owner.key, listingId, [
      { filename: 'Harbour Light walkthrough.mp4', contentType: 'video/mp4', data: original },
    ])) as [MediaJson];
    const published = await publish(ctx, owner.key, listingId);
    assert.equal(published.statusCode, 200, published.body);
    const page = published.json<{ property_page: PropertyPageJson }>().property_page;
    pages = [pathOf(page.url), pathOf(page.unbranded_url)];
  });
  after(() => ctx.close());

  const videoTag = (page: string): string => {
    const tag = new RegExp(`<video[^>]*src="[^"]*/media/${walk.id}/play[^"]*"[^>]*>`).exec(page)?.[0];
    assert.ok(tag !== undefined, 'no <video>');
    return tag.replace(/\s+/g, ' ');
  };

  test('before the variants: the branded page plays the original from its first frame, the unbranded one nothing', async () => {
    const [branded, unbranded] = pages as [string, string];
    const tag = videoTag((await visit(ctx, branded)).body);
    assert.doesNotMatch(tag, /poster=/);
    const play = await visit(ctx, `${branded}/media/${walk.id}/play`);
    assert.equal(play.statusCode, 200);
    assert.ok(play.rawPayload.equals(original), 'the original');
    assert.doesNotMatch(String(play.headers['content-disposition']), /Harbour/);
    // The original's tags may name the studio: the unbranded page waits for a rendition (docs/api.md §25).
    const page = (await visit(ctx, unbranded)).body;
    assert.ok(!page.includes(walk.id), 'the unbranded page shows nothing of the video yet');
    assert.doesNotMatch(page, /<video/);
    assert.equal((await visit(ctx, `${unbranded}/media/${walk.id}/play`)).statusCode, 404);
    for (const base of pages) assert.equal((await visit(ctx, `${base}/poster/${walk.id}`)).statusCode, 404);
  });

  test('once made: the poster shows and play serves the web rendition, on both pages', async () => {
    await makeVariantsNow(ctx);
    for (const base of pages) {
      const tag = videoTag((await visit(ctx, base)).body);
      assert.match(tag, new RegExp(`poster="${base}/poster/${walk.id}\\?v=[\\w-]{16}"`), tag);
      assert.match(tag, /preload="none"/);
      const poster = await visit(ctx, `${base}/poster/${walk.id}`);
      assert.equal(poster.statusCode, 200);
      assert.equal(poster.headers['content-type'], 'image/jpeg');
      assert.match(String(poster.headers['content-disposition']), /^inline/);
      const play = await visit(ctx, `${base}/media/${walk.id}/play`);
      assert.equal(play.statusCode, 200);
      assert.equal(play.headers['content-type'], 'video/mp4');
      assert.ok(!play.rawPayload.equals(original), 'the web rendition, not the original');
      assert.doesNotMatch(String(play.headers['content-disposition']), /Harbour/);
    }
  });
});
