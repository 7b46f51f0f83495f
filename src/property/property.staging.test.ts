// Virtual staging on the public pages (docs/api.md §31): the property pages, branded and unbranded,
// show a staged photo with its original beside it ("Before virtual staging", the original not
// again on its own), both as plain links that work without JavaScript and as the viewer's slides;
// a staged photo whose original is hidden, unset or gone still says it is staged. The client
// gallery marks staged photos in words and alt text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, createAccount, type TestContext } from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { linkedGallery, visit } from '../../test/support/gallery.ts';
import { patchMedia, mediaUrl } from '../../test/support/gallery-order.ts';
import { call } from '../../test/support/test-app.ts';
import {
  brandedAccount,
  pathOf,
  publish,
  publishedProperty,
  type PublishedProperty,
} from '../../test/support/property.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

/** The `<li>` of the grid that holds `id` (its tile, or the pair it is in). */
function tileOf(page: string, id: string): string {
  const at = page.indexOf(`id="photo-${id}"`);
  assert.ok(at >= 0, `no tile of ${id}`);
  const start = page.lastIndexOf('<li', at);
  return page.slice(start, page.indexOf('</li>', at) + 5);
}

async function pages(p: PublishedProperty): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const url of [p.page.url, p.page.unbranded_url]) {
    const res = await visit(ctx, pathOf(url));
    assert.equal(res.statusCode, 200, res.body);
    out.push([url === p.page.url ? 'branded' : 'unbranded', res.body]);
  }
  return out;
}

describe('property pages', () => {
  test('a staged photo is shown with its original beside it, once, with alt text saying which is which', async () => {
    const p = await publishedProperty(ctx);
    const [front, kitchen] = p.media;
    const res = await patchMedia(ctx, p.account.key, p.listingId, kitchen!.id, {
      virtually_staged: true,
      original_media_id: front!.id,
      caption: 'Kitchen',
    });
    assert.equal(res.statusCode, 200, res.body);
    await makeVariantsNow(ctx);
    for (const [which, page] of await pages(p)) {
      const pair = tileOf(page, kitchen!.id);
      assert.match(pair, /class="tile tile--pair"/, which);
      assert.ok(pair.includes(`id="photo-${front!.id}"`), `${which}: the original is in the pair`);
      assert.equal(page.split(`id="photo-${front!.id}"`).length, 2, `${which}: the original is shown once`);
      // Plain links (no JavaScript) to each photo's page; the viewer's slides.
      assert.ok(pair.includes(`href="/p/`) && pair.includes(`/photo/${kitchen!.id}"`), which);
      assert.ok(pair.includes(`/photo/${front!.id}"`), which);
      assert.equal(pair.match(/class="tile__link"/g)?.length, 2, which);
      assert.equal(pair.match(/data-pswp-src=/g)?.length, 2, which);
      assert.ok(pair.includes('alt="Kitchen (virtually staged)"'), `${which}: ${pair}`);
      assert.match(pair, /alt="[^"]*, before virtual staging"/, which);
      assert.ok(pair.includes('>Before virtual staging</span>'), which);
      assert.ok(pair.includes('<span class="staged__label">Virtually staged</span>'), which);
      // The staged photo's caption is under it, not under the pair.
      assert.match(pair, /Virtually staged<\/span>\s*<p class="tile__caption">Kitchen<\/p>\s*<\/figcaption>/, which);
      assert.ok(pair.includes('data-caption="Before virtual staging"'), which);
    }
    // The original's own page still opens, without JavaScript.
    const photoPage = await visit(ctx, `${pathOf(p.page.url)}/photo/${front!.id}`);
    assert.equal(photoPage.statusCode, 200);
  });

  test('a staged photo whose original is hidden, unset or deleted says it is staged, with no pair', async () => {
    const p = await publishedProperty(ctx);
    const [front, kitchen] = p.media;
    // Its original hidden: never shown on a public page.
    await patchMedia(ctx, p.account.key, p.listingId, kitchen!.id, {
      virtually_staged: true,
      original_media_id: p.hidden.id,
    });
    await makeVariantsNow(ctx);
    for (const [which, page] of await pages(p)) {
      const tile = tileOf(page, kitchen!.id);
      assert.match(tile, /class="tile tile--staged"/, which);
      assert.ok(tile.includes('>Virtually staged</p>'), which);
      assert.ok(!page.includes(p.hidden.id), `${which}: the hidden original is not shown`);
      assert.ok(!page.includes('Before virtual staging'), which);
      assert.ok(page.includes(`id="photo-${front!.id}"`), which);
    }
    // Its original deleted: the pairing goes with it.
    await patchMedia(ctx, p.account.key, p.listingId, kitchen!.id, { original_media_id: front!.id });
    assert.equal((await call(ctx, 'DELETE', mediaUrl(p.listingId, front!.id), { key: p.account.key })).statusCode, 204);
    for (const [which, page] of await pages(p)) {
      assert.match(tileOf(page, kitchen!.id), /class="tile tile--staged"/, which);
      assert.ok(!page.includes('Before virtual staging'), which);
    }
  });

  test('an unstaged photo with an original set is not paired (the label and the pair go together)', async () => {
    const p = await publishedProperty(ctx);
    const [front, kitchen] = p.media;
    await patchMedia(ctx, p.account.key, p.listingId, kitchen!.id, { original_media_id: front!.id });
    for (const [which, page] of await pages(p)) {
      assert.match(tileOf(page, kitchen!.id), /class="tile"/, which);
      assert.ok(!page.includes('irtually staged'), which);
    }
  });
});

describe('the property grid around a pair (two columns on a wide screen)', () => {
  /** The grid's tiles in order: the id of each `<li>` and whether it takes a whole row alone. */
  const grid = (page: string): string[] =>
    [...page.matchAll(/<li class="tile([^"]*)" id="photo-([^"]+)"/g)].map(
      ([, classes, id]) => `${id ?? ''}${classes?.includes('tile--wide') === true ? ' wide' : ''}`,
    );

  test('a photo alone before a pair gets the next photo beside it, or, with none after, the whole row', async () => {
    const account = await brandedAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: account.key,
      body: { address: '3 Ferry Lane', status: 'active' },
    });
    const listingId = created.json<{ id: string }>().id;
    const [a, original, staged, c] = await uploaded(
      ctx,
      account.key,
      listingId,
      await Promise.all(['a', 'original', 'staged', 'c'].map(async (n) => ({ filename: `${n}.jpg`, data: await jpeg(90, 60) }))), // prettier-ignore
    );
    assert.ok(a && original && staged && c);
    await patchMedia(ctx, account.key, listingId, staged.id, {
      virtually_staged: true,
      original_media_id: original.id,
    });
    await makeVariantsNow(ctx);
    const published = await publish(ctx, account.key, listingId);
    const url = pathOf(published.json<{ property_page: { url: string } }>().property_page.url);
    // a, [staged | original], c: c moves up beside a, so the pair starts a row with no cell left empty.
    assert.deepEqual(grid((await visit(ctx, url)).body), [a.id, c.id, staged.id]);
    // With nothing after the pair, a takes its row whole.
    await patchMedia(ctx, account.key, listingId, c.id, { hidden: true });
    assert.deepEqual(grid((await visit(ctx, url)).body), [`${a.id} wide`, staged.id]);
    // An even number of photos before the pair: the order is the studio's, nothing wide.
    await patchMedia(ctx, account.key, listingId, c.id, { hidden: false, position: 2 });
    assert.deepEqual(grid((await visit(ctx, url)).body), [a.id, c.id, staged.id]);
    await patchMedia(ctx, account.key, listingId, c.id, { position: 4 });
    await patchMedia(ctx, account.key, listingId, a.id, { hidden: true });
    assert.deepEqual(grid((await visit(ctx, url)).body), [staged.id, c.id]);
  });
});

describe('client gallery', () => {
  test('a staged photo is marked in words and in its alt text; others are not', async () => {
    const account = await createAccount(ctx);
    const g = await linkedGallery(ctx, account);
    const [plain, staged] = await uploaded(ctx, account.key, g.listingId, [
      { filename: 'a.jpg', data: await jpeg(60, 40) },
      { filename: 'b.jpg', data: await jpeg(60, 40) },
    ]);
    await patchMedia(ctx, account.key, g.listingId, staged!.id, {
      virtually_staged: true,
      original_media_id: plain!.id,
    });
    await makeVariantsNow(ctx);
    const res = await visit(ctx, g.path);
    assert.equal(res.statusCode, 200, res.body);
    const stagedTile = tileOf(res.body, staged!.id);
    assert.ok(stagedTile.includes('<p class="tile__staged">Virtually staged</p>'), stagedTile);
    assert.match(stagedTile, /alt="[^"]*\(virtually staged\)"/);
    assert.ok(!tileOf(res.body, plain!.id).includes('irtually staged'));
  });
});
