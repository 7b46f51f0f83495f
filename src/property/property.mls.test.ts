// docs/api.md §31: the unbranded property page leaves out a photo that carries a phone number in its
// pixels while the gallery's MLS profile forbids text, as §30's OCR reads it (the real models, on a
// sign drawn with sharp and SVG as the labelled set draws them), and shows it once the profile allows
// text. The branded page shows it throughout. While it leaves a photo out, the unbranded page
// offers no listing kit slideshow either (§32: the slideshow shows every visible photo).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createAccount, createTestContext, type TestContext } from '../../test/support/test-app.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { visit } from '../../test/support/gallery.ts';
import { pathOf, publish, type PropertyPageJson } from '../../test/support/property.ts';
import { roomPhoto, signPhoto } from '../../test/support/analysis-photos.ts';
import { createJobRunner } from '../mechanisms/queue/queue.runner.ts';
import { analysisHandler } from '../modules/analysis/analysis.job.ts';
import { modelReader } from '../modules/analysis/analysis.models.thread.ts';
import { buildKitNow } from '../../test/support/kit.ts';

let ctx: TestContext;
const reader = modelReader({ ocr: true, maxPixels: 100_000_000 });
before(async () => {
  ctx = await createTestContext({ KIT_SECONDS_PER_PHOTO: '1' });
});
after(async () => {
  await reader.close();
  await ctx.close();
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

test('a photo with a phone number on it is off the unbranded page while the profile forbids text', async () => {
  const me = await createAccount(ctx);
  const created = await call(ctx, 'POST', '/v1/listings', {
    key: me.key,
    body: { address: '4 Signpost Lane', status: 'active' },
  });
  const listingId = created.json<{ id: string }>().id;
  const profile = await call(ctx, 'POST', '/v1/mls_profiles', { key: me.key, body: { name: 'No text', min_long_edge: 100 } }); // prettier-ignore
  const profileId = profile.json<{ id: string }>().id;
  await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: me.key, body: { mls_profile_id: profileId } });
  const [clean, sign] = await uploaded(ctx, me.key, listingId, [
    { filename: 'room.jpg', contentType: 'image/jpeg', data: await roomPhoto(61) },
    { filename: 'sign.jpg', contentType: 'image/jpeg', data: await signPhoto(62, ['CALL 555 0142']) },
  ]);
  assert.ok(clean !== undefined && sign !== undefined);
  await makeVariantsNow(ctx);
  await createJobRunner(ctx.deps, quiet, analysisHandler({ ...ctx.deps, writes: ctx.services.writes }, quiet, reader)).drain(); // prettier-ignore

  // The OCR read the number, and the report fails the photo for it.
  const read = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${sign.id}`, { key: me.key });
  const words = (read.json<{ analysis: { text: { text: string }[] } }>().analysis.text ?? []).map((w) => w.text);
  assert.ok(
    words.some((w) => /555|0142/.test(w)),
    words.join(' '),
  );
  const report = await call(ctx, 'GET', `/v1/listings/${listingId}/compliance`, { key: me.key });
  const issues = report.json<{ photos: { media_id: string; issues: { code: string }[] }[] }>().photos;
  assert.ok(issues.find((p) => p.media_id === sign.id)?.issues.some((i) => i.code === 'text_in_photo'));

  const published = await publish(ctx, me.key, listingId);
  assert.equal(published.statusCode, 200, published.body);
  const pages = published.json<{ property_page: PropertyPageJson }>().property_page;
  const unbranded = pathOf(pages.unbranded_url);
  const branded = pathOf(pages.url);

  const page = await visit(ctx, unbranded);
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes(clean.id), 'the clean photo is shown');
  assert.ok(!page.body.includes(sign.id), 'the photo with text is left out');
  for (const path of [`/large/${sign.id}`, `/thumb/${sign.id}`, `/photo/${sign.id}`]) {
    assert.equal((await visit(ctx, `${unbranded}${path}`)).statusCode, 404, path);
  }
  assert.equal((await visit(ctx, `${unbranded}/large/${clean.id}`)).statusCode, 200);
  assert.ok((await visit(ctx, `${unbranded}/embed`)).body.includes(clean.id));
  assert.ok(!(await visit(ctx, `${unbranded}/embed`)).body.includes(sign.id));
  // The branded page is not for an MLS: it shows every visible photo.
  assert.ok((await visit(ctx, branded)).body.includes(sign.id));

  // The profile allows text now: the photo is back.
  await call(ctx, 'PATCH', `/v1/mls_profiles/${profileId}`, { key: me.key, body: { forbid_text: false } });
  const after = await visit(ctx, unbranded);
  assert.ok(after.body.includes(sign.id), 'allowed, the photo is shown');
  assert.equal((await visit(ctx, `${unbranded}/large/${sign.id}`)).statusCode, 200);
  // And without a profile at all, likewise.
  await call(ctx, 'PATCH', `/v1/mls_profiles/${profileId}`, { key: me.key, body: { forbid_text: true } });
  assert.ok(!(await visit(ctx, unbranded)).body.includes(sign.id));
  await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: me.key, body: { mls_profile_id: null } });
  assert.ok((await visit(ctx, unbranded)).body.includes(sign.id));

  // docs/api.md §32: with the photo left out again, a ready kit's unbranded slideshow (which shows
  // it) is not offered there; the branded page offers its own items as ever.
  await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: me.key, body: { mls_profile_id: profileId } });
  assert.ok(!(await visit(ctx, unbranded)).body.includes(sign.id));
  const kitStatus = async () =>
    (await call(ctx, 'GET', `/v1/listings/${listingId}/kit`, { key: me.key })).json<{ status: string }>().status;
  assert.equal((await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: me.key })).statusCode, 202);
  await buildKitNow(ctx);
  assert.equal(await kitStatus(), 'ready');
  assert.doesNotMatch((await visit(ctx, unbranded)).body, /\/kit\//);
  assert.equal((await visit(ctx, `${unbranded}/kit/slideshow_unbranded`)).statusCode, 404);
  assert.match((await visit(ctx, branded)).body, new RegExp(`${branded}/kit/slideshow"`));
  assert.equal((await visit(ctx, `${branded}/kit/slideshow`)).statusCode, 200);
  // Without the profile, nothing is left out: once rebuilt, the unbranded page offers it.
  await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: me.key, body: { mls_profile_id: null } });
  assert.equal((await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: me.key })).statusCode, 202);
  await buildKitNow(ctx);
  assert.equal(await kitStatus(), 'ready');
  assert.match((await visit(ctx, unbranded)).body, new RegExp(`${unbranded}/kit/slideshow_unbranded"`));
  assert.equal((await visit(ctx, `${unbranded}/kit/slideshow_unbranded`)).statusCode, 200);
});
