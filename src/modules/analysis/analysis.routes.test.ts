// docs/api.md §30's GET /v1/listings/:id/media/suggested_order through the real HTTP stack: every
// visible photo (no hidden one, no video or document), similar photos together with the best
// first, applied with §13's PUT .../media/order; scoped by account and by mode; and the studio's
// room order (Settings) validated and stored. The ordering rules one by one: analysis.order.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  testModeOf,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, pdf } from '../../../test/support/media-fixtures.ts';
import { newGallery, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import { DEFAULT_ROOM_ORDER } from './analysis.room-order.ts';

interface Suggested {
  media_ids: string[];
  reasons: { media_id: string; room: string | null; note: string }[];
}

let ctx: TestContext;
let owner: TestAccount;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

const suggestedUrl = (listingId: string): string => `/v1/listings/${listingId}/media/suggested_order`;

/** What the pixel stage records for a photo (its grouping included), written as the job would. */
async function analysed(id: string, group: string | null, best: boolean, sharpness: number): Promise<void> {
  await ctx.deps.db.kysely
    .updateTable('media')
    .set({
      analysis_status: 'ready',
      analysis_phash: '0123456789abcdef',
      analysis_sharpness: sharpness,
      analysis_blurry: sharpness < 0.45 ? 1 : 0,
      analysis_tilt_degrees: 0,
      analysis_similar_group: group,
      analysis_best_in_group: best ? 1 : 0,
    })
    .where('id', '=', id)
    .execute();
}

/** A gallery of five photos and a PDF, in upload order. */
async function gallery(account: TestAccount): Promise<{ listingId: string; media: MediaJson[] }> {
  const listingId = await newGallery(ctx, account);
  const photo = await jpeg(12, 8);
  const parts = ['1.jpg', '2.jpg', '3.jpg', '4.pdf', '5.jpg', '6.jpg'].map((filename) => ({
    filename,
    data: filename.endsWith('.pdf') ? pdf('plan') : photo,
  }));
  return { listingId, media: await uploaded(ctx, account.key, listingId, parts) };
}

test('every visible photo, a similar group together with its best first; applied with PUT .../media/order', async () => {
  const { listingId, media } = await gallery(owner);
  const [p1, p2, p3, doc, p5, p6] = media.map((m) => m.id) as [string, string, string, string, string, string];
  // p2, p5 and p6 are alike; p6 is the sharpest. p3 is hidden.
  await analysed(p1, null, true, 0.8);
  await analysed(p2, 'sim_g', false, 0.5);
  await analysed(p5, 'sim_g', false, 0.6);
  await analysed(p6, 'sim_g', true, 0.9);
  const hide = await call(ctx, 'PATCH', `/v1/listings/${listingId}/media/${p3}`, {
    key: owner.key,
    body: { hidden: true },
  });
  assert.equal(hide.statusCode, 200, hide.body);

  const res = await call(ctx, 'GET', suggestedUrl(listingId), { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json<Suggested>();
  // The group sits at its first photo's place (2, after p1), the best first; no hidden photo, no PDF.
  assert.deepEqual(body.media_ids, [p1, p6, p5, p2]);
  assert.deepEqual(
    body.reasons.map((r) => [r.media_id, r.room]),
    body.media_ids.map((id) => [id, null]),
  );
  assert.match(body.reasons[1]?.note ?? '', /The best of 3 similar photos/);
  assert.equal(body.reasons[3]?.note, `Similar to ${p6}, the best of its group of 3: placed right after it.`);

  // Its own ETag: the same answer is 304.
  const etag = res.headers.etag as string;
  const again = await call(ctx, 'GET', suggestedUrl(listingId), { key: owner.key, headers: { 'if-none-match': etag } });
  assert.equal(again.statusCode, 304);

  // Applied as docs/api.md §13 takes it: the suggested photos, then the media it leaves out.
  const put = await call(ctx, 'PUT', `/v1/listings/${listingId}/media/order`, {
    key: owner.key,
    body: { media_ids: [...body.media_ids, p3, doc] },
  });
  assert.equal(put.statusCode, 200, put.body);
  assert.deepEqual(
    put.json<{ data: MediaJson[] }>().data.map((m) => m.id),
    [p1, p6, p5, p2, p3, doc],
  );
  const after = await call(ctx, 'GET', suggestedUrl(listingId), { key: owner.key });
  assert.deepEqual(after.json<Suggested>().media_ids, [p1, p6, p5, p2]);
});

test("the dashboard's apply puts the suggested photos first, the rest after in their order", async () => {
  const { listingId, media } = await gallery(owner);
  const [p1, p2, p3, doc, p5, p6] = media.map((m) => m.id) as [string, string, string, string, string, string];
  await analysed(p1, 'sim_h', false, 0.5);
  await analysed(p5, 'sim_h', true, 0.9);
  await ctx.services.media.setHidden(owner.accountId, listingId, [p2], true);
  const page = await ctx.services.suggestedOrder.apply(owner.accountId, owner.accountId, listingId);
  assert.deepEqual(
    page.data.map((m) => m.id),
    [p5, p1, p3, p6, p2, doc],
  );
});

test('another studio, the other mode and an unknown gallery are 404', async () => {
  const { listingId } = await gallery(owner);
  const other = await createAccount(ctx, 'Other studio');
  expectError(await call(ctx, 'GET', suggestedUrl(listingId), { key: other.key }), 404, 'not_found');
  const testMode = await testModeOf(ctx, owner);
  expectError(await call(ctx, 'GET', suggestedUrl(listingId), { key: testMode.key }), 404, 'not_found');
  expectError(await call(ctx, 'GET', suggestedUrl('lst_nothere'), { key: owner.key }), 404, 'not_found');

  // A test gallery answers its test photos to the test key only.
  const { listingId: testListing, media } = await gallery(testMode);
  const res = await call(ctx, 'GET', suggestedUrl(testListing), { key: testMode.key });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json<Suggested>().media_ids.length, media.filter((m) => m.kind === 'photo').length);
  expectError(await call(ctx, 'GET', suggestedUrl(testListing), { key: owner.key }), 404, 'not_found');
});

test("the studio's room order: each of the 14 rooms exactly once, stored, the default as null", async () => {
  const studio = await createAccount(ctx, 'Rooms');
  assert.deepEqual(await ctx.services.accounts.roomOrder(studio.accountId), DEFAULT_ROOM_ORDER);
  const mine = ['Kitchen', ...DEFAULT_ROOM_ORDER.filter((r) => r !== 'Kitchen')];
  await ctx.services.accounts.setRoomOrder(studio.accountId, mine);
  assert.deepEqual(await ctx.services.accounts.roomOrder(studio.accountId), mine);

  for (const bad of [mine.slice(1), [...mine, 'Kitchen'], [...mine.slice(1), 'Attic'], []]) {
    await assert.rejects(
      ctx.services.accounts.setRoomOrder(studio.accountId, bad),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'validation_error');
        assert.match(err.message, /^room_order /);
        return true;
      },
    );
  }
  assert.deepEqual(await ctx.services.accounts.roomOrder(studio.accountId), mine, 'a refused order changes nothing');

  await ctx.services.accounts.setRoomOrder(studio.accountId, DEFAULT_ROOM_ORDER);
  const row = await ctx.deps.db.kysely
    .selectFrom('accounts')
    .select('room_order')
    .where('id', '=', studio.accountId)
    .executeTakeFirstOrThrow();
  assert.equal(row.room_order, null);
});
