// docs/api.md §32, the listing kit through the API: GET (none until asked), POST (202; 409 unless
// the gallery is active with a ready photo), the durable `listing.kit` job (run here by a runner as
// the serve process runs it), `listing.kit_ready`, the items served under the key (ETag, 304,
// Range), the MLS pack (names, photos.csv, compliance.txt, no metadata in any photo), the flyer
// (text, embedded fonts, the QR code opens the branded page), the social images' sizes, staleness
// and the rebuild it schedules (the test clock, never a sleep), and the bytes going with the gallery.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import jsqrModule from 'jsqr';
import sharp from 'sharp';
import { clockOf } from '../../lib/clock.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import {
  assertError,
  makeVariantsNow,
  newGallery,
  storedKeys,
  uploaded,
  type MediaJson,
} from '../../../test/support/media-helpers.ts';
import { cameraJpeg, sceneJpeg } from '../../../test/support/photos.ts';
import { startS3Server } from '../../../test/support/s3-server.ts';
import { createJobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { pendingJob } from '../../mechanisms/queue/queue.ts';
import { kitHandler } from './kit.job.ts';
import { modelReader } from '../analysis/analysis.models.thread.ts';
import { ffmpegPath, parseProbe } from '../variants/variants.video.ts';
import type { KitType } from './kit.schemas.ts';

const run = promisify(execFile);
const jsQR = jsqrModule.default;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ctx: TestContext;
let owner: TestAccount;
let now = Date.parse('2026-12-09T12:00:00.000Z');
let work: string;

async function buildNow(): Promise<void> {
  const runner = createJobRunner(
    ctx.deps,
    quiet,
    kitHandler({ ...ctx.deps, writes: ctx.services.writes }, ctx.services.mediaCleanup, quiet, {
      videoScale: 0.125,
      music: (id) => ctx.services.kitMusic.open(id),
    }),
  );
  await runner.drain();
}

async function getKit(listingId: string): Promise<KitType> {
  const res = await call(ctx, 'GET', `/v1/listings/${listingId}/kit`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<KitType>();
}

async function download(url: string, headers: Record<string, string> = {}) {
  return call(ctx, 'GET', new URL(url).pathname, { key: owner.key, headers });
}

/** An active gallery with facts and three photos (one hidden), variants made. */
async function readyGallery(): Promise<{ listingId: string; photos: MediaJson[] }> {
  const listingId = await newGallery(ctx, owner);
  const patch = await call(ctx, 'PATCH', `/v1/listings/${listingId}`, {
    key: owner.key,
    body: {
      address: '12 Quayside Lane',
      beds: 3,
      baths: 2,
      sqft: 1850,
      description: 'Light-filled family home by the water.',
      status: 'active',
    },
  });
  assert.equal(patch.statusCode, 200, patch.body);
  const photos = await uploaded(ctx, owner.key, listingId, [
    { filename: 'a.jpg', contentType: 'image/jpeg', data: await cameraJpeg(1600, 1200) },
    { filename: 'b.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1200, 900, 120) },
    { filename: 'c.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1200, 900, 240) },
    { filename: 'd.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1000, 800, 60) },
  ]);
  await makeVariantsNow(ctx);
  const [, second, , hidden] = photos as [MediaJson, MediaJson, MediaJson, MediaJson];
  for (const [media, body] of [
    [second, { caption: 'Kitchen, with "island" seating' }],
    [hidden, { hidden: true }],
  ] as const) {
    const res = await call(ctx, 'PATCH', `/v1/listings/${listingId}/media/${media.id}`, { key: owner.key, body });
    assert.equal(res.statusCode, 200, res.body);
  }
  return { listingId, photos };
}

for (const storage of ['local', 's3'] as const) {
  describe(`the listing kit on ${storage} storage`, () => {
    let stopS3: (() => Promise<void>) | undefined;
    before(async () => {
      let env: Record<string, string> = {};
      if (storage === 's3') {
        const server = await startS3Server();
        stopS3 = () => server.stop();
        env = { ...server.env, MEDIA_STORAGE: `s3://${server.bucket}/kit` };
      }
      ctx = await createTestContext(
        { ...env, ANALYSIS: 'off', KIT_SECONDS_PER_PHOTO: '2' },
        { clock: clockOf(() => now) },
      );
      owner = await createAccount(ctx, 'Harbour Light Studio');
      work = await mkdtemp(path.join(tmpdir(), 'kit-test-'));
    });
    after(async () => {
      await ctx.close();
      await stopS3?.();
      if (process.env.KIT_TEST_KEEP === undefined) await rm(work, { recursive: true, force: true });
      else console.log(work);
    });

    test('none until asked; 404 for a gallery of no one; 409 for a draft or a gallery with no ready photo', async () => {
      const listingId = await newGallery(ctx, owner);
      const kit = await getKit(listingId);
      assert.deepEqual(kit, {
        listing_id: listingId,
        status: 'none',
        built_at: null,
        mls_zip: null,
        slideshow: null,
        slideshow_unbranded: null,
        reel: null,
        teaser: null,
        flyer: null,
        social: null,
      });
      assertError(await call(ctx, 'GET', '/v1/listings/lst_nope/kit', { key: owner.key }), 404, 'not_found');
      const other = await createAccount(ctx);
      assertError(await call(ctx, 'GET', `/v1/listings/${listingId}/kit`, { key: other.key }), 404, 'not_found');
      assertError(await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: other.key }), 404, 'not_found');
      await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: owner.key, body: { status: 'draft' } });
      assertError(await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: owner.key }), 409, 'conflict');
      await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: owner.key, body: { status: 'active' } });
      assertError(await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: owner.key }), 409, 'conflict');
      assert.equal((await getKit(listingId)).status, 'none');
    });

    describe('a built kit', () => {
      let listingId: string;
      let photos: MediaJson[];
      let kit: KitType;
      let pageUrl: string;

      before(async () => {
        ({ listingId, photos } = await readyGallery());
        if (storage === 's3') {
          // The studio's music track (Settings > Studio) under the videos: on one of the two runs.
          const track = path.join(work, 'track.mp3');
          await run(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=4', '-c:a', 'libmp3lame', '-y', track]); // prettier-ignore
          await ctx.services.kitMusic.set(owner.accountId, await readFile(track));
        }
        const page = await call(ctx, 'PUT', `/v1/listings/${listingId}/property_page`, { key: owner.key });
        assert.equal(page.statusCode, 200, page.body);
        pageUrl = page.json<{ property_page: { url: string } }>().property_page.url;
        const res = await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: owner.key });
        assert.equal(res.statusCode, 202, res.body);
        assert.equal(res.json<KitType>().status, 'building');
        assert.equal((await getKit(listingId)).status, 'building');
        await buildNow();
        kit = await getKit(listingId);
      });

      test('ready, with built_at and its items; listing.kit_ready carries it', async () => {
        assert.equal(kit.status, 'ready');
        assert.equal(kit.built_at, new Date(now).toISOString());
        assert.equal(kit.mls_zip?.content_type, 'application/zip');
        assert.equal(kit.flyer?.content_type, 'application/pdf');
        for (const [name, video] of Object.entries({
          slideshow: kit.slideshow,
          slideshow_unbranded: kit.slideshow_unbranded,
          reel: kit.reel,
          teaser: kit.teaser,
        })) {
          assert.equal(video?.content_type, 'video/mp4', name);
          assert.ok((video?.duration_seconds ?? 0) > 0, name);
          // Made at an eighth of their size here (the job's test option): the orientation is theirs.
          assert.deepEqual([video?.width, video?.height], name === 'reel' ? [136, 240] : [240, 136], name);
        }
        assert.ok((kit.teaser?.duration_seconds ?? 99) <= 15);
        assert.deepEqual(
          kit.social?.map((s) => [s.format, s.width, s.height, s.content_type]),
          [
            ['square', 1080, 1080, 'image/jpeg'],
            ['portrait', 1080, 1350, 'image/jpeg'],
            ['story', 1080, 1920, 'image/jpeg'],
          ],
        );
        const events = await call(ctx, 'GET', '/v1/events?type=listing.kit_ready', { key: owner.key });
        assert.equal(events.statusCode, 200, events.body);
        const [event] = events.json<{ data: { type: string; data: { object: KitType } }[] }>().data;
        assert.deepEqual(event?.data.object, kit);
      });

      test('items are served under the key with a strong ETag, 304 and Range; 404 before they are made', async () => {
        const url = kit.flyer?.url ?? '';
        assert.ok(url.startsWith(`${ctx.config.publicUrl}/v1/listings/${listingId}/kit/flyer`), url);
        const res = await download(url);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'application/pdf');
        assert.equal(res.rawPayload.length, kit.flyer?.size);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.match(String(res.headers['content-disposition']), /^attachment; filename="?flyer.pdf"?$/);
        const etag = String(res.headers.etag);
        assert.match(etag, /^"/);
        assert.equal((await download(url, { 'if-none-match': etag })).statusCode, 304);
        const part = await download(url, { range: 'bytes=0-3' });
        assert.equal(part.statusCode, 206);
        assert.equal(part.rawPayload.toString('latin1'), '%PDF');
        const fresh = await newGallery(ctx, owner);
        assertError(
          await call(ctx, 'GET', `/v1/listings/${fresh}/kit/slideshow`, { key: owner.key }),
          404,
          'not_found',
        );
        const video = await download(kit.slideshow_unbranded?.url ?? '');
        assert.equal(video.statusCode, 200);
        assert.equal(video.headers['content-type'], 'video/mp4');
        const mp4 = path.join(work, `${storage}-unbranded.mp4`);
        await writeFile(mp4, video.rawPayload);
        // The installed ffmpeg has no ffprobe: `ffmpeg -i` says what a file holds (and exits 1).
        const said = await run(ffmpegPath(), ['-hide_banner', '-i', mp4]).catch(
          (err: unknown) => err as { stderr: string },
        );
        const probed = parseProbe(said.stderr);
        assert.equal(probed?.videoCodec, 'h264');
        if (storage === 's3') assert.equal(probed.audioCodec, 'aac', 'the studio’s music track');
        else assert.equal(probed.audioCodec, null, 'no music track: no audio stream');
        assertError(
          await call(ctx, 'GET', `/v1/listings/${listingId}/kit/nope`, { key: owner.key }),
          400,
          'validation_error',
        );
        const other = await createAccount(ctx);
        assertError(await call(ctx, 'GET', new URL(url).pathname, { key: other.key }), 404, 'not_found');
      });

      test('the MLS pack: the visible photos in order, named NN-room.jpg, photos.csv, compliance.txt, no metadata', async () => {
        const res = await download(kit.mls_zip?.url ?? '');
        assert.equal(res.statusCode, 200);
        const zipFile = path.join(work, `${storage}-mls.zip`);
        await writeFile(zipFile, res.rawPayload);
        const out = path.join(work, `${storage}-mls`);
        await run('unzip', ['-q', zipFile, '-d', out]);
        assert.deepEqual((await readdir(out)).sort(), [
          '01-photo.jpg',
          '02-photo.jpg',
          '03-photo.jpg',
          'compliance.txt',
          'photos.csv',
        ]);
        const csv = await readFile(path.join(out, 'photos.csv'), 'utf8');
        const lines = csv.split('\r\n');
        assert.equal(lines[0], 'file,order,room,caption,alt_text,width,height');
        assert.equal(lines[2], '02-photo.jpg,2,photo,"Kitchen, with ""island"" seating",,1200,900');
        assert.match(lines[1] ?? '', /^01-photo\.jpg,1,photo,,,1152,1536$/);
        assert.equal(lines.length, 5);
        assert.equal(await readFile(path.join(out, 'compliance.txt'), 'utf8'), 'No MLS profile\r\n');
        for (const name of ['01-photo.jpg', '02-photo.jpg', '03-photo.jpg']) {
          const meta = await sharp(path.join(out, name)).metadata();
          assert.equal(meta.format, 'jpeg');
          assert.equal(meta.exif, undefined, name);
          assert.equal(meta.xmp, undefined, name);
          assert.equal(meta.iptc, undefined, name);
          assert.equal(meta.comments, undefined, name);
        }
        const first = await sharp(path.join(out, '01-photo.jpg')).metadata();
        assert.deepEqual([first.width, first.height], [1152, 1536]);
        assert.ok(photos.length === 4);
      });

      test('the flyer: one page, the facts as text, fonts embedded, a QR code that opens the branded page', async () => {
        const res = await download(kit.flyer?.url ?? '');
        const file = path.join(work, `${storage}-flyer.pdf`);
        await writeFile(file, res.rawPayload);
        const { stdout: text } = await run('pdftotext', ['-layout', file, '-']);
        for (const needle of [
          '12 Quayside Lane',
          '3 beds',
          '2 baths',
          '1,850 sqft',
          'Light-filled family home',
          'Harbour Light Studio',
        ]) {
          assert.ok(text.includes(needle), `${needle} in ${text}`);
        }
        assert.equal(text.split('\f').filter((p) => p.trim() !== '').length, 1);
        const { stdout: fonts } = await run('pdffonts', [file]);
        const rows = fonts.trim().split('\n').slice(2);
        assert.ok(rows.length >= 2, fonts);
        for (const row of rows) assert.match(row, /DejaVuSans.*\byes\s+yes\b/, row);
        await run('pdftoppm', ['-r', '110', '-png', '-singlefile', file, path.join(work, `${storage}-flyer`)]);
        const { data, info } = await sharp(path.join(work, `${storage}-flyer.png`))
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        const qr = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height);
        assert.equal(qr?.data, pageUrl);
      });

      test('the social images: 1080 wide JPEGs of their sizes, no metadata', async () => {
        for (const image of kit.social ?? []) {
          const res = await download(image.url);
          const meta = await sharp(res.rawPayload).metadata();
          assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', image.width, image.height]);
          assert.equal(meta.exif, undefined);
          await writeFile(path.join(work, `${storage}-social-${image.format}.jpg`), res.rawPayload);
        }
      });

      test(
        'the address set over the square image reads back (the analysis OCR)',
        { skip: storage === 's3' },
        async () => {
          const reader = modelReader({ ocr: true, maxPixels: 100_000_000 });
          try {
            const read = await reader.read(path.join(work, `${storage}-social-square.jpg`));
            const words = (read.text ?? []).map((w) => w.text.toLowerCase()).join(' ');
            assert.ok(words.includes('quayside'), words);
          } finally {
            await reader.close();
          }
        },
      );

      test('a change of what it shows makes it stale and schedules a rebuild within a minute; the rebuild replaces the bytes', async () => {
        const before = await storedKeys(ctx);
        // A change it does not show (a client link's view, say) leaves it ready: here, the same caption again.
        const [first] = photos as [MediaJson];
        const same = await call(ctx, 'PATCH', `/v1/listings/${listingId}/media/${first.id}`, {
          key: owner.key,
          body: { caption: null },
        });
        assert.equal(same.statusCode, 200, same.body);
        assert.equal((await getKit(listingId)).status, 'ready');
        const res = await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key: owner.key, body: { beds: 4 } });
        assert.equal(res.statusCode, 200, res.body);
        const stale = await getKit(listingId);
        assert.equal(stale.status, 'stale');
        assert.deepEqual(stale.flyer, kit.flyer, 'the last build is served meanwhile');
        const job = await pendingJob(ctx.deps.db.kysely, 'listing.kit', listingId);
        const due = Date.parse(job?.run_at ?? '') - now;
        assert.ok(due > 0 && due <= 60_000, String(due));
        await buildNow();
        assert.equal((await getKit(listingId)).status, 'stale', 'not due yet');
        now += due;
        await buildNow();
        const rebuilt = await getKit(listingId);
        assert.equal(rebuilt.status, 'ready');
        assert.equal(rebuilt.built_at, new Date(now).toISOString());
        assert.notEqual(rebuilt.flyer?.size, undefined);
        const after = await storedKeys(ctx);
        assert.equal(after.length, before.length, 'the old items went when the new ones came');
        kit = rebuilt;
      });

      test('deleting the gallery removes its kit bytes', async () => {
        const before = await storedKeys(ctx);
        assert.ok(before.some((k) => k.includes('/kit-')));
        const res = await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key });
        assert.equal(res.statusCode, 204, res.body);
        const after = await storedKeys(ctx);
        assert.ok(!after.some((k) => k.includes(listingId)), after.join());
      });
    });
  });
}
