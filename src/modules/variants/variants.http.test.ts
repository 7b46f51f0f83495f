// Variants through the API (docs/api.md §13): pending until the job runs, then ready with the three
// sizes; GET .../variants/:name serves them like content (ETag, 304, attachment, nosniff) and is
// 404 until ready; a photo that cannot be decoded ends `failed` at once, one whose original cannot
// be read is retried and ends `failed` after 3 tries; deleting media or its gallery removes the
// variants' bytes. The image work itself is tested in variants.images.test.ts.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { clockOf } from '../../lib/clock.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { pdf } from '../../../test/support/media-fixtures.ts';
import {
  assertError,
  makeVariantsNow,
  newGallery,
  storedKeys,
  uploaded,
  type MediaJson,
  type VariantJson,
} from '../../../test/support/media-helpers.ts';
import { cameraJpeg } from '../../../test/support/photos.ts';
import { mulberry32 } from '../../../test/support/prng.ts';
import { startS3Server } from '../../../test/support/s3-server.ts';
import { createJobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { MAX_VARIANT_TRIES, variantsHandler } from './variants.job.ts';

let ctx: TestContext;
let owner: TestAccount;
let now = Date.parse('2026-11-23T12:00:00.000Z');

type Variants = { status: 'pending' | 'ready' | 'failed' } & Record<'thumb' | 'large' | 'mls', VariantJson | null>;
const variantsOf = (m: MediaJson): Variants => (m as unknown as { variants: Variants }).variants;

async function getMedia(media: MediaJson): Promise<MediaJson> {
  const res = await call(ctx, 'GET', `/v1/listings/${media.listing_id}/media/${media.id}`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<MediaJson>();
}

const variantUrl = (m: MediaJson, name: string): string =>
  `/v1/listings/${m.listing_id}/media/${m.id}/variants/${name}`;

async function photoGallery(width = 1600, height = 1200): Promise<{ listingId: string; photo: MediaJson }> {
  const listingId = await newGallery(ctx, owner);
  const [photo] = (await uploaded(ctx, owner.key, listingId, [
    { filename: 'front.jpg', contentType: 'image/jpeg', data: await cameraJpeg(width, height) },
  ])) as [MediaJson];
  return { listingId, photo };
}

for (const storage of ['local', 's3'] as const) {
  describe(`on ${storage} storage`, () => {
    let stopS3: (() => Promise<void>) | undefined;
    before(async () => {
      let env: Record<string, string> = {};
      if (storage === 's3') {
        const server = await startS3Server();
        stopS3 = () => server.stop();
        env = { ...server.env, MEDIA_STORAGE: `s3://${server.bucket}/variants` };
      }
      ctx = await createTestContext(env, { clock: clockOf(() => now) });
      owner = await createAccount(ctx);
    });
    after(async () => {
      await ctx.close();
      await stopS3?.();
    });

    describe('from upload to ready', () => {
      test('pending with no variant until the job runs; 404 for each name meanwhile; null for a document', async () => {
        const listingId = await newGallery(ctx, owner);
        const [photo, doc] = (await uploaded(ctx, owner.key, listingId, [
          { filename: 'front.jpg', contentType: 'image/jpeg', data: await cameraJpeg(1600, 1200) },
          { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf() },
        ])) as [MediaJson, MediaJson];
        assert.deepEqual(variantsOf(photo), { status: 'pending', thumb: null, large: null, mls: null });
        assert.equal((doc as unknown as { variants: unknown }).variants, null);
        for (const name of ['thumb', 'large', 'mls']) {
          assertError(await call(ctx, 'GET', variantUrl(photo, name), { key: owner.key }), 404, 'not_found');
        }
        assertError(await call(ctx, 'GET', variantUrl(doc, 'thumb'), { key: owner.key }), 404, 'not_found');
      });

      test('ready: three variants with their URLs, types and sizes, and the bytes served match them', async () => {
        const { photo } = await photoGallery(1600, 1200);
        await makeVariantsNow(ctx);
        const v = variantsOf(await getMedia(photo));
        assert.equal(v.status, 'ready');
        const expected = {
          // The camera JPEG is stored 1600x1200 with orientation 6: upright it is 1200x1600.
          thumb: { type: 'image/webp', format: 'webp', width: 360, height: 480 },
          large: { type: 'image/jpeg', format: 'jpeg', width: 1200, height: 1600 },
          mls: { type: 'image/jpeg', format: 'jpeg', width: 1152, height: 1536 },
        } as const;
        for (const name of ['thumb', 'large', 'mls'] as const) {
          const variant = v[name];
          assert.ok(variant !== null, name);
          assert.equal(variant.content_type, expected[name].type);
          assert.equal(variant.width, expected[name].width, name);
          assert.equal(variant.height, expected[name].height, name);
          assert.equal(new URL(variant.url).pathname, variantUrl(photo, name));
          const res = await call(ctx, 'GET', variantUrl(photo, name), { key: owner.key });
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.headers['content-type'], expected[name].type);
          assert.equal(Number(res.headers['content-length']), variant.size);
          assert.equal(res.rawPayload.length, variant.size);
          assert.equal(res.headers['x-content-type-options'], 'nosniff');
          assert.match(String(res.headers['content-disposition']), /^attachment/);
          const meta = await sharp(res.rawPayload).metadata();
          assert.equal(meta.format, expected[name].format);
          assert.equal(meta.width, expected[name].width);
          assert.equal(meta.height, expected[name].height);
          // ETag and 304, as content.
          const etag = res.headers.etag;
          assert.ok(typeof etag === 'string' && etag.length > 2);
          const again = await call(ctx, 'GET', variantUrl(photo, name), {
            key: owner.key,
            headers: { 'if-none-match': etag },
          });
          assert.equal(again.statusCode, 304);
          assert.equal(again.rawPayload.length, 0);
          assert.equal(again.headers.etag, etag);
        }
        // The key is needed, as for every /v1 URL (an <img> on the client gallery uses its own URLs).
        assert.equal((await call(ctx, 'GET', variantUrl(photo, 'thumb'))).statusCode, 401);
        assertError(await call(ctx, 'GET', variantUrl(photo, 'huge'), { key: owner.key }), 400, 'validation_error');
      });
    });

    describe('photos whose variants cannot be made', () => {
      test('bytes that sniff as a JPEG but do not decode: accepted (201), then failed at the first try', async () => {
        const listingId = await newGallery(ctx, owner);
        const whole = await cameraJpeg(800, 600);
        const [photo] = (await uploaded(ctx, owner.key, listingId, [
          { filename: 'cut.jpg', contentType: 'image/jpeg', data: whole.subarray(0, Math.floor(whole.length * 0.6)) },
        ])) as [MediaJson];
        assert.equal(variantsOf(photo).status, 'pending');
        const warnings: unknown[] = [];
        const log = { info: () => undefined, warn: (o: unknown) => warnings.push(o), error: () => undefined };
        await createJobRunner(
          ctx.deps,
          log,
          variantsHandler({ ...ctx.deps, writes: ctx.services.writes }, ctx.services.mediaCleanup, log),
        ).drain();
        assert.deepEqual(variantsOf(await getMedia(photo)), { status: 'failed', thumb: null, large: null, mls: null });
        assertError(await call(ctx, 'GET', variantUrl(photo, 'thumb'), { key: owner.key }), 404, 'not_found');
        // Its reason is logged, once: not retried.
        assert.equal(warnings.length, 1);
        assert.match(JSON.stringify(warnings[0]), new RegExp(photo.id));
        assert.match(JSON.stringify(warnings[0]), /"reason":"[^"]+"/);
      });

      test('JPEGs whose header is damaged: all accepted in one upload (201, no dimensions), then failed', async () => {
        const listingId = await newGallery(ctx, owner);
        const good = await cameraJpeg(800, 600);
        // Byte-mutated copies: the first three bytes still sniff as JPEG, the header after them is noise.
        const damaged = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => {
          const random = mulberry32(seed);
          const copy = Buffer.from(good);
          for (let i = 3; i < 400; i += 1) if (random() < 0.5) copy[i] = Math.floor(random() * 256);
          return copy;
        });
        const files = [
          ...damaged.map((data, i) => ({ filename: `damaged-${i}.jpg`, contentType: 'image/jpeg', data })),
          { filename: 'good.jpg', contentType: 'image/jpeg', data: good },
        ];
        const media = await uploaded(ctx, owner.key, listingId, files);
        assert.equal(media.length, files.length);
        const byName = new Map(media.map((m) => [m.filename, m]));
        for (const [i] of damaged.entries()) {
          const m = byName.get(`damaged-${i}.jpg`) as MediaJson & { width: number | null; kind: string };
          assert.equal(m.kind, 'photo');
          assert.equal(m.content_type, 'image/jpeg');
        }
        const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
        await createJobRunner(
          ctx.deps,
          log,
          variantsHandler({ ...ctx.deps, writes: ctx.services.writes }, ctx.services.mediaCleanup, log),
        ).drain();
        for (const m of media) {
          const status = variantsOf(await getMedia(m)).status;
          // Noise may leave a header sharp still decodes; every other copy ends failed, and none stays pending.
          if (m.filename === 'good.jpg') assert.equal(status, 'ready');
          else assert.ok(status === 'failed' || status === 'ready', `${m.filename}: ${status}`);
        }
        const failed = await Promise.all(media.map(async (m) => variantsOf(await getMedia(m)).status === 'failed'));
        assert.ok(failed.filter(Boolean).length >= damaged.length / 2, `${failed.filter(Boolean).length} failed`);
      });

      test('an original that cannot be read is retried, then failed after 3 tries, with nothing left behind', async () => {
        const { photo } = await photoGallery(800, 600);
        const row = await ctx.deps.db.kysely
          .selectFrom('media')
          .select('storage_key')
          .where('id', '=', photo.id)
          .executeTakeFirstOrThrow();
        const before = await storedKeys(ctx);
        await ctx.deps.storage.delete(row.storage_key);
        for (let attempt = 1; attempt <= MAX_VARIANT_TRIES; attempt++) {
          await makeVariantsNow(ctx);
          const status = variantsOf(await getMedia(photo)).status;
          assert.equal(status, attempt < MAX_VARIANT_TRIES ? 'pending' : 'failed', `after try ${attempt}`);
          // The next try is not due at once: it waits for its back-off.
          await makeVariantsNow(ctx);
          assert.equal(variantsOf(await getMedia(photo)).status, status);
          now += 10 * 60_000;
        }
        const job = await ctx.deps.db.kysely
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', 'media.variants')
          .where('subject_id', '=', photo.id)
          .executeTakeFirst();
        assert.equal(job, undefined, 'the job is finished, not left to retry forever');
        // No variant bytes were kept from the failed tries (the ledger removes what a try wrote).
        await ctx.services.mediaCleanup.purgeDue({
          info: () => undefined,
          warn: () => undefined,
          error: () => undefined,
        });
        const after = await storedKeys(ctx);
        assert.deepEqual(
          after.filter((k) => !before.includes(k)),
          [],
        );
      });
    });

    describe('deleting removes the variants', () => {
      test("deleting a photo, then a gallery, leaves none of their variants' bytes", async () => {
        const empty = await storedKeys(ctx);
        const { listingId, photo } = await photoGallery(1200, 900);
        const [second] = (await uploaded(ctx, owner.key, listingId, [
          { filename: 'back.jpg', contentType: 'image/jpeg', data: await cameraJpeg(900, 1200) },
        ])) as [MediaJson];
        await makeVariantsNow(ctx);
        const withVariants = (await storedKeys(ctx)).filter((k) => !empty.includes(k));
        // Two originals; landscape photos share one encode for large and mls, portrait ones too here.
        assert.ok(withVariants.length >= 2 + 2 * 2, withVariants.join(', '));
        const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

        const keysOf = async (mediaId: string): Promise<string[]> =>
          [
            ...(await ctx.deps.db.kysely.selectFrom('media').select('storage_key').where('id', '=', mediaId).execute()),
            ...(await ctx.deps.db.kysely
              .selectFrom('media_variants')
              .select('storage_key')
              .where('media_id', '=', mediaId)
              .execute()),
          ].map((r) => r.storage_key);
        const ofPhoto = await keysOf(photo.id);
        assert.ok(ofPhoto.length >= 3, ofPhoto.join(', '));
        assert.ok(ofPhoto.every((k) => withVariants.includes(k)));

        const del = await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${photo.id}`, { key: owner.key });
        assert.equal(del.statusCode, 204, del.body);
        now += 60 * 60_000;
        await ctx.services.mediaCleanup.purgeDue(silent);
        const left = (await storedKeys(ctx)).filter((k) => !empty.includes(k));
        assert.deepEqual(
          left.filter((k) => ofPhoto.includes(k)),
          [],
        );
        assert.deepEqual(left.sort(), withVariants.filter((k) => !ofPhoto.includes(k)).sort());
        assert.equal(variantsOf(await getMedia(second)).status, 'ready');

        const gone = await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key });
        assert.equal(gone.statusCode, 204, gone.body);
        now += 60 * 60_000;
        await ctx.services.mediaCleanup.purgeDue(silent);
        assert.deepEqual(
          (await storedKeys(ctx)).filter((k) => !empty.includes(k)),
          [],
        );
      });
    });
  });
}
