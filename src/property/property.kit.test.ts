// docs/api.md §32 on the property pages: while the kit is ready, the branded page links its branded
// items (the flyer, the slideshow, the reel, the teaser, the social images) and the unbranded page
// its unbranded slideshow alone, each served under the page's own path (/p/<token>/kit/<name>) as
// /v1 serves it (the same bytes and ETag, 304, one Range); no page offers the MLS pack, and neither
// page serves the other's items. Before a build, while stale, and once unpublished: no link, 404.
// Nothing the unbranded page links or serves names the studio or its client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTestContext, type Response, type TestContext } from '../../test/support/test-app.ts';
import { visit } from '../../test/support/gallery.ts';
import { buildKitNow } from '../../test/support/kit.ts';
import {
  brandNeedles,
  pathOf,
  publish,
  publishedProperty,
  unpublish,
  type PublishedProperty,
} from '../../test/support/property.ts';

const BRANDED_ITEMS = ['flyer', 'slideshow', 'reel', 'teaser', 'social_square', 'social_portrait', 'social_story'];
const EVERY_ITEM = [...BRANDED_ITEMS, 'mls_zip', 'slideshow_unbranded'];

let ctx: TestContext;
let p: PublishedProperty;
let branded: string;
let unbranded: string;

/** The kit items a page links (`/p/<token>/kit/<name>`), each once, in page order. */
function linked(body: string, base: string): string[] {
  const names = [...body.matchAll(new RegExp(`"${base}/kit/([a-z_]+)`, 'g'))].map((m) => m[1]!);
  return [...new Set(names)];
}

function assertNamesNoOne(label: string, res: Response): void {
  const text = `${JSON.stringify(res.headers)}\n${res.rawPayload.toString('latin1')}`.toLowerCase();
  for (const needle of brandNeedles()) assert.ok(!text.includes(needle), `${label} contains ${needle}`);
}

async function kitStatus(): Promise<string> {
  const res = await call(ctx, 'GET', `/v1/listings/${p.listingId}/kit`, { key: p.account.key });
  return res.json<{ status: string }>().status;
}

before(async () => {
  ctx = await createTestContext({
    ANALYSIS: 'off',
    KIT_SECONDS_PER_PHOTO: '2',
    GALLERY_RATE_LIMIT_PER_MINUTE: '100000',
  });
  p = await publishedProperty(ctx);
  branded = pathOf(p.page.url);
  unbranded = pathOf(p.page.unbranded_url);
});
after(() => ctx.close());

describe('the listing kit on the property pages', () => {
  test('before a build: no kit on either page, every item 404', async () => {
    for (const base of [branded, unbranded]) {
      const page = await visit(ctx, base);
      assert.equal(page.statusCode, 200);
      assert.deepEqual(linked(page.body, base), [], base);
      for (const name of EVERY_ITEM) assert.equal((await visit(ctx, `${base}/kit/${name}`)).statusCode, 404, name);
    }
  });

  test('building: still nothing', async () => {
    const res = await call(ctx, 'POST', `/v1/listings/${p.listingId}/kit`, { key: p.account.key });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(linked((await visit(ctx, branded)).body, branded), []);
    assert.equal((await visit(ctx, `${branded}/kit/flyer`)).statusCode, 404);
  });

  test('ready: the branded page links its branded items, the unbranded page its slideshow alone', async () => {
    await buildKitNow(ctx);
    assert.equal(await kitStatus(), 'ready');
    const page = await visit(ctx, branded);
    assert.deepEqual(linked(page.body, branded).sort(), [...BRANDED_ITEMS].sort());
    assert.match(page.body, /<h2 id="kit-title">Flyer and videos<\/h2>/);
    assert.match(
      page.body,
      new RegExp(`<video[^>]*poster="${branded}/large/[^"]+"[^>]*src="${branded}/kit/slideshow"`),
    );
    assert.match(page.body, new RegExp(`<img[^>]*src="${branded}/kit/social_story"`));
    assert.match(page.body, new RegExp(`href="${branded}/kit/flyer" download`));

    const plain = await visit(ctx, unbranded);
    assert.deepEqual(linked(plain.body, unbranded), ['slideshow_unbranded']);
    assert.match(plain.body, /<h2 id="kit-title">Slideshow<\/h2>/);
    assertNamesNoOne('the unbranded page', plain);
  });

  test('each item is the /v1 item: same bytes and ETag, 304, one Range; HEAD sends no body', async () => {
    const cases: [string, string, string][] = [
      ...BRANDED_ITEMS.map((name) => [branded, name, name] as [string, string, string]),
      [unbranded, 'slideshow_unbranded', 'slideshow_unbranded'],
    ];
    for (const [base, name, item] of cases) {
      const url = `${base}/kit/${name}`;
      const res = await visit(ctx, url);
      assert.equal(res.statusCode, 200, url);
      const api = await call(ctx, 'GET', `/v1/listings/${p.listingId}/kit/${item}`, { key: p.account.key });
      assert.equal(api.statusCode, 200);
      assert.deepEqual(res.rawPayload, api.rawPayload, url);
      assert.equal(res.headers.etag, api.headers.etag, url);
      assert.equal(res.headers['content-type'], api.headers['content-type'], url);
      assert.match(String(res.headers['content-disposition']), /^attachment; filename=[a-z-]+\.(pdf|mp4|jpg)$/, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['accept-ranges'], 'bytes');
      const same = await visit(ctx, url, { headers: { 'if-none-match': String(res.headers.etag) } });
      assert.equal(same.statusCode, 304, url);
      const part = await visit(ctx, url, { headers: { range: 'bytes=10-29' } });
      assert.equal(part.statusCode, 206, url);
      assert.deepEqual(part.rawPayload, api.rawPayload.subarray(10, 30), url);
      const head = await visit(ctx, url, { method: 'HEAD' });
      assert.equal(head.statusCode, 200, url);
      assert.equal(head.rawPayload.length, 0, url);
    }
    assertNamesNoOne('the unbranded slideshow', await visit(ctx, `${unbranded}/kit/slideshow_unbranded`));
  });

  test('no page offers the MLS pack, nor the other page’s items, nor a name that is no item', async () => {
    for (const name of ['mls_zip', 'slideshow_unbranded', 'nothing', 'flyer.pdf', '..']) {
      assert.equal((await visit(ctx, `${branded}/kit/${name}`)).statusCode, 404, `branded ${name}`);
    }
    for (const name of [...BRANDED_ITEMS, 'mls_zip', 'nothing']) {
      const res = await visit(ctx, `${unbranded}/kit/${name}`);
      assert.equal(res.statusCode, 404, `unbranded ${name}`);
      assertNamesNoOne(`unbranded ${name}`, res);
    }
  });

  test('stale after a change: the links go and the bytes are refused until it is rebuilt', async () => {
    const res = await call(ctx, 'PATCH', `/v1/listings/${p.listingId}`, {
      key: p.account.key,
      body: { description: 'A new description.' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await kitStatus(), 'stale');
    for (const [base, name] of [
      [branded, 'flyer'],
      [unbranded, 'slideshow_unbranded'],
    ] as const) {
      assert.deepEqual(linked((await visit(ctx, base)).body, base), [], base);
      assert.equal((await visit(ctx, `${base}/kit/${name}`)).statusCode, 404, base);
    }
    const rebuild = await call(ctx, 'POST', `/v1/listings/${p.listingId}/kit`, { key: p.account.key });
    assert.equal(rebuild.statusCode, 202, rebuild.body);
    await buildKitNow(ctx);
    assert.equal(await kitStatus(), 'ready');
    assert.equal((await visit(ctx, `${branded}/kit/flyer`)).statusCode, 200);
  });

  test('unpublished: both addresses and their items are gone; published again, the old ones stay gone', async () => {
    assert.equal((await unpublish(ctx, p.account.key, p.listingId)).statusCode, 204);
    assert.equal((await visit(ctx, `${branded}/kit/flyer`)).statusCode, 404);
    assert.equal((await visit(ctx, `${unbranded}/kit/slideshow_unbranded`)).statusCode, 404);
    const again = await publish(ctx, p.account.key, p.listingId);
    assert.equal(again.statusCode, 200, again.body);
    const page = again.json<{ property_page: { url: string } }>().property_page;
    assert.notEqual(pathOf(page.url), branded);
    assert.equal((await visit(ctx, `${branded}/kit/flyer`)).statusCode, 404, 'the old address stays gone');
  });
});
