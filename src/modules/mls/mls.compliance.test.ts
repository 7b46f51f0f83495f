// docs/api.md §31's compliance report over HTTP, on a hand-made gallery whose photos' analysis is
// written as §30 would: one violation of each kind gives exactly those issues; `pending` while a
// photo is analysed; 400 without a profile; `listing.compliance_changed` only when the status
// changes; and the `mls` variants of a gallery with a profile fit it (noise photos, whose first
// encode is over the cap), made again when the profile's sizes change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import { writeAnalysis } from '../../../test/support/mls.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

interface Issue {
  code: string;
  message: string;
  severity: 'fail' | 'warn';
  fixed_by: string | null;
}
interface Report {
  listing_id: string;
  profile_id: string;
  status: string;
  checked_at: string;
  photos: { media_id: string; status: string; issues: Issue[] }[];
  issues: Issue[];
}

const solid = (width: number, height: number, seed: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: seed * 20, g: 120, b: 200 - seed * 10 } } })
    .jpeg()
    .toBuffer();
const noisy = (width: number, height: number): Promise<Buffer> =>
  sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 128, g: 128, b: 128 },
      noise: { type: 'gaussian', mean: 128, sigma: 90 },
    },
  })
    .jpeg({ quality: 95 })
    .toBuffer();

async function gallery(me: TestAccount, profileId?: string): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '12 Compliance Way' } });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json<{ id: string }>().id;
  if (profileId !== undefined) {
    const set = await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body: { mls_profile_id: profileId } });
    assert.equal(set.statusCode, 200, set.body);
  }
  return id;
}

async function profile(me: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/mls_profiles', { key: me.key, body: { name: 'Test MLS', ...body } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function photo(me: TestAccount, listingId: string, width: number, height: number, seed = 1): Promise<MediaJson> {
  const [made] = await uploaded(ctx, me.key, listingId, [
    { filename: `p${seed}.jpg`, contentType: 'image/jpeg', data: await solid(width, height, seed) },
  ]);
  assert.ok(made !== undefined);
  return made;
}

async function report(me: TestAccount, listingId: string, query: Record<string, string> = {}): Promise<Report> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}/compliance`, { key: me.key, query });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Report>();
}

async function changes(me: TestAccount): Promise<Report[]> {
  const res = await call(ctx, 'GET', '/v1/events', { key: me.key, query: { type: 'listing.compliance_changed' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: { data: { object: Report } }[] }>().data.map((e) => e.data.object);
}

describe('GET /v1/listings/:id/compliance', () => {
  test('a gallery with one violation of each kind gets exactly those issues', async () => {
    const me = await createAccount(ctx);
    const mlp = await profile(me, { max_long_edge: 1200, min_long_edge: 400, max_photos: 10 });
    const id = await gallery(me, mlp);
    const p = async (w: number, h: number, overrides: Record<string, unknown>, seed: number) => {
      const made = await photo(me, id, w, h, seed);
      await writeAnalysis(ctx, made.id, overrides);
      return made.id;
    };
    const expected = new Map<string, string[]>();
    const add = async (codes: string[], w: number, h: number, overrides: Record<string, unknown>) => {
      expected.set(await p(w, h, overrides, expected.size + 1), codes);
    };
    await add([], 800, 600, { analysis_room: 'Kitchen' });
    await add(['text_in_photo'], 800, 600, { analysis_text: '[{"text":"555-0100","confidence":0.93}]' });
    await add(['qr_code'], 800, 600, { analysis_qr_codes: '[{"data":"https://agent.example"}]' });
    await add(['person'], 800, 600, { analysis_people: 1, analysis_faces: 1 });
    await add(['too_small'], 300, 200, {});
    await add(['too_large'], 1600, 1200, {});
    await add(['blurry'], 800, 600, { analysis_blurry: 1, analysis_sharpness: 0.1 });
    await add(['tilted'], 800, 600, { analysis_tilt_degrees: -3.5 });
    await add(['similar'], 800, 600, { analysis_similar_group: 'g1', analysis_best_in_group: 0 });
    await add([], 800, 600, { analysis_similar_group: 'g1', analysis_best_in_group: 1 });
    const unstaged = [...expected.keys()][0] ?? '';
    await add(['staging_not_disclosed'], 800, 600, { virtually_staged: 1 });
    await add([], 800, 600, { virtually_staged: 1, original_media_id: unstaged });
    await add(['analysis_failed'], 800, 600, {});
    const failed = [...expected.keys()].at(-1) ?? '';
    await ctx.deps.db.kysely
      .updateTable('media')
      .set({ analysis_status: 'failed', analysis_room: null, analysis_text: null })
      .where('id', '=', failed)
      .execute();
    // A hidden photo is no part of the listing, whatever it shows.
    const hidden = await p(800, 600, { analysis_text: '[{"text":"CALL NOW","confidence":0.9}]' }, 99);
    assert.equal((await call(ctx, 'PATCH', `/v1/listings/${id}/media/${hidden}`, { key: me.key, body: { hidden: true } })).statusCode, 200); // prettier-ignore

    const body = await report(me, id);
    assert.equal(body.listing_id, id);
    assert.equal(body.profile_id, mlp);
    assert.equal(body.status, 'fail');
    assert.deepEqual(
      body.issues.map((i) => [i.code, i.severity]),
      [
        ['too_many_photos', 'fail'],
        ['first_photo_not_exterior', 'fail'],
      ],
    );
    assert.deepEqual(
      body.photos.map((ph) => ph.media_id),
      [...expected.keys()],
    );
    for (const ph of body.photos) {
      assert.deepEqual(
        ph.issues.map((i) => i.code),
        expected.get(ph.media_id),
        ph.media_id,
      );
    }
    const severity = Object.fromEntries(body.photos.flatMap((ph) => ph.issues.map((i) => [i.code, i.severity])));
    assert.deepEqual(severity, {
      text_in_photo: 'fail',
      qr_code: 'fail',
      person: 'fail',
      too_small: 'fail',
      too_large: 'warn',
      blurry: 'warn',
      tilted: 'warn',
      similar: 'warn',
      analysis_failed: 'warn',
      staging_not_disclosed: 'fail',
    });
    const statusOf = new Map(body.photos.map((ph) => [ph.media_id, ph.status]));
    assert.equal(statusOf.get(failed), 'warn');
    assert.equal(statusOf.get([...expected.keys()][0] ?? ''), 'pass');
    assert.equal(statusOf.get([...expected.keys()][1] ?? ''), 'fail');

    // The oversized photo is fixed by its mls variant once made: the fix is said.
    const large = [...expected.entries()].find(([, codes]) => codes[0] === 'too_large')?.[0] ?? '';
    const before = body.photos.find((ph) => ph.media_id === large)?.issues[0];
    assert.equal(before?.fixed_by, null);
    await makeVariantsNow(ctx);
    const fixed = (await report(me, id)).photos.find((ph) => ph.media_id === large)?.issues[0];
    assert.equal(fixed?.severity, 'warn');
    assert.match(fixed?.fixed_by ?? '', /^Its mls variant is 1200x900 px and [\d,]+ bytes, within the profile\.$/);

    // Allowed by another profile: the same gallery checked against it with ?profile_id=.
    const lenient = await profile(me, {
      forbid_text: false,
      forbid_qr_codes: false,
      forbid_people: false,
      first_photo_exterior: false,
      disclose_staging: false,
      min_long_edge: 100,
      max_long_edge: 4000,
    });
    const other = await report(me, id, { profile_id: lenient });
    assert.equal(other.profile_id, lenient);
    assert.deepEqual(other.issues, []);
    assert.deepEqual([...new Set(other.photos.flatMap((ph) => ph.issues.map((i) => i.code)))].sort(), [
      'analysis_failed',
      'blurry',
      'similar',
      'tilted',
    ]);
    assert.equal(other.status, 'warn');
  });

  test('pending while a visible photo is analysed; 400 without a profile; 404 for a gallery not yours', async () => {
    const me = await createAccount(ctx);
    const bare = await gallery(me);
    const none = await call(ctx, 'GET', `/v1/listings/${bare}/compliance`, { key: me.key });
    assert.deepEqual(detailFields(expectError(none, 400, 'validation_error')), ['profile_id']);
    const unknown = await call(ctx, 'GET', `/v1/listings/${bare}/compliance`, {
      key: me.key,
      query: { profile_id: 'mlp_0000000000000000000000ZZZZ' },
    });
    expectError(unknown, 400, 'validation_error');

    const mlp = await profile(me, {});
    const id = await gallery(me, mlp);
    const empty = await report(me, id);
    assert.deepEqual([empty.status, empty.photos, empty.issues], ['pass', [], []]);
    const a = await photo(me, id, 1600, 1200, 1);
    const b = await photo(me, id, 1600, 1200, 2);
    await writeAnalysis(ctx, a.id, { analysis_room: 'Exterior Front' });
    // b is as uploaded: its analysis is pending.
    const pending = await report(me, id);
    assert.equal(pending.status, 'pending');
    assert.deepEqual(
      pending.photos.map((ph) => ph.status),
      ['pass', 'pending'],
    );
    await writeAnalysis(ctx, b.id);
    assert.equal((await report(me, id)).status, 'pass');

    const other = await createAccount(ctx);
    expectError(await call(ctx, 'GET', `/v1/listings/${id}/compliance`, { key: other.key }), 404, 'not_found');
    const theirs = await call(ctx, 'GET', `/v1/listings/${bare}/compliance`, {
      key: me.key,
      query: { profile_id: await profile(other, {}) },
    });
    expectError(theirs, 400, 'validation_error');
  });
});

describe('listing.compliance_changed', () => {
  test('is announced with the report when the status changes, and only then', async () => {
    const me = await createAccount(ctx);
    const mlp = await profile(me, {});
    const id = await gallery(me, mlp);
    const a = await photo(me, id, 1600, 1200, 1);
    // Newest first: empty, the gallery passed when it took the profile; the upload made it pending.
    assert.deepEqual(
      (await changes(me)).map((r) => r.status),
      ['pending', 'pass'],
    );
    await writeAnalysis(ctx, a.id, {
      analysis_room: 'Exterior Front',
      analysis_text: '[{"text":"SOLD","confidence":0.95}]',
    });
    // A write that reads the photo again (its caption): the status moves to fail.
    await call(ctx, 'PATCH', `/v1/listings/${id}/media/${a.id}`, { key: me.key, body: { caption: 'Front' } });
    let seen = await changes(me);
    assert.deepEqual(
      seen.map((r) => r.status),
      ['fail', 'pending', 'pass'],
    );
    assert.equal(seen[0]?.listing_id, id);
    assert.deepEqual(
      seen[0]?.photos[0]?.issues.map((i) => i.code),
      ['text_in_photo'],
    );
    // Nothing changes the status: nothing is announced.
    await call(ctx, 'PATCH', `/v1/listings/${id}/media/${a.id}`, { key: me.key, body: { caption: 'Front door' } });
    assert.equal((await changes(me)).length, 3);
    // The profile itself changes: it allows text now.
    await call(ctx, 'PATCH', `/v1/mls_profiles/${mlp}`, { key: me.key, body: { forbid_text: false } });
    seen = await changes(me);
    assert.deepEqual(
      seen.map((r) => r.status),
      ['pass', 'fail', 'pending', 'pass'],
    );
    // Another profile for the gallery: its first status against that one is announced.
    const strict = await profile(me, { max_photos: 1, min_long_edge: 1700, max_long_edge: 4000 });
    await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body: { mls_profile_id: strict } });
    seen = await changes(me);
    assert.equal(seen[0]?.profile_id, strict);
    assert.equal(seen[0]?.status, 'fail');
    assert.deepEqual(
      seen[0]?.photos[0]?.issues.map((i) => i.code),
      ['text_in_photo', 'too_small'],
    );
  });
});

describe("a gallery's mls variants fit its profile", () => {
  test('recompressed, then smaller, to fit the byte cap; made again when the profile changes', async () => {
    const me = await createAccount(ctx);
    const mlp = await profile(me, { max_long_edge: 1400, min_long_edge: 300, max_bytes: 120_000 });
    const id = await gallery(me, mlp);
    const plain = await gallery(me);
    const original = await noisy(1800, 1200);
    assert.ok(original.length > 1_000_000, `the noise photo is ${original.length} bytes`);
    const [fitted] = await uploaded(ctx, me.key, id, [
      { filename: 'n.jpg', contentType: 'image/jpeg', data: original },
    ]);
    const [free] = await uploaded(ctx, me.key, plain, [
      { filename: 'n.jpg', contentType: 'image/jpeg', data: original },
    ]);
    await makeVariantsNow(ctx);
    const mlsOf = async (listingId: string, mediaId: string) => {
      const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${mediaId}`, { key: me.key });
      return res.json<MediaJson>().variants?.mls;
    };
    const made = await mlsOf(id, fitted?.id ?? '');
    assert.ok(made !== null && made !== undefined);
    assert.ok(made.size <= 120_000, `mls is ${made.size} bytes`);
    assert.ok(Math.max(made.width, made.height) <= 1400);
    assert.ok(Math.max(made.width, made.height) >= 300);
    // Noise at 1400 px does not fit 120 kB at any quality: it was made smaller too.
    assert.ok(made.width < 1400, `mls is ${made.width} wide`);
    // Without a profile: the configured box, at the usual quality.
    const usual = await mlsOf(plain, free?.id ?? '');
    assert.deepEqual([usual?.width, usual?.height], [1800, 1200]);
    assert.ok((usual?.size ?? 0) > 120_000);

    // New sizes for the profile: the gallery's photos are queued again, and their mls fits.
    const queued = async () =>
      (
        await ctx.deps.db.kysely.selectFrom('jobs').select('subject_id').where('kind', '=', 'media.variants').execute()
      ).map((j) => j.subject_id);
    assert.deepEqual(await queued(), []);
    await call(ctx, 'PATCH', `/v1/mls_profiles/${mlp}`, { key: me.key, body: { max_bytes: 2_000_000, max_long_edge: 1000 } }); // prettier-ignore
    assert.deepEqual(await queued(), [fitted?.id]);
    await makeVariantsNow(ctx);
    const remade = await mlsOf(id, fitted?.id ?? '');
    assert.deepEqual([remade?.width, remade?.height], [1000, 667]);
    assert.ok((remade?.size ?? 0) <= 2_000_000);
    // A name change is not a size change: nothing is queued.
    await call(ctx, 'PATCH', `/v1/mls_profiles/${mlp}`, { key: me.key, body: { name: 'Renamed' } });
    assert.deepEqual(await queued(), []);
    // The plain gallery takes the profile: its photo is queued.
    await call(ctx, 'PATCH', `/v1/listings/${plain}`, { key: me.key, body: { mls_profile_id: mlp } });
    assert.deepEqual(await queued(), [free?.id]);
    await makeVariantsNow(ctx);
    const taken = await mlsOf(plain, free?.id ?? '');
    assert.deepEqual([taken?.width, taken?.height], [1000, 667]);
  });
});
