// A public page view (/p, /g) changes only a gallery's counters, which only GET /v1/listings/:id
// shows (docs/api.md §17, decisions/0014): every other /v1 tag of the studio still answers 304
// after it, while the gallery's own tag changes with its counters (never a stale 304).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { linkedGallery, visit } from '../../test/support/gallery.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

let ctx: TestContext;
let owner: TestAccount;
let gallery: { listingId: string; path: string };
let propertyPath: string;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Viewed studio');
  gallery = await linkedGallery(ctx, owner, { status: 'active' });
  const res = await call(ctx, 'PUT', `/v1/listings/${gallery.listingId}/property_page`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  propertyPath = new URL(res.json<{ property_page: { url: string } }>().property_page.url).pathname;
});
after(() => ctx.close());

/** The tag of a read, fetched now. */
async function tagOf(url: string): Promise<string> {
  const res = await call(ctx, 'GET', url, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return String(res.headers.etag);
}

async function revalidate(url: string, etag: string) {
  return call(ctx, 'GET', url, { key: owner.key, headers: { 'if-none-match': etag } });
}

describe('public page views and /v1 ETags', () => {
  test("a property page view leaves the studio's other tags as they were; the gallery's own tag moves", async () => {
    const others = [
      '/v1/listings',
      '/v1/clients',
      `/v1/listings/${gallery.listingId}/media`,
      '/v1/events',
      '/v1/account',
    ];
    const tags = new Map<string, string>();
    for (const url of others) tags.set(url, await tagOf(url));
    const item = `/v1/listings/${gallery.listingId}`;
    const before = await call(ctx, 'GET', item, { key: owner.key });
    const itemTag = String(before.headers.etag);

    const viewed = await visit(ctx, propertyPath);
    assert.equal(viewed.statusCode, 200, viewed.body);

    for (const url of others) {
      const res = await revalidate(url, tags.get(url) ?? '');
      assert.equal(res.statusCode, 304, `${url} after a property page view: ${res.statusCode}`);
    }
    const res = await revalidate(item, itemTag);
    assert.equal(res.statusCode, 200, 'the page views changed: the old tag must not answer 304');
    assert.notEqual(String(res.headers.etag), itemTag);
    const views = (r: typeof res) => r.json<{ property_page: { views: number } }>().property_page.views;
    assert.equal(views(res), views(before) + 1);
  });

  test("a client gallery view moves the gallery's tag with its counters (never a stale 304)", async () => {
    // The view is also an event (client_link.viewed, docs/api.md §15), which raises the events
    // version (src/http/conditional.gallery-views.test.ts); the counters alone move this tag.
    const item = `/v1/listings/${gallery.listingId}`;
    const before = await call(ctx, 'GET', item, { key: owner.key });
    const viewed = await visit(ctx, gallery.path);
    assert.equal(viewed.statusCode, 200, viewed.body);
    const res = await revalidate(item, String(before.headers.etag));
    assert.equal(res.statusCode, 200);
    const views = (r: typeof res) => r.json<{ client_link: { views: number } }>().client_link.views;
    assert.equal(views(res), views(before) + 1);
  });

  test('any other change still moves every tag', async () => {
    const url = '/v1/clients';
    const tag = await tagOf(url);
    const res = await call(ctx, 'PATCH', `/v1/listings/${gallery.listingId}`, {
      key: owner.key,
      body: { description: 'Now with a garden' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await revalidate(url, tag)).statusCode, 200);
  });
});
