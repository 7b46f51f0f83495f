// The client's portal (docs/api.md §28): `portal_url` on the client, POST .../portal/rotate, and the
// page at /c/<token>: every gallery assigned to the client (address, cover, status, link), newest
// first, paged by plain links; the client gallery's headers and rate limit (docs/api.md §14); each
// account's and each mode's data apart (docs/api.md §20); an unknown or replaced token the same 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clockOf } from '../lib/clock.ts';
import { WINDOW_MS } from '../http/rate-limit-store.ts';
import {
  call,
  createAccount,
  createTestContext,
  testModeOf,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { newClient, newGallery } from '../../test/support/notification-helpers.ts';
import { assertGalleryHeaders, visit } from '../../test/support/gallery.ts';

interface ClientJson {
  id: string;
  portal_url: string;
  updated_at: string;
}

const pathOf = (url: string): string => new URL(url).pathname;

async function getClient(ctx: TestContext, account: TestAccount, id: string): Promise<ClientJson> {
  const res = await call(ctx, 'GET', `/v1/clients/${id}`, { key: account.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<ClientJson>();
}

async function assignQuietly(ctx: TestContext, account: TestAccount, clientId: string, listingId: string) {
  const res = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, {
    key: account.key,
    query: { notify: 'false' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ client_link: { url: string } }>();
}

/** The addresses of the cards of a portal page, in order. */
const addressesOf = (page: string): string[] =>
  [...page.matchAll(/<h2>\s*(?:<a href="[^"]*">)?([^<]*?)(?:<\/a>)?\s*<\/h2>/g)].map((m) => m[1]!.trim());

const nextLinkOf = (page: string): string | undefined =>
  /rel="next" href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');

describe('portal_url and its rotation', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx);
  });
  after(() => ctx.close());

  test('every client has an unguessable portal_url; rotate replaces it and the old one is 404', async () => {
    const client = await newClient(ctx, owner);
    const created = await getClient(ctx, owner, client.id);
    const url = new URL(created.portal_url);
    assert.equal(url.origin, new URL(ctx.deps.config.publicUrl).origin);
    assert.match(url.pathname, /^\/c\/[A-Za-z0-9_-]{32}$/, 'at least 128 random bits');
    const other = await getClient(ctx, owner, (await newClient(ctx, owner)).id);
    assert.notEqual(other.portal_url, created.portal_url);
    assert.equal((await visit(ctx, url.pathname)).statusCode, 200);

    const rotated = await call(ctx, 'POST', `/v1/clients/${client.id}/portal/rotate`, { key: owner.key });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const body = rotated.json<ClientJson>();
    assert.equal(body.id, client.id);
    assert.notEqual(body.portal_url, created.portal_url);
    assert.deepEqual(await getClient(ctx, owner, client.id), body, 'GET answers what rotate answered');
    const old = await visit(ctx, url.pathname);
    assert.equal(old.statusCode, 404);
    assert.match(old.body, /no longer available/);
    assertGalleryHeaders(old, 'the old portal');
    assert.equal((await visit(ctx, pathOf(body.portal_url))).statusCode, 200);

    // The event says the client changed, with the new URL.
    const events = await call(ctx, 'GET', '/v1/events', { key: owner.key, query: { type: 'client.updated' } });
    const [latest] = events.json<{ data: { data: { object: ClientJson } }[] }>().data;
    assert.equal(latest?.data.object.portal_url, body.portal_url);
  });

  test("rotate: another account's client, an unknown id and a read-only key are refused", async () => {
    const client = await newClient(ctx, owner);
    const stranger = await createAccount(ctx);
    const path = `/v1/clients/${client.id}/portal/rotate`;
    assert.equal((await call(ctx, 'POST', path, { key: stranger.key })).statusCode, 404);
    assert.equal((await call(ctx, 'POST', '/v1/clients/cli_nope/portal/rotate', { key: owner.key })).statusCode, 404);
    assert.equal((await call(ctx, 'POST', '/v1/clients/x/portal/rotate', { key: owner.key })).statusCode, 404);
    const { key: readOnly } = await ctx.services.apiKeys.create(owner.accountId, { name: 'ro', scope: 'read_only' });
    assert.equal((await call(ctx, 'POST', path, { key: readOnly })).statusCode, 403);
  });
});

describe('the portal page', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx, 'Harbour <Light> & Co');
  });
  after(() => ctx.close());

  test("lists the client's galleries newest first, with address, status, cover and gallery link", async () => {
    const client = await newClient(ctx, owner, { name: 'Ann <Lee>' });
    const older = await newGallery(ctx, owner, { address: '1 Old <Rd>', status: 'active', beds: 2 });
    const newer = await newGallery(ctx, owner, { address: '2 New Rd', status: 'draft' });
    const notHers = await newGallery(ctx, owner, { address: '3 Someone Else Rd' });
    const [photo] = await uploaded(ctx, owner.key, older.id, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: await jpeg(64, 48) },
    ]);
    await makeVariantsNow(ctx);
    const olderLink = (await assignQuietly(ctx, owner, client.id, older.id)).client_link.url;
    const newerLink = (await assignQuietly(ctx, owner, client.id, newer.id)).client_link.url;
    await assignQuietly(ctx, owner, (await newClient(ctx, owner)).id, notHers.id);

    const portal = pathOf((await getClient(ctx, owner, client.id)).portal_url);
    const res = await visit(ctx, portal);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assertGalleryHeaders(res, 'the portal');
    const page = res.body;
    assert.deepEqual(addressesOf(page), ['2 New Rd', '1 Old &lt;Rd&gt;'], 'newest first, escaped');
    assert.ok(!page.includes('Someone Else'), "another client's gallery is not listed");
    assert.ok(page.includes(`href="${pathOf(olderLink)}"`) && page.includes(`href="${pathOf(newerLink)}"`));
    assert.match(page, /data-status="draft"[\s\S]*In preparation/);
    assert.match(page, /data-status="active"[\s\S]*Ready/);
    assert.match(page, /Harbour &lt;Light&gt; &amp; Co/);
    assert.match(page, /Ann &lt;Lee&gt;/);
    // The cover: the photo's thumb under the portal's own URL, served while the link is open.
    const cover = new RegExp(`src="(${portal}/thumb/${photo!.id}\\?v=[^"]+)"`).exec(page)?.[1];
    assert.ok(cover !== undefined, 'the cover is shown');
    const image = await visit(ctx, cover);
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-type'], 'image/webp');
    assertGalleryHeaders(image, 'a cover');
    // Only covers: another gallery's photo, or a photo of another client, is the 404.
    assert.equal((await visit(ctx, `${portal}/thumb/med_nope`)).statusCode, 404);
    assert.equal((await visit(ctx, `${portal}/cover.jpg`)).statusCode, 404);

    // A password on the gallery's link: the card stays, its cover is no longer served.
    const locked = await call(ctx, 'PATCH', `/v1/listings/${older.id}/client_link`, {
      key: owner.key,
      body: { password: 'a good password' },
    });
    assert.equal(locked.statusCode, 200, locked.body);
    const after = (await visit(ctx, portal)).body;
    assert.match(after, /Asks for a password/);
    assert.ok(!after.includes(`/thumb/${photo!.id}`));
    assert.equal((await visit(ctx, cover)).statusCode, 404);

    // Unassigned: gone from the portal; the client deleted: the portal is gone.
    await call(ctx, 'DELETE', `/v1/clients/${client.id}/listings/${newer.id}`, { key: owner.key });
    assert.deepEqual(addressesOf((await visit(ctx, portal)).body), ['1 Old &lt;Rd&gt;']);
    await call(ctx, 'DELETE', `/v1/clients/${client.id}`, { key: owner.key });
    assert.equal((await visit(ctx, portal)).statusCode, 404);
  });

  test('a client with no gallery sees an empty portal; unknown tokens and paths are the 404 page', async () => {
    const client = await newClient(ctx, owner);
    const portal = pathOf((await getClient(ctx, owner, client.id)).portal_url);
    const res = await visit(ctx, portal);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /No galleries yet/);
    assert.ok(!res.body.includes('rel="next"'));
    for (const url of [`/c/${'A'.repeat(32)}`, '/c/short', `${portal}/nothing`, '/c/%zz', `${portal}?cursor=bogus`]) {
      const gone = await visit(ctx, url);
      assert.equal(gone.statusCode, 404, url);
      assert.match(gone.body, /no longer available/, url);
      assertGalleryHeaders(gone, url);
    }
  });

  test('200 galleries: pages of 24 by plain links, every gallery once, and no other portal takes the cursor', async () => {
    const client = await newClient(ctx, owner);
    const expected: string[] = [];
    for (let i = 0; i < 200; i++) {
      const g = await newGallery(ctx, owner, { address: `${i} Paged Rd` });
      await assignQuietly(ctx, owner, client.id, g.id);
      expected.unshift(`${i} Paged Rd`);
    }
    const portal = pathOf((await getClient(ctx, owner, client.id)).portal_url);
    const seen: string[] = [];
    let url: string | undefined = portal;
    let pages = 0;
    let second: string | undefined;
    while (url !== undefined) {
      const res = await visit(ctx, url);
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /200 galleries shared/);
      const cards = addressesOf(res.body);
      assert.ok(cards.length <= 24);
      seen.push(...cards);
      pages += 1;
      url = nextLinkOf(res.body);
      if (pages === 1) second = url;
      if (url !== undefined) assert.ok(url.startsWith(`${portal}?cursor=`), url);
    }
    assert.equal(pages, 9);
    assert.deepEqual(seen, expected);
    // A cursor is this portal's only: another client's portal answers the 404 with it.
    const other = pathOf((await getClient(ctx, owner, (await newClient(ctx, owner)).id)).portal_url);
    const query = second!.slice(second!.indexOf('?'));
    assert.equal((await visit(ctx, `${other}${query}`)).statusCode, 404);
  });
});

describe('the portal across accounts and modes', () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  test('a test-mode client has its own portal, marked Test mode, listing only test galleries', async () => {
    const live = await createAccount(ctx);
    const test = await testModeOf(ctx, live);
    const liveClient = await newClient(ctx, live);
    const testClient = await newClient(ctx, test);
    const g = await newGallery(ctx, test, { address: '9 Test Rd' });
    await assignQuietly(ctx, test, testClient.id, g.id);
    const liveGallery = await newGallery(ctx, live, { address: '8 Live Rd' });
    await assignQuietly(ctx, live, liveClient.id, liveGallery.id);
    // The other mode's key cannot see or rotate the client.
    assert.equal(
      (await call(ctx, 'POST', `/v1/clients/${testClient.id}/portal/rotate`, { key: live.key })).statusCode,
      404,
    );
    assert.equal(
      (await call(ctx, 'POST', `/v1/clients/${liveClient.id}/portal/rotate`, { key: test.key })).statusCode,
      404,
    );
    const testPage = (await visit(ctx, pathOf((await getClient(ctx, test, testClient.id)).portal_url))).body;
    assert.match(testPage, /Test mode/);
    assert.deepEqual(addressesOf(testPage), ['9 Test Rd']);
    const livePage = (await visit(ctx, pathOf((await getClient(ctx, live, liveClient.id)).portal_url))).body;
    assert.ok(!livePage.includes('Test mode'));
    assert.deepEqual(addressesOf(livePage), ['8 Live Rd']);
    // Deleting the test data takes the test client's portal with it.
    const testUrl = pathOf((await getClient(ctx, test, testClient.id)).portal_url);
    assert.equal((await call(ctx, 'DELETE', '/v1/test_data', { key: test.key })).statusCode, 202);
    assert.equal((await visit(ctx, testUrl)).statusCode, 404);
  });
});

describe('the portal rate limit per client address', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    // As the gallery's suite: fixed minute windows, starting 10 s into one.
    const shift = WINDOW_MS + 10_000 - (Date.now() % WINDOW_MS);
    ctx = await createTestContext({ GALLERY_RATE_LIMIT_PER_MINUTE: '5' }, { clock: clockOf(() => Date.now() + shift) });
    owner = await createAccount(ctx);
  });
  after(() => ctx.close());

  test('over GALLERY_RATE_LIMIT_PER_MINUTE an address gets the 429 page with Retry-After', async () => {
    const client = await newClient(ctx, owner);
    const portal = pathOf((await getClient(ctx, owner, client.id)).portal_url);
    const from = '198.51.100.8';
    for (let i = 0; i < 5; i++) {
      const res = await visit(ctx, i % 2 === 0 ? portal : `/c/${'Q'.repeat(32)}`, { remoteAddress: from });
      assert.ok([200, 404].includes(res.statusCode), `request ${i + 1}: ${res.statusCode}`);
    }
    for (const url of [portal, `/c/${'Q'.repeat(32)}`, '/c/%zz']) {
      const res = await visit(ctx, url, { remoteAddress: from });
      assert.equal(res.statusCode, 429, url);
      assert.match(res.body, /Too many requests/);
      assert.ok(Number(res.headers['retry-after']) >= 1, url);
      assertGalleryHeaders(res, `429 for ${url}`);
    }
    assert.equal((await visit(ctx, portal, { remoteAddress: '203.0.113.10' })).statusCode, 200);
  });
});
