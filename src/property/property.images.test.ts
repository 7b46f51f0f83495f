// The property pages' images as a phone loads them (issue 37 §5): the cover preloaded and asked
// for first, every photo a responsive set of the variants made, sized, lazy after the first; a
// variant at its versioned URL kept a year by any cache (the pages are public), anywhere else
// asked for each time, and nothing served once the page is taken down.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { visit } from '../../test/support/gallery.ts';
import {
  assertPropertyHeaders,
  pathOf,
  publishedProperty,
  unpublish,
  type PublishedProperty,
} from '../../test/support/property.ts';

const YEAR = 'public, max-age=31536000, immutable';

const tags = (page: string, pattern: RegExp): Map<string, string>[] =>
  [...page.matchAll(pattern)].map(
    (m) => new Map([...m[0].matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])),
  );

const widths = (srcset: string | undefined): [string, number][] =>
  (srcset ?? '').split(', ').map((e) => {
    const [url, w] = e.split(' ');
    return [url!.replace(/\?v=[\w-]{16}$/, ''), Number(w!.replace(/w$/, ''))];
  });

describe('property pages: responsive, lazy and cached images', () => {
  let ctx: TestContext;
  let p: PublishedProperty;
  let pages: string[];

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL: 'http://127.0.0.1:3000', GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    p = await publishedProperty(ctx);
    // Two more photos, wider than a thumbnail: a set of two widths, and a grid longer than a screen.
    const more = [];
    for (const w of [1200, 960]) more.push({ filename: `wide-${w}.jpg`, contentType: 'image/jpeg', data: await jpeg(w, (w / 3) * 2) }); // prettier-ignore
    p.media.push(...(await uploaded(ctx, p.account.key, p.listingId, more)));
    await makeVariantsNow(ctx);
    pages = [pathOf(p.page.url), pathOf(p.page.unbranded_url)];
  });
  after(() => ctx.close());

  test('both pages preload the cover and show every photo as a sized responsive set, lazy after the first', async () => {
    const [front, kitchen, , , wide] = p.media;
    for (const base of pages) {
      const page = (await visit(ctx, base)).body;
      const [hero] = tags(page, /<img\s+class="hero__image"[^>]*>/g);
      assert.ok(hero !== undefined, `${base}: no cover`);
      assert.match(hero.get('src')!, new RegExp(`^${base}/large/${front!.id}\\?v=[\\w-]{16}$`));
      assert.equal(hero.get('fetchpriority'), 'high');
      assert.equal(hero.get('loading'), undefined, 'the cover is never lazy');
      // A photo smaller than the thumbnail's box: its variants have one width, listed once.
      assert.deepEqual(widths(hero.get('srcset')), [[`${base}/thumb/${front!.id}`, 90]]);
      const [preload] = tags(page, /<link\s+rel="preload"[^>]*>/g);
      assert.ok(preload !== undefined, `${base}: no preload`);
      assert.deepEqual(
        ['as', 'href', 'imagesrcset', 'imagesizes', 'fetchpriority'].map((a) => preload.get(a)),
        ['image', hero.get('src'), hero.get('srcset'), hero.get('sizes'), 'high'],
      );
      assert.ok(page.indexOf('rel="preload"') < page.indexOf('rel="stylesheet"'));

      const tiles = tags(page, /<img\s+src="[^"]*\/thumb\/[^>]*>/g);
      assert.equal(tiles.length, 4);
      assert.deepEqual(
        tiles.map((t) => t.get('loading')),
        ['eager', 'lazy', 'lazy', 'lazy'],
      );
      for (const t of tiles) {
        assert.equal(t.get('decoding'), 'async');
        assert.equal(t.get('sizes'), '(min-width: 1280px) 600px, (min-width: 700px) 50vw, 100vw');
        assert.ok(Number(t.get('width')) > 0 && Number(t.get('height')) > 0);
      }
      assert.deepEqual(widths(tiles[1]!.get('srcset')), [[`${base}/thumb/${kitchen!.id}`, 80]]);
      assert.deepEqual(widths(tiles[2]!.get('srcset')), [
        [`${base}/thumb/${wide!.id}`, 480],
        [`${base}/medium/${wide!.id}`, 1024],
        [`${base}/large/${wide!.id}`, 1200],
      ]);
      assert.deepEqual([tiles[3]!.get('width'), tiles[3]!.get('height')], ['960', '640']);
    }
    // The embeddable view: its strip of photos is small and all of it lazy.
    const embed = (await visit(ctx, `${pages[0]}/embed`)).body;
    const strip = tags(embed, /<img\s+src="[^"]*\/thumb\/[^>]*>/g);
    assert.ok(strip.length > 0);
    assert.ok(strip.every((t) => t.get('loading') === 'lazy' && t.get('sizes') === '(min-width: 700px) 17vw, 33vw'));
  });

  test('a variant at its versioned URL is kept a year by any cache; elsewhere asked for each time', async () => {
    for (const base of pages) {
      const page = (await visit(ctx, base)).body;
      const versioned = new Set([...page.matchAll(/\/p\/[\w-]+\/(?:thumb|medium|large)\/med_[^"\s,?]+\?v=[\w-]{16}/g)].map((m) => m[0])); // prettier-ignore
      // Each photo's thumb and large (the viewer's), and the two wide ones' medium.
      assert.equal(versioned.size, 10, [...versioned].join('\n'));
      for (const url of versioned) {
        const res = await visit(ctx, url);
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.headers['cache-control'], YEAR, url);
        assertPropertyHeaders(res, url);
        const bare = url.replace(/\?v=.*/, '');
        for (const other of [bare, `${bare}?v=AAAAAAAAAAAAAAAA`]) {
          const r = await visit(ctx, other);
          assert.equal(r.statusCode, 200, other);
          assert.equal(r.headers['cache-control'], 'private, no-cache', other);
        }
      }
      assert.equal((await visit(ctx, base)).headers['cache-control'], 'no-cache', 'the page itself is never kept');
      assert.equal((await visit(ctx, `${base}/cover.jpg`)).headers['cache-control'], 'private, no-cache');
    }
  });

  test('taken down, its versioned URLs answer the 404 page, kept by no one', async () => {
    const q = await publishedProperty(ctx, p.account);
    const base = pathOf(q.page.url);
    const url = tags((await visit(ctx, base)).body, /<img\s+class="hero__image"[^>]*>/g)[0]!.get('src')!;
    assert.equal((await visit(ctx, url)).headers['cache-control'], YEAR);
    assert.equal((await unpublish(ctx, q.account.key, q.listingId)).statusCode, 204);
    const gone = await visit(ctx, url);
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.headers['cache-control'], 'no-store');
  });
});
