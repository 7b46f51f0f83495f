// The listing kit on a gallery's dashboard page (docs/api.md §32) over HTTP: the panel's status in
// words (none, building, ready, stale), Build refused in words for a draft or a gallery without a
// ready photo, Build by a member (CSRF as every form), each item previewed and downloadable through
// the dashboard's route (the /v1 item's bytes and ETag, 304, one Range), nothing of another
// studio's; and Settings > Studio's flyer paper (letter or A4), the owner's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { buildKitNow } from '../../test/support/kit.ts';
import { makeVariantsNow, newGallery, uploaded } from '../../test/support/media-helpers.ts';
import { sceneJpeg } from '../../test/support/photos.ts';
import { addMember } from '../../test/support/team.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import type { KitType } from '../modules/kit/kit.schemas.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;
let owner: TestAccount;
let ownerBrowser: Browser;
let memberBrowser: Browser;

async function signedIn(email: string): Promise<Browser> {
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
  return browser;
}

async function kitOf(listingId: string): Promise<KitType> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}/kit`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<KitType>();
}

/** The kit panel of the gallery's page, as text and as markup. */
async function panel(browser: Browser, listingId: string): Promise<{ text: string; markup: string }> {
  const page = await browser.get(`/dashboard/galleries/${listingId}`);
  assert.equal(page.statusCode, 200);
  const markup = /<section class="card" id="kit"[\s\S]*?<\/section>/.exec(page.body)?.[0];
  assert.ok(markup !== undefined, 'the page has a kit panel');
  return { text: textOf(markup), markup };
}

/** Posts the panel's form from the gallery's page, with that page's token. */
async function build(browser: Browser, listingId: string) {
  await browser.get(`/dashboard/galleries/${listingId}`);
  return browser.post(`/dashboard/galleries/${listingId}/kit`, {});
}

before(async () => {
  ctx = await createTestContext({ ANALYSIS: 'off', KIT_SECONDS_PER_PHOTO: '2', KIT_PAPER: 'letter' });
  owner = await createAccount(ctx, 'Harbour Light Studio');
  await addMember(ctx, owner.accountId, 'assistant@harbour-kit.test', PASSWORD);
  ownerBrowser = await signedIn(owner.email);
  memberBrowser = await signedIn('assistant@harbour-kit.test');
});
after(() => ctx.close());

describe('the listing kit panel', () => {
  let listingId: string;

  test('a draft: not built, no button, and a Build sent anyway is refused in words', async () => {
    listingId = await newGallery(ctx, owner);
    const { text, markup } = await panel(ownerBrowser, listingId);
    assert.match(text, /Listing kit\s+Not built/);
    assert.match(text, /Only an active gallery's kit is built/);
    assert.doesNotMatch(markup, /<button/);
    const res = await build(ownerBrowser, listingId);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/dashboard/galleries/${listingId}?notice=kit-not-active#kit`);
    assert.match(textOf((await ownerBrowser.follow(res)).body), /The kit was not built: only an active gallery's kit/);
    assert.equal((await kitOf(listingId)).status, 'none');
  });

  test('active without a ready photo: refused in words; without the form token: refused, nothing asked', async () => {
    const patched = await call(ctx, 'PATCH', `/v1/listings/${listingId}`, {
      key: owner.key,
      body: { status: 'active', address: '12 Quayside Lane', beds: 3, baths: 2, sqft: 1850 },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const res = await build(memberBrowser, listingId);
    assert.equal(res.headers.location, `/dashboard/galleries/${listingId}?notice=kit-no-photo#kit`);
    assert.match(textOf((await memberBrowser.follow(res)).body), /no visible photo ready yet/);
    await uploaded(ctx, owner.key, listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1200, 800, 30) },
      { filename: 'b.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1200, 800, 200) },
    ]);
    await makeVariantsNow(ctx);
    const forged = await memberBrowser.post(`/dashboard/galleries/${listingId}/kit`, {}, { csrf: null });
    assert.equal(forged.statusCode, 403);
    assert.equal((await kitOf(listingId)).status, 'none');
  });

  test('Build, by a member: building, then ready with every item previewed and downloadable', async () => {
    const { markup: before } = await panel(memberBrowser, listingId);
    assert.match(before, />\s*Build the kit\s*</);
    const res = await build(memberBrowser, listingId);
    assert.equal(res.headers.location, `/dashboard/galleries/${listingId}?notice=kit-building#kit`);
    assert.equal((await kitOf(listingId)).status, 'building');
    const building = await panel(memberBrowser, listingId);
    assert.match(building.text, /Building\s+Building now/);
    assert.doesNotMatch(building.markup, /<button/, 'no second build while one runs');

    await buildKitNow(ctx);
    const kit = await kitOf(listingId);
    assert.equal(kit.status, 'ready');
    const { text, markup } = await panel(memberBrowser, listingId);
    assert.match(text, /Ready\s+Built \d+ \w+ \d{4}, \d\d:\d\d UTC/);
    assert.match(markup, />\s*Rebuild\s*</);
    const base = `/dashboard/galleries/${listingId}/kit`;
    for (const name of [
      'mls_zip',
      'flyer',
      'social_square',
      'social_portrait',
      'social_story',
      'slideshow',
      'slideshow_unbranded',
      'reel',
      'teaser',
    ]) {
      // prettier-ignore
      assert.ok(markup.includes(`href="${base}/${name}" download`), `a download of ${name}`);
    }
    for (const format of ['square', 'portrait', 'story']) {
      assert.match(markup, new RegExp(`<img\\s+class="kit-image"\\s+src="${base}/social_${format}"`), format);
    }
    for (const name of ['slideshow', 'slideshow_unbranded', 'reel', 'teaser']) {
      assert.match(markup, new RegExp(`<video[^>]*src="${base}/${name}#t=1"`), name);
    }
    assert.match(markup, /class="kit-video kit-video-tall"/, 'the reel is drawn tall');
    assert.match(text, /Flyer[\s\S]*PDF · one page · \d/);
    assert.match(text, /Reel[\s\S]*MP4 · \d+ × \d+ · \d+:\d\d · /);
  });

  test("the dashboard's download is the API's item: same bytes and ETag, 304, one Range", async () => {
    const base = `/dashboard/galleries/${listingId}/kit`;
    for (const [name, type] of [
      ['flyer', 'application/pdf'],
      ['social_story', 'image/jpeg'],
      ['reel', 'video/mp4'],
      ['mls_zip', 'application/zip'],
    ] as const) {
      const mine = await memberBrowser.get(`${base}/${name}`);
      assert.equal(mine.statusCode, 200, name);
      assert.equal(mine.headers['content-type'], type);
      assert.match(String(mine.headers['content-disposition']), /^attachment; filename=/);
      assert.equal(mine.headers['x-content-type-options'], 'nosniff');
      const api = await call(ctx, 'GET', `/v1/listings/${listingId}/kit/${name}`, { key: owner.key });
      assert.deepEqual(mine.rawPayload, api.rawPayload, name);
      assert.equal(mine.headers.etag, api.headers.etag, name);
      const again = await memberBrowser.get(`${base}/${name}`, { 'if-none-match': String(mine.headers.etag) });
      assert.equal(again.statusCode, 304, name);
      const part = await memberBrowser.get(`${base}/${name}`, { range: 'bytes=4-13' });
      assert.equal(part.statusCode, 206, name);
      assert.deepEqual(part.rawPayload, api.rawPayload.subarray(4, 14), name);
      assert.equal(part.headers['content-range'], `bytes 4-13/${api.rawPayload.length}`);
    }
    assert.equal((await memberBrowser.get(`${base}/nothing`)).statusCode, 404);
    assert.equal((await memberBrowser.get(`${base}/../kit`)).statusCode, 404);
  });

  test('another studio sees nothing of it: its page and every item are 404', async () => {
    const other = await createAccount(ctx, 'Elsewhere Studio');
    const stranger = await signedIn(other.email);
    assert.equal((await stranger.get(`/dashboard/galleries/${listingId}`)).statusCode, 404);
    for (const name of ['flyer', 'slideshow', 'mls_zip']) {
      const res = await stranger.get(`/dashboard/galleries/${listingId}/kit/${name}`);
      assert.equal(res.statusCode, 404, name);
      assert.ok(!res.rawPayload.includes(Buffer.from('%PDF-')), name);
    }
    await stranger.get(`/dashboard/galleries/${await newGallery(ctx, other)}`);
    const res = await stranger.post(`/dashboard/galleries/${listingId}/kit`, {});
    assert.equal(res.statusCode, 404);
    assert.equal((await kitOf(listingId)).status, 'ready');
  });

  test('a change to the gallery: out of date, Rebuild now; the items still there', async () => {
    const patched = await call(ctx, 'PATCH', `/v1/listings/${listingId}`, {
      key: owner.key,
      body: { description: 'Now with a new kitchen.' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await kitOf(listingId)).status, 'stale');
    const { text, markup } = await panel(ownerBrowser, listingId);
    assert.match(text, /Out of date\s+The gallery changed since the kit was built/);
    assert.match(markup, />\s*Rebuild now\s*</);
    assert.equal((await ownerBrowser.get(`/dashboard/galleries/${listingId}/kit/flyer`)).statusCode, 200);
  });

  test('failed: said in words, with Try again', async () => {
    // As the job leaves it after its last try (src/modules/kit/kit.job.ts).
    await ctx.deps.db.kysely
      .updateTable('listing_kits')
      .set({ status: 'failed', error: 'ffmpeg exited with code 1' })
      .where('listing_id', '=', listingId)
      .execute();
    const { text, markup } = await panel(ownerBrowser, listingId);
    assert.match(text, /Failed\s+The last build failed/);
    assert.doesNotMatch(text, /ffmpeg/, "the log's words stay in the log");
    assert.match(markup, />\s*Try again\s*</);
  });
});

describe("Settings > Studio: the flyer's paper", () => {
  const checked = (body: string): string[] =>
    [...body.matchAll(/<input\s+type="radio"\s+name="paper"\s+value="(\w+)"\s+checked/g)].map((m) => m[1]!);

  test('KIT_PAPER until the studio chooses; A4 saved through the kit service', async () => {
    const page = await ownerBrowser.get('/dashboard/settings/studio');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="paper"/);
    assert.deepEqual(checked(page.body), ['letter']);
    assert.equal(await ctx.services.kit.paper(owner.accountId), null);
    const res = await ownerBrowser.post('/dashboard/settings/studio/paper', { paper: 'a4' });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard/settings/studio?notice=paper-saved#paper');
    assert.equal(await ctx.services.kit.paper(owner.accountId), 'a4');
    const after = await ownerBrowser.follow(res);
    assert.deepEqual(checked(after.body), ['a4']);
    assert.match(textOf(after.body), /Flyer paper saved/);
  });

  test('anything else is refused beside the field, nothing changed; a member is refused', async () => {
    for (const paper of ['b5', '', 'A4 ']) {
      await ownerBrowser.get('/dashboard/settings/studio');
      const res = await ownerBrowser.post('/dashboard/settings/studio/paper', { paper });
      assert.equal(res.statusCode, 400, paper);
      assert.match(res.body, /id="f-paper-error"[^>]*>Not saved: choose Letter or A4\./);
      assert.equal(await ctx.services.kit.paper(owner.accountId), 'a4');
    }
    await memberBrowser.get('/dashboard/account');
    const refused = await memberBrowser.post('/dashboard/settings/studio/paper', { paper: 'letter' });
    assert.equal(refused.statusCode, 403);
    assert.equal(await ctx.services.kit.paper(owner.accountId), 'a4');
  });
});
