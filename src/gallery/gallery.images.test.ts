// The client gallery's images as a phone loads them (issue 37 §5): the cover preloaded and asked
// for first, every image a responsive set of the variants made, sized (no layout shift), lazy
// below the first row; and how long a browser may keep the bytes: a year at a versioned URL of an
// open link (private: no shared cache), never beyond `private, no-cache` for a link behind a
// password or with an end date.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts'; // prettier-ignore
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { assertGalleryHeaders, linkedGallery, visit, type LinkedGallery } from '../../test/support/gallery.ts';

const YEAR = 'private, max-age=31536000, immutable';
const DAY = 24 * 60 * 60 * 1000;

/** The attributes of every <img> (or <link>) tag matching `pattern`, in document order. */
const tags = (page: string, pattern: RegExp): Map<string, string>[] =>
  [...page.matchAll(pattern)].map(
    (m) => new Map([...m[0].matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])),
  );

/** A srcset's entries as [url, width]. */
const entries = (srcset: string | undefined): [string, number][] =>
  (srcset ?? '').split(', ').map((e) => {
    const [url, w] = e.split(' ');
    return [url!, Number(w!.replace(/w$/, ''))];
  });

describe('the client gallery: responsive, lazy and cached images', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let linked: LinkedGallery;
  let photos: MediaJson[];

  before(async () => {
    ctx = await createTestContext({ GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    owner = await createAccount(ctx, 'Quayside Studio');
    linked = await linkedGallery(ctx, owner);
    const files = [];
    for (const [i, w] of [1200, 900, 960, 600].entries()) {
      files.push({ filename: `p${i}.jpg`, contentType: 'image/jpeg', data: await jpeg(w, (w / 3) * 2) });
    }
    photos = await uploaded(ctx, owner.key, linked.listingId, files);
    await makeVariantsNow(ctx);
  });
  after(() => ctx.close());

  test('the cover is preloaded and asked for first; every photo is a responsive set, sized, lazy below the first row', async () => {
    const res = await visit(ctx, linked.path);
    assert.equal(res.statusCode, 200);
    const page = res.body;
    const [hero] = tags(page, /<img\s+class="hero__image"[^>]*>/g);
    assert.ok(hero !== undefined, 'no cover');
    const cover = photos[0]!;
    assert.match(hero.get('src')!, new RegExp(`^${linked.path}/large/${cover.id}\\?v=[\\w-]{16}$`));
    assert.equal(hero.get('fetchpriority'), 'high');
    assert.equal(hero.get('loading'), undefined, 'the cover is never lazy');
    assert.equal(hero.get('sizes'), '(min-width: 1280px) 1200px, 100vw');
    assert.deepEqual([hero.get('width'), hero.get('height')], ['1200', '800']);
    // The variants by width: the thumbnail (480), the medium (1024) and the large (the photo's own 1200).
    const set = entries(hero.get('srcset'));
    assert.deepEqual(
      set.map(([url, w]) => [url.replace(/\?v=.*/, ''), w]),
      [
        [`${linked.path}/thumb/${cover.id}`, 480],
        [`${linked.path}/medium/${cover.id}`, 1024],
        [`${linked.path}/large/${cover.id}`, 1200],
      ],
    );
    assert.ok(
      set.every(([url]) => /\?v=[\w-]{16}$/.test(url)),
      'every URL names its bytes',
    );

    // The preload, before the stylesheets, asks for exactly what the <img> will pick.
    const [preload] = tags(page, /<link\s+rel="preload"[^>]*>/g);
    assert.ok(preload !== undefined, 'no preload of the cover');
    assert.equal(preload.get('as'), 'image');
    assert.equal(preload.get('href'), hero.get('src'));
    assert.equal(preload.get('imagesrcset'), hero.get('srcset'));
    assert.equal(preload.get('imagesizes'), hero.get('sizes'));
    assert.equal(preload.get('fetchpriority'), 'high');
    assert.ok(page.indexOf('rel="preload"') < page.indexOf('rel="stylesheet"'), 'the preload comes after the CSS');

    const tiles = tags(page, /<img\s+src="[^"]*\/thumb\/[^>]*>/g);
    assert.equal(tiles.length, photos.length);
    assert.deepEqual(
      tiles.map((t) => t.get('loading')),
      ['eager', 'eager', 'lazy', 'lazy'],
      'the first row (two on a phone) at once, the rest when near',
    );
    for (const [i, t] of tiles.entries()) {
      assert.equal(t.get('decoding'), 'async');
      assert.equal(t.get('sizes'), '(min-width: 1280px) 300px, (min-width: 700px) 33vw, 50vw');
      assert.ok(Number(t.get('width')) > 0 && Number(t.get('height')) > 0, 'a tile without its size');
      // A tile is at most a third of the page: the thumbnail or, on a dense screen, the medium.
      assert.deepEqual(
        entries(t.get('srcset')).map(([url, w]) => [url.replace(/\?v=.*/, ''), w]),
        [
          [`${linked.path}/thumb/${photos[i]!.id}`, 480],
          [`${linked.path}/medium/${photos[i]!.id}`, [1024, 900, 960, 600][i]],
        ],
      );
    }
    // Every versioned URL on the page answers its bytes.
    for (const [url] of [...set, ...tiles.flatMap((t) => entries(t.get('srcset')))]) {
      assert.equal((await visit(ctx, url.replaceAll('&amp;', '&'))).statusCode, 200, url);
    }
  });

  test("an open link's variants stay a year in the browser at their versioned URL, and only there", async () => {
    const page = (await visit(ctx, linked.path)).body;
    const [hero] = tags(page, /<img\s+class="hero__image"[^>]*>/g);
    const versioned = hero!.get('src')!;
    const bare = versioned.replace(/\?v=.*/, '');
    const res = await visit(ctx, versioned);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], YEAR);
    assertGalleryHeaders(res, versioned);
    // A 304 says the same.
    const again = await visit(ctx, versioned, { headers: { 'if-none-match': String(res.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers['cache-control'], YEAR);
    // Without the version, or with another one, the bytes may change: asked for each time.
    for (const url of [bare, `${bare}?v=AAAAAAAAAAAAAAAA`, `${bare}?v=`]) {
      const r = await visit(ctx, url);
      assert.equal(r.statusCode, 200, url);
      assert.equal(r.headers['cache-control'], 'private, no-cache', url);
    }
    // The page itself is never kept.
    assert.equal((await visit(ctx, linked.path)).headers['cache-control'], 'private, no-cache');
  });

  async function versionedOf(g: LinkedGallery, cookie?: string): Promise<string> {
    const page = await visit(ctx, g.path, cookie === undefined ? {} : { headers: { cookie } });
    assert.equal(page.statusCode, 200);
    return tags(page.body, /<img\s+class="hero__image"[^>]*>/g)[0]!.get('src')!;
  }

  async function galleryWithPhoto(): Promise<LinkedGallery> {
    const g = await linkedGallery(ctx, owner);
    await uploaded(ctx, owner.key, g.listingId, [
      { filename: 'porch.jpg', contentType: 'image/jpeg', data: await jpeg(600, 400) },
    ]);
    await makeVariantsNow(ctx);
    return g;
  }

  const patchLink = async (g: LinkedGallery, body: Record<string, unknown>) => {
    const res = await call(ctx, 'PATCH', `/v1/listings/${g.listingId}/client_link`, { key: owner.key, body });
    assert.equal(res.statusCode, 200, res.body);
  };

  test('a link behind a password keeps its bytes private, no-cache, even at the versioned URL', async () => {
    const g = await galleryWithPhoto();
    const versioned = await versionedOf(g);
    await patchLink(g, { password: 'correct horse' });
    const locked = await visit(ctx, versioned);
    assert.equal(locked.statusCode, 403, 'the bytes passed the lock');
    assert.equal(locked.headers['cache-control'], 'private, no-store');
    const unlocked = await ctx.app.inject({
      method: 'POST',
      url: `${g.path}/unlock`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'password=correct+horse',
      remoteAddress: '127.0.0.1',
    });
    assert.equal(unlocked.statusCode, 303);
    const cookie = String(unlocked.headers['set-cookie']).split(';')[0]!;
    const url = await versionedOf(g, cookie);
    const res = await visit(ctx, url, { headers: { cookie } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'private, no-cache', 'a locked gallery is kept past its lock');
    assertGalleryHeaders(res, url);
  });

  test('a link with an end date keeps its bytes private, no-cache: none outlives the date', async () => {
    const g = await galleryWithPhoto();
    await patchLink(g, { expires_at: new Date(Date.now() + 5 * DAY).toISOString() });
    const url = await versionedOf(g);
    const res = await visit(ctx, url);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    // The end date removed: the link is open again, and its variants may be kept.
    await patchLink(g, { expires_at: null });
    assert.equal((await visit(ctx, url)).headers['cache-control'], YEAR);
  });
});
