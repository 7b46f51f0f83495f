// The client gallery over HTTP (docs/api.md §14): what the page shows and hides, the headers on every
// response under /g (its 404, 416 and 429 pages and the router's own refusals included), the rate
// limit per client address, videos played with Range, and that a link reaches its own gallery's
// visible media only, whatever the path names.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { clockOf } from '../lib/clock.ts';
import { WINDOW_MS } from '../http/rate-limit-store.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg, mp4, pdf } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, mediaRows, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { patchGallery, patchMedia } from '../../test/support/gallery-order.ts';
import {
  assertGalleryHeaders,
  assertGone,
  linkedGallery,
  notAvailablePage,
  visit,
  type LinkedGallery,
} from '../../test/support/gallery.ts';

/** A video file: an MP4 header, then enough bytes for ranges to mean something. */
const video = Buffer.concat([mp4(), randomBytes(64 * 1024)]);

/** Every URL (href, src, data-*) in a page, in document order. */
const urlsOf = (page: string): string[] =>
  [...page.matchAll(/\s(?:href|src|data-[a-z]+)="([^"]*)"/g)].map((m) => m[1]!).filter((u) => u.includes('/'));

describe('the client gallery page and its files', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let stranger: TestAccount;
  let linked: LinkedGallery;
  let media: MediaJson[];
  let hiddenPhoto: MediaJson;
  let sibling: LinkedGallery;
  let siblingPhoto: MediaJson;
  let foreign: LinkedGallery;
  let foreignPhoto: MediaJson;

  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx, 'Harbour <Light> & Co');
    stranger = await createAccount(ctx, 'Other Studio');
    linked = await linkedGallery(ctx, owner, {
      address: '12 Quay St <b>bold</b>',
      beds: 3,
      baths: 2.5,
      sqft: 1850,
      description: 'Sea views & "light" <script>alert(1)</script>',
    });
    media = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: await jpeg(64, 48) },
      { filename: 'secret.jpg', contentType: 'image/jpeg', data: await jpeg(48, 64) },
      { filename: 'kitchen.jpg', contentType: 'image/jpeg', data: await jpeg(60, 40) },
      { filename: 'tour.mp4', contentType: 'video/mp4', data: video },
      { filename: 'floor plan.pdf', contentType: 'application/pdf', data: pdf('plan') },
    ]);
    hiddenPhoto = media[1]!;
    assert.equal(
      (await patchMedia(ctx, owner.key, linked.listingId, hiddenPhoto.id, { hidden: true })).statusCode,
      200,
    );
    sibling = await linkedGallery(ctx, owner);
    siblingPhoto = (
      await uploaded(ctx, owner.key, sibling.listingId, [
        { filename: 'sibling.jpg', contentType: 'image/jpeg', data: await jpeg(30, 30) },
      ])
    )[0]!;
    foreign = await linkedGallery(ctx, stranger);
    foreignPhoto = (
      await uploaded(ctx, stranger.key, foreign.listingId, [
        { filename: 'foreign.jpg', contentType: 'image/jpeg', data: await jpeg(30, 20) },
      ])
    )[0]!;
    await makeVariantsNow(ctx);
  });
  after(() => ctx.close());

  const visible = () => media.filter((m) => m.id !== hiddenPhoto.id);

  test('the page shows the studio, the gallery, the cover and every visible item in position order', async () => {
    const res = await visit(ctx, linked.path);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    const page = res.body;
    for (const text of [
      'Harbour &lt;Light&gt; &amp; Co',
      '12 Quay St &lt;b&gt;bold&lt;/b&gt;',
      '3 beds',
      '2.5 baths',
      '1,850 sq ft',
      'Sea views &amp; &quot;light&quot; &lt;script&gt;alert(1)&lt;/script&gt;',
    ]) {
      assert.ok(page.includes(text), `the page lacks ${text}`);
    }
    assert.ok(!page.includes('<script>alert'), 'a field injected markup');
    const [front, , kitchen, tour, plan] = media;
    assert.ok(page.includes(`src="${linked.path}/large/${front!.id}?v=`), 'the cover is the first visible photo');
    const thumbs = [...page.matchAll(/src="[^"]*\/thumb\/(med_[^"?]+)/g)].map((m) => m[1]);
    assert.deepEqual(thumbs, [front!.id, kitchen!.id]);
    // Without JavaScript a thumbnail opens the photo's page (the large size, fitted); the viewer
    // script opens the large size itself.
    assert.ok(page.includes(`href="${linked.path}/photo/${front!.id}"`), "a thumbnail opens the photo's page");
    assert.ok(page.includes(`data-pswp-src="${linked.path}/large/${front!.id}?v=`), 'the viewer opens the large size');
    assert.match(page, new RegExp(`<video[^>]*src="${linked.path}/media/${tour!.id}/play(#t=[0-9.]+)?"`));
    assert.ok(page.includes(`href="${linked.path}/media/${plan!.id}/download"`));
    assert.ok(page.includes(`href="${linked.path}/download.zip"`));
    assert.ok(!page.includes(hiddenPhoto.id), 'the hidden photo is named on the page');
    assert.ok(!page.includes('secret.jpg'));

    // Moving the kitchen first moves it first on the page (and makes it the cover).
    assert.equal((await patchMedia(ctx, owner.key, linked.listingId, kitchen!.id, { position: 1 })).statusCode, 200);
    const moved = (await visit(ctx, linked.path)).body;
    assert.deepEqual(
      [...moved.matchAll(/src="[^"]*\/thumb\/(med_[^"?]+)/g)].map((m) => m[1]),
      [kitchen!.id, front!.id],
    );
    assert.ok(moved.includes(`src="${linked.path}/large/${kitchen!.id}?v=`));
    assert.equal((await patchMedia(ctx, owner.key, linked.listingId, kitchen!.id, { position: 3 })).statusCode, 200);
  });

  test('no key, account, gallery or client id, storage path or API URL in the page or its URLs', async () => {
    const page = (await visit(ctx, linked.path)).body;
    const rows = await mediaRows(ctx, linked.listingId);
    const secrets = [
      owner.key,
      owner.keyId,
      owner.accountId,
      owner.email,
      linked.listingId,
      linked.clientId,
      ctx.dataDir,
      ...rows.map((r) => r.storage_key),
      '/v1/',
      'lst_',
      'acc_',
      'cli_',
    ];
    for (const secret of secrets) assert.ok(!page.includes(secret), `the page carries ${secret}`);
    const urls = urlsOf(page);
    assert.ok(urls.length > 8, urls.join(' '));
    for (const url of urls) {
      assert.match(url, /^\/g\//, `${url} is not this site's own /g URL`);
      for (const secret of secrets) assert.ok(!url.includes(secret), `${url} carries ${secret}`);
    }
  });

  test('every URL the page names answers with the /g headers', async () => {
    const page = (await visit(ctx, linked.path)).body;
    const urls = [...new Set(urlsOf(page))];
    for (const url of urls) {
      const res = await visit(ctx, url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
      assertGalleryHeaders(res, url);
    }
    for (const url of [`${linked.path}/cover.jpg`, linked.path]) assertGalleryHeaders(await visit(ctx, url), url);
  });

  test('thumbnails and large photos are shown inline; originals download as attachments', async () => {
    const list = await call(ctx, 'GET', `/v1/listings/${linked.listingId}/media`, { key: owner.key });
    const front = list.json<{ data: MediaJson[] }>().data.find((m) => m.id === media[0]!.id)!;
    for (const [name, type] of [
      ['thumb', 'image/webp'],
      ['large', 'image/jpeg'],
    ] as const) {
      const res = await visit(ctx, `${linked.path}/${name}/${front.id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], type);
      assert.match(String(res.headers['content-disposition']), /^inline/);
      assert.equal(res.rawPayload.length, front.variants![name]!.size);
    }
    const original = await visit(ctx, `${linked.path}/media/${front.id}/download`);
    assert.equal(original.statusCode, 200);
    assert.match(String(original.headers['content-disposition']), /^attachment; filename="?front\.jpg"?$/);
    assert.equal(original.headers['content-type'], 'image/jpeg');
    assert.equal(original.headers['x-content-type-options'], 'nosniff');
    const cover = await visit(ctx, `${linked.path}/cover.jpg`);
    assert.equal(cover.headers['content-type'], 'image/jpeg');
  });

  test('videos play in the page: Range answers 206 with exactly those bytes', async () => {
    const tour = media[3]!;
    const url = `${linked.path}/media/${tour.id}/play`;
    const whole = await visit(ctx, url);
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['content-type'], 'video/mp4');
    assert.equal(whole.headers['accept-ranges'], 'bytes');
    assert.match(String(whole.headers['content-disposition']), /^inline/);
    assert.ok(whole.rawPayload.equals(video));
    const size = video.length;
    for (const [range, start, end] of [
      ['bytes=0-1', 0, 1],
      ['bytes=0-', 0, size - 1],
      ['bytes=100-4095', 100, 4095],
      ['bytes=65536-', 65536, size - 1],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=${size - 1}-${size + 1000}`, size - 1, size - 1],
    ] as const) {
      const res = await visit(ctx, url, { headers: { range } });
      assert.equal(res.statusCode, 206, range);
      assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size}`, range);
      assert.equal(res.headers['content-length'], String(end - start + 1), range);
      assert.ok(res.rawPayload.equals(video.subarray(start, end + 1)), range);
      assertGalleryHeaders(res, `play ${range}`);
    }
    const beyond = await visit(ctx, url, { headers: { range: `bytes=${size}-` } });
    assert.equal(beyond.statusCode, 416);
    assert.equal(beyond.headers['content-range'], `bytes */${size}`);
    assert.match(String(beyond.headers['content-type']), /^text\/html/);
    assertGalleryHeaders(beyond, 'the 416 page');
    // Only videos play: a photo or a document is not served this way.
    for (const other of [media[0]!, media[4]!]) {
      await assertGone(ctx, `${linked.path}/media/${other.id}/play`, `play of a ${other.kind}`);
    }
  });

  test("another gallery's media, of this account or another, is never reachable through a link", async () => {
    const ownPhoto = media[0]!;
    const attempts: [string, MediaJson][] = [
      [linked.path, siblingPhoto],
      [linked.path, foreignPhoto],
      [linked.path, hiddenPhoto],
      [sibling.path, ownPhoto],
      [foreign.path, ownPhoto],
      [foreign.path, siblingPhoto],
    ];
    for (const [path, item] of attempts) {
      for (const suffix of ['thumb/ID', 'large/ID', 'media/ID/download', 'media/ID/play']) {
        const url = `${path}/${suffix.replace('ID', item.id)}`;
        await assertGone(ctx, url, `${item.filename} through another link`);
        await assertGone(ctx, `${url}?listing_id=${item.listing_id}`, 'with the gallery named in the query');
      }
    }
    // Paths that try to climb out of the link, or name storage, are the same plain 404.
    const rows = await mediaRows(ctx, sibling.listingId);
    for (const url of [
      `${linked.path}/media/..%2F..%2F${siblingPhoto.id}/download`,
      `${linked.path}/media/${encodeURIComponent(rows[0]!.storage_key)}/download`,
      `${linked.path}/../${sibling.path.slice(3)}/media/${siblingPhoto.id}/download`,
      `${linked.path}/thumb/${ownPhoto.id}/../../../${foreign.path.slice(3)}/thumb/${foreignPhoto.id}`,
      `/g/${linked.listingId}`,
      `/g/${linked.path.slice(3).toLowerCase()}`,
      `/g/${linked.path.slice(3, -1)}`,
    ]) {
      const res = await visit(ctx, url);
      if (res.statusCode === 200) {
        // The router normalised the path: it must then be this link's own page, nothing else.
        assert.ok(!res.body.includes(siblingPhoto.id) && !res.body.includes(foreignPhoto.id), url);
        continue;
      }
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.body, await notAvailablePage(ctx), url);
    }
  });

  test('hidden media is neither listed nor served, and a hidden cover gives way to the first visible photo', async () => {
    assert.equal(
      (await patchGallery(ctx, owner.key, linked.listingId, { cover_media_id: hiddenPhoto.id })).statusCode,
      200,
    );
    const page = (await visit(ctx, linked.path)).body;
    assert.ok(!page.includes(hiddenPhoto.id));
    const cover = await visit(ctx, `${linked.path}/cover.jpg`);
    const frontLarge = await visit(ctx, `${linked.path}/large/${media[0]!.id}`);
    assert.ok(cover.rawPayload.equals(frontLarge.rawPayload), 'the cover is not the first visible photo');
    for (const suffix of ['thumb', 'large']) {
      await assertGone(ctx, `${linked.path}/${suffix}/${hiddenPhoto.id}`, `hidden ${suffix}`);
    }
    await assertGone(ctx, `${linked.path}/media/${hiddenPhoto.id}/download`, 'hidden original');

    // Shown again, it is served again; hidden again, it stops at once.
    await patchMedia(ctx, owner.key, linked.listingId, hiddenPhoto.id, { hidden: false });
    assert.equal((await visit(ctx, `${linked.path}/media/${hiddenPhoto.id}/download`)).statusCode, 200);
    assert.ok(
      (await visit(ctx, `${linked.path}/cover.jpg`)).rawPayload.equals(
        (await visit(ctx, `${linked.path}/large/${hiddenPhoto.id}`)).rawPayload,
      ),
    );
    await patchMedia(ctx, owner.key, linked.listingId, hiddenPhoto.id, { hidden: true });
    await assertGone(ctx, `${linked.path}/media/${hiddenPhoto.id}/download`, 'hidden again');
    await patchGallery(ctx, owner.key, linked.listingId, { cover_media_id: null });
    assert.deepEqual(
      visible().map((m) => m.id),
      [media[0]!.id, media[2]!.id, media[3]!.id, media[4]!.id],
    );
  });

  test('the /g headers are on the 404 page, on refused methods and on URLs the router cannot read', async () => {
    const cases: { label: string; method?: string; url: string }[] = [
      { label: 'an unknown token', url: `/g/${'Z'.repeat(32)}` },
      { label: 'a token of another shape', url: '/g/short' },
      { label: '/g itself', url: '/g' },
      { label: '/g/', url: '/g/' },
      { label: 'an unknown file of a link', url: `${linked.path}/nothing` },
      { label: 'a missing asset', url: '/g/assets/nothing.css' },
      { label: 'a POST', method: 'POST', url: linked.path },
      { label: 'a DELETE', method: 'DELETE', url: linked.path },
      { label: 'a malformed escape', url: '/g/%zz' },
      { label: 'a malformed escape under a link', url: `${linked.path}/media/%E0%A4%A/download` },
    ];
    const plain = await notAvailablePage(ctx);
    for (const c of cases) {
      const res = await ctx.app.inject({ method: (c.method ?? 'GET') as 'GET', url: c.url });
      assert.equal(res.statusCode, 404, c.label);
      assert.match(String(res.headers['content-type']), /^text\/html/, c.label);
      assert.equal(res.body, plain, `${c.label}: not the plain 404 page`);
      assertGalleryHeaders(res, c.label);
    }
  });

  test('assets are our own files, with the /g headers', async () => {
    const page = (await visit(ctx, linked.path)).body;
    const assets = urlsOf(page).filter((u) => u.startsWith('/g/assets/'));
    assert.ok(assets.length >= 3, assets.join(' '));
    for (const url of assets) {
      const res = await visit(ctx, url);
      assert.equal(res.statusCode, 200, url);
      assertGalleryHeaders(res, url);
    }
  });
});

describe('the gallery rate limit per client address', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    // Windows are fixed minutes (decisions/0004) and a new window forgets the last: the clock runs
    // at real speed from 10 s into a window, so the requests below never straddle two.
    const shift = WINDOW_MS + 10_000 - (Date.now() % WINDOW_MS);
    ctx = await createTestContext({ GALLERY_RATE_LIMIT_PER_MINUTE: '5' }, { clock: clockOf(() => Date.now() + shift) });
    owner = await createAccount(ctx);
  });
  after(() => ctx.close());

  test('over GALLERY_RATE_LIMIT_PER_MINUTE an address gets a 429 page with Retry-After; others go on', async () => {
    const linked = await linkedGallery(ctx, owner);
    const from = '198.51.100.7';
    for (let i = 0; i < 5; i++) {
      const url = i % 2 === 0 ? linked.path : `/g/${'Q'.repeat(32)}`;
      const res = await visit(ctx, url, { remoteAddress: from });
      assert.ok([200, 404].includes(res.statusCode), `request ${i + 1}: ${res.statusCode}`);
    }
    for (const url of [linked.path, `/g/${'Q'.repeat(32)}`, `${linked.path}/download.zip`, '/g/%zz']) {
      const res = await visit(ctx, url, { remoteAddress: from });
      assert.equal(res.statusCode, 429, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.match(res.body, /Too many requests/);
      const retry = Number(res.headers['retry-after']);
      assert.ok(
        Number.isInteger(retry) && retry >= 1 && retry <= 60,
        `Retry-After ${String(res.headers['retry-after'])}`,
      );
      assertGalleryHeaders(res, `429 for ${url}`);
    }
    const other = await visit(ctx, linked.path, { remoteAddress: '203.0.113.9' });
    assert.equal(other.statusCode, 200, 'another address is not limited');
    // The API has limits of its own: the gallery's does not refuse the studio.
    const api = await call(ctx, 'GET', `/v1/listings/${linked.listingId}`, { key: owner.key });
    assert.equal(api.statusCode, 200);
    assert.equal(api.json<{ client_link: { views: number } }>().client_link.views, 4, 'refused loads are not views');
  });
});
