// The property pages over HTTP (docs/api.md §25): publishing, unpublishing and publishing again,
// who may be published, what archiving and deletion take down, what the branded, unbranded and
// embeddable views show and hide, their headers, Open Graph, oEmbed, views, and that no route
// under /p serves an original to download or a ZIP (the unbranded page plays no original at all).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTestContext, testModeOf, type TestContext } from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { visit } from '../../test/support/gallery.ts';
import {
  assertPropertyHeaders,
  brandedAccount,
  brandNeedles,
  BRAND,
  pathOf,
  publish,
  publishedProperty,
  unpublish,
  type PropertyPageJson,
  type PublishedProperty,
} from '../../test/support/property.ts';

const PUBLIC_URL = 'http://127.0.0.1:3000';

/** Every URL a page names: href, src, srcset items, data-* and content of meta tags. */
function urlsOf(page: string): string[] {
  const urls = [...page.matchAll(/\s(?:href|src|data-[a-z-]+|content)="([^"]*)"/g)].map((m) => m[1]!);
  for (const m of page.matchAll(/\ssrcset="([^"]*)"/g)) {
    for (const part of m[1]!.split(',')) urls.push(part.trim().split(/\s+/)[0]!);
  }
  return urls.map((u) => u.replaceAll('&amp;', '&')).filter((u) => u.startsWith('/') || /^https?:/.test(u));
}

const propertyOf = async (ctx: TestContext, key: string, id: string): Promise<PropertyPageJson | null> => {
  const res = await call(ctx, 'GET', `/v1/listings/${id}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ property_page: PropertyPageJson | null }>().property_page;
};

/** Every route a page of `base` serves, for the media of `p`. */
const routesOf = (base: string, p: PublishedProperty): string[] => [
  base,
  `${base}/embed`,
  `${base}/cover.jpg`,
  `${base}/thumb/${p.media[0]!.id}`,
  `${base}/large/${p.media[0]!.id}`,
  `${base}/media/${p.media[2]!.id}/play`,
];

async function assertAllGone(ctx: TestContext, urls: string[], label: string): Promise<void> {
  for (const url of urls) {
    const res = await visit(ctx, url);
    assert.equal(res.statusCode, 404, `${label}: ${url} answers ${res.statusCode}`);
    assert.match(String(res.headers['content-type']), /^text\/html/, label);
    assert.ok(res.body.includes('This property page is not available'), `${label}: ${url}`);
    assertPropertyHeaders(res, `${label} ${url}`, url.endsWith('/embed'));
  }
}

describe('property pages', () => {
  let ctx: TestContext;
  let p: PublishedProperty;
  let branded: string;
  let unbranded: string;

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL });
    p = await publishedProperty(ctx);
    branded = pathOf(p.page.url);
    unbranded = pathOf(p.page.unbranded_url);
  });
  after(() => ctx.close());

  test('PUT answers the gallery with two unguessable URLs; publishing again changes nothing', async () => {
    assert.match(p.page.url, /^http:\/\/127\.0\.0\.1:3000\/p\/[A-Za-z0-9_-]{32}$/);
    assert.match(p.page.unbranded_url, /^http:\/\/127\.0\.0\.1:3000\/p\/[A-Za-z0-9_-]{32}$/);
    assert.notEqual(p.page.url, p.page.unbranded_url);
    assert.equal(p.page.views, 0);
    assert.ok(!Number.isNaN(Date.parse(p.page.published_at)));
    assert.deepEqual(await propertyOf(ctx, p.account.key, p.listingId), p.page);
    const again = await publish(ctx, p.account.key, p.listingId);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json<{ property_page: PropertyPageJson }>().property_page, p.page);
    // The publish was a gallery update: listing.updated carries the gallery object with its page.
    const events = await call(ctx, 'GET', '/v1/events', { key: p.account.key, query: { type: 'listing.updated' } });
    const objects = events
      .json<{ data: { data: { object: { id: string; property_page: PropertyPageJson | null } } }[] }>()
      .data.map((e) => e.data.object)
      .filter((o) => o.id === p.listingId);
    assert.ok(
      objects.some((o) => o.property_page?.url === p.page.url),
      'no listing.updated event with the page',
    );
  });

  test('the branded page shows the studio, the property, its visible photos in order, video and documents', async () => {
    const res = await visit(ctx, branded);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    assertPropertyHeaders(res, 'branded page');
    const page = res.body;
    for (const text of [
      BRAND.studio,
      '7 Lantern Row, Port Ellis',
      '4 beds',
      '2.5 baths',
      '2,140 sq ft',
      'Bright rooms &amp; a walled garden &lt;b&gt;south-facing&lt;/b&gt;.',
      'floor-plan.pdf',
    ]) {
      assert.ok(page.includes(text), `the page lacks ${text}`);
    }
    const [front, kitchen, tour, plan] = p.media;
    assert.match(page, new RegExp(`class="hero__image"\\s+src="${branded}/large/${front!.id}\\?v=`));
    const photos = [...page.matchAll(/data-pswp-src="[^"]*\/large\/(med_[^"?]+)/g)].map((m) => m[1]);
    assert.deepEqual(photos, [front!.id, kitchen!.id], 'the visible photos, large, in position order');
    assert.match(page, new RegExp(`<video[^>]*src="${branded}/media/${tour!.id}/play(#t=[0-9.]+)?"`));
    assert.ok(!page.includes(p.hidden.id) && !page.includes('hidden-secret'), 'the hidden photo shows');
    // The document is listed, never offered.
    assert.ok(!page.includes(plan!.id), 'the document links somewhere');
    assert.ok(!/download/i.test(page), 'the page offers a download');
    assert.ok(!page.includes('.zip'), 'the page offers a ZIP');
  });

  test('Open Graph tags carry the title, description, absolute URL and absolute cover image', async () => {
    for (const [path, url] of [
      [branded, p.page.url],
      [unbranded, p.page.unbranded_url],
    ] as const) {
      const page = (await visit(ctx, path)).body;
      const meta = (property: string): string | undefined =>
        new RegExp(`<meta property="${property}" content="([^"]*)"`).exec(page)?.[1];
      assert.equal(meta('og:title'), '7 Lantern Row, Port Ellis');
      assert.match(meta('og:description') ?? '', /^4 beds · 2\.5 baths · 2,140 sq ft — Bright rooms/);
      assert.equal(meta('og:url'), url);
      assert.equal(meta('og:image'), `${url}/cover.jpg`);
      const cover = await visit(ctx, pathOf(`${url}/cover.jpg`));
      assert.equal(cover.statusCode, 200);
      assert.equal(cover.headers['content-type'], 'image/jpeg');
      assertPropertyHeaders(cover, 'cover');
    }
  });

  test('the unbranded page, its headers and everything it references name no one and link nowhere', async () => {
    const needles = brandNeedles();
    const seen = new Set<string>();
    const check = (label: string, text: string): void => {
      const lower = text.toLowerCase();
      for (const needle of needles) assert.ok(!lower.includes(needle), `${label} contains ${needle}`);
    };
    for (const path of [unbranded, `${unbranded}/embed`]) {
      const res = await visit(ctx, path);
      assert.equal(res.statusCode, 200);
      check(`${path} headers`, JSON.stringify(res.headers));
      check(path, res.body);
      assert.ok(!/<footer/.test(res.body) && !/class="studio"/.test(res.body), `${path} has a studio line`);
      const urls = urlsOf(res.body);
      assert.ok(urls.length > 8, `${path}: too few URLs found (${urls.length})`);
      for (const url of urls) {
        // Nothing links away: only this page's own URLs, the oEmbed discovery and the site's assets.
        if (/^https?:/.test(url)) {
          assert.ok(url.startsWith(`${PUBLIC_URL}/p/`) || url.startsWith(`${PUBLIC_URL}/oembed?`), `${path} → ${url}`);
        }
        const local = url.startsWith(PUBLIC_URL) ? url.slice(PUBLIC_URL.length) : url;
        if (seen.has(local)) continue;
        seen.add(local);
        const asset = await visit(ctx, local.split('#')[0]!);
        assert.equal(asset.statusCode, 200, `${local} answers ${asset.statusCode}`);
        check(`${local} headers`, JSON.stringify(asset.headers));
        check(local, asset.rawPayload.toString('latin1'));
      }
    }
    const oembed = await call(ctx, 'GET', '/oembed', { query: { url: p.page.unbranded_url, format: 'json' } });
    assert.equal(oembed.statusCode, 200);
    check('oembed', oembed.body);
    assert.equal(oembed.json<Record<string, unknown>>().author_name, undefined);
    // The branded page does name the studio (the test above would catch its absence there).
    assert.ok((await visit(ctx, branded)).body.includes(BRAND.studio));
  });

  test('views count page loads of either page and the embed (not HEAD), and move the ETag', async () => {
    const before = await call(ctx, 'GET', `/v1/listings/${p.listingId}`, { key: p.account.key });
    const etag = String(before.headers.etag);
    const start = before.json<{ property_page: PropertyPageJson }>().property_page.views;
    await visit(ctx, branded);
    await visit(ctx, unbranded);
    await visit(ctx, `${branded}/embed`);
    await visit(ctx, branded, { method: 'HEAD' });
    await visit(ctx, `${branded}/large/${p.media[0]!.id}`);
    assert.equal((await propertyOf(ctx, p.account.key, p.listingId))?.views, start + 3);
    const after = await call(ctx, 'GET', `/v1/listings/${p.listingId}`, {
      key: p.account.key,
      headers: { 'if-none-match': etag },
    });
    assert.equal(after.statusCode, 200, 'a view left the ETag unchanged');
    assert.notEqual(after.headers.etag, etag);
  });

  test('oEmbed answers a rich response whose html frames the embeddable view', async () => {
    const res = await call(ctx, 'GET', '/oembed', { query: { url: p.page.url, format: 'json' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json<Record<string, unknown>>();
    assert.equal(body.version, '1.0');
    assert.equal(body.type, 'rich');
    assert.equal(body.title, '7 Lantern Row, Port Ellis');
    assert.equal(body.author_name, BRAND.studio);
    assert.equal(typeof body.width, 'number');
    assert.equal(typeof body.height, 'number');
    assert.equal(body.thumbnail_url, `${p.page.url}/cover.jpg`);
    const html = String(body.html);
    const src = /^<iframe src="([^"]+)"/.exec(html)?.[1];
    assert.equal(src, `${p.page.url}/embed`);
    assert.match(html, new RegExp(`width="${String(body.width)}" height="${String(body.height)}"`));
    // Without format (json is the default), and with maxwidth.
    const narrow = await call(ctx, 'GET', '/oembed', { query: { url: p.page.url, maxwidth: '400' } });
    assert.equal(narrow.json<{ width: number }>().width, 400);
    // oEmbed's errors: not a live property page 404, another format 501, no url 400.
    const unknown = `${PUBLIC_URL}/p/${'A'.repeat(32)}`;
    for (const url of [
      unknown,
      'https://elsewhere.test/p/' + pathOf(p.page.url).slice(3),
      `${PUBLIC_URL}/g/x`,
      'nonsense',
    ]) {
      assert.equal((await call(ctx, 'GET', '/oembed', { query: { url, format: 'json' } })).statusCode, 404, url);
    }
    assert.equal((await call(ctx, 'GET', '/oembed', { query: { url: p.page.url, format: 'xml' } })).statusCode, 501);
    assert.equal((await call(ctx, 'GET', '/oembed')).statusCode, 400);
  });

  test('only the embeddable view may be framed; every response has the strict CSP', async () => {
    for (const base of [branded, unbranded]) {
      for (const url of routesOf(base, p)) {
        const res = await visit(ctx, url);
        // The video's variants failed: the unbranded page has no rendition to play, and never the original.
        const expected = base === unbranded && url.endsWith('/play') ? [404] : [200, 206];
        assert.ok(expected.includes(res.statusCode), `${url}: ${res.statusCode}`);
        assertPropertyHeaders(res, url, url.endsWith('/embed'));
      }
      assertPropertyHeaders(await visit(ctx, `${base}/nothing-here`), 'unknown path');
    }
    assertPropertyHeaders(await visit(ctx, `/p/${'B'.repeat(32)}`), 'unknown token');
  });

  test('no original, ZIP, hidden or foreign media under /p', async () => {
    const [front, , tour, plan] = p.media;
    const other = await publishedProperty(ctx, p.account);
    for (const base of [branded, unbranded]) {
      for (const url of [
        `${base}/download.zip`,
        `${base}/media/${front!.id}/download`,
        `${base}/media/${plan!.id}/download`,
        `${base}/media/${tour!.id}/download`,
        `${base}/media/${plan!.id}/play`,
        `${base}/media/${front!.id}/play`,
        `${base}/photo/${p.hidden.id}`,
        `${base}/photo/${plan!.id}`,
        `${base}/large/${p.hidden.id}`,
        `${base}/thumb/${p.hidden.id}`,
        `${base}/large/${other.media[0]!.id}`,
        `${base}/large/${tour!.id}`,
        ...(base === unbranded ? [`${base}/media/${tour!.id}/play`] : []),
      ]) {
        const res = await visit(ctx, url);
        assert.equal(res.statusCode, 404, `${url} answers ${res.statusCode}`);
      }
    }
    const page = (await visit(ctx, branded)).body;
    assert.ok(!page.includes(other.media[0]!.id));
    // A photo's own page (what it opens without JavaScript) offers no original either.
    const photo = await visit(ctx, `${unbranded}/photo/${front!.id}`);
    assert.equal(photo.statusCode, 200);
    assertPropertyHeaders(photo, 'photo page');
    assert.ok(photo.body.includes(`src="${unbranded}/large/${front!.id}?v=`));
    assert.ok(!/download/i.test(photo.body));
  });

  test('DELETE takes both pages down at once; publishing again gives new URLs', async () => {
    const q = await publishedProperty(ctx, p.account);
    const old = [pathOf(q.page.url), pathOf(q.page.unbranded_url)];
    const res = await unpublish(ctx, q.account.key, q.listingId);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal(await propertyOf(ctx, q.account.key, q.listingId), null);
    for (const base of old) await assertAllGone(ctx, routesOf(base, q), 'unpublished');
    assert.equal((await call(ctx, 'GET', '/oembed', { query: { url: q.page.url } })).statusCode, 404);
    // Unpublishing an unpublished gallery is still 204; another account's gallery is 404.
    assert.equal((await unpublish(ctx, q.account.key, q.listingId)).statusCode, 204);
    const stranger = await brandedAccount(ctx);
    assert.equal((await unpublish(ctx, stranger.key, q.listingId)).statusCode, 404);
    assert.equal((await publish(ctx, stranger.key, q.listingId)).statusCode, 404);

    const again = await publish(ctx, q.account.key, q.listingId);
    assert.equal(again.statusCode, 200);
    const page = again.json<{ property_page: PropertyPageJson }>().property_page;
    assert.notEqual(page.url, q.page.url);
    assert.notEqual(page.unbranded_url, q.page.unbranded_url);
    assert.equal((await visit(ctx, pathOf(page.url))).statusCode, 200);
    assert.equal((await visit(ctx, pathOf(page.unbranded_url))).statusCode, 200);
    for (const base of old) await assertAllGone(ctx, routesOf(base, q), 'replaced');
  });

  test('only an active gallery can be published; archiving or deleting takes its pages down', async () => {
    const me = p.account;
    const draft = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '2 Draft Lane' } });
    const draftId = draft.json<{ id: string }>().id;
    const refused = await publish(ctx, me.key, draftId);
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json<{ error: { code: string } }>().error.code, 'conflict');
    await call(ctx, 'PATCH', `/v1/listings/${draftId}`, { key: me.key, body: { status: 'archived' } });
    assert.equal((await publish(ctx, me.key, draftId)).statusCode, 409);
    assert.equal(await propertyOf(ctx, me.key, draftId), null);

    const q = await publishedProperty(ctx, me);
    const archived = await call(ctx, 'PATCH', `/v1/listings/${q.listingId}`, {
      key: me.key,
      body: { status: 'archived' },
    });
    assert.equal(archived.statusCode, 200);
    assert.equal(archived.json<{ property_page: unknown }>().property_page, null);
    for (const base of [pathOf(q.page.url), pathOf(q.page.unbranded_url)]) {
      await assertAllGone(ctx, routesOf(base, q), 'archived');
    }
    // Active again: not published again until asked.
    await call(ctx, 'PATCH', `/v1/listings/${q.listingId}`, { key: me.key, body: { status: 'active' } });
    assert.equal(await propertyOf(ctx, me.key, q.listingId), null);
    assert.equal((await visit(ctx, pathOf(q.page.url))).statusCode, 404);

    const r = await publishedProperty(ctx, me);
    assert.equal((await call(ctx, 'DELETE', `/v1/listings/${r.listingId}`, { key: me.key })).statusCode, 204);
    for (const base of [pathOf(r.page.url), pathOf(r.page.unbranded_url)]) {
      await assertAllGone(ctx, routesOf(base, r), 'deleted');
    }
  });

  test('a gallery without photos still publishes: no cover, no image tags', async () => {
    const me = p.account;
    const bare = await call(ctx, 'POST', '/v1/listings', {
      key: me.key,
      body: { address: '9 Empty Quay', status: 'active' },
    });
    const id = bare.json<{ id: string }>().id;
    const res = await publish(ctx, me.key, id);
    assert.equal(res.statusCode, 200);
    const url = res.json<{ property_page: PropertyPageJson }>().property_page.url;
    const page = await visit(ctx, pathOf(url));
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('9 Empty Quay'));
    assert.ok(!page.body.includes('og:image'));
    assert.equal((await visit(ctx, `${pathOf(url)}/cover.jpg`)).statusCode, 404);
    // A photo added later shows at once.
    await uploaded(ctx, me.key, id, [{ filename: 'later.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) }]);
    await makeVariantsNow(ctx);
    assert.ok((await visit(ctx, pathOf(url))).body.includes('og:image'));
  });

  test('pages of test data say Test mode (docs/api.md §20), still naming no studio when unbranded', async () => {
    const live = await brandedAccount(ctx);
    const test = await publishedProperty(ctx, await testModeOf(ctx, live));
    const banner = /<p class="test-mode" role="note"><strong>Test mode<\/strong>/;
    for (const url of [test.page.url, test.page.unbranded_url, `${test.page.url}/embed`]) {
      const res = await visit(ctx, pathOf(url));
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, banner, url);
    }
    const unbrandedTest = (await visit(ctx, pathOf(test.page.unbranded_url))).body;
    for (const needle of brandNeedles()) assert.ok(!unbrandedTest.includes(needle), needle);
    for (const url of [branded, unbranded]) assert.doesNotMatch((await visit(ctx, url)).body, /Test mode/);
  });
});
