// Video variants (docs/api.md §25), the ffmpeg work and the job: poster and web rendition made
// through the one `media.variants` job and served like photo variants; `web` null for an H.264/AAC
// MP4 with its index at the front within 1920x1080, which gets the pages' stripped copy instead
// (none of the original's tags); `failed` for what cannot be decoded and for a
// run past its time limit (ffmpeg killed, not left running); the memory bound. Test videos are
// made with the installed ffmpeg itself (test/support/videos.ts).
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../../../test/support/test-app.ts'; // prettier-ignore
import { makeVariantsNow, newGallery, storedKeys, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts'; // prettier-ignore
import { makeVideo, undecodableMp4, videoTags } from '../../../test/support/videos.ts';
import { VariantError } from './variants.images.ts';
import { ffmpegPath, isFastStart, makeVideoVariants, parseProbe, runFfmpeg, type VideoLimits } from './variants.video.ts'; // prettier-ignore

const run = promisify(execFile);
const LIMITS: VideoLimits = { timeoutMs: 60_000, memoryBytes: 2048 * 1024 ** 2, threads: 1 };

interface VideoVariant {
  url: string;
  content_type: string;
  width: number;
  height: number;
  size: number;
}
type VideoVariants = { status: 'pending' | 'ready' | 'failed'; poster: VideoVariant | null; web: VideoVariant | null };
const variantsOf = (m: MediaJson): VideoVariants => (m as unknown as { variants: VideoVariants }).variants;

/** What ffmpeg says about a file's streams. */
async function streams(file: string): Promise<string> {
  try {
    await run(ffmpegPath(), ['-hide_banner', '-i', file]);
  } catch (err) {
    return String((err as { stderr?: string }).stderr);
  }
  return '';
}

describe('the installed ffmpeg', () => {
  test('has the H.264 (libx264) and AAC encoders', async () => {
    const { stdout } = await run(ffmpegPath(), ['-hide_banner', '-encoders']);
    assert.match(stdout, /^ V\S* libx264 /m);
    assert.match(stdout, /^ A\S* aac /m);
  });
});

describe('probing', () => {
  test('reads codec, pixel format, audio, size (rotation and pixel aspect applied) and duration', () => {
    const stderr = `Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'a.mp4':
  Duration: 00:01:02.50, start: 0.000000, bitrate: 146 kb/s
    Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p(tv, bt709), 1920x1080 [SAR 1:1 DAR 16:9], 62 kb/s, 25 fps (default)
    Metadata:
      rotate          : 90
    Side data:
      displaymatrix: rotation of -90.00 degrees
    Stream #0:1(und): Audio: aac (LC) (mp4a / 0x6134706D), 44100 Hz, stereo, fltp, 73 kb/s (default)`;
    assert.deepEqual(parseProbe(stderr), {
      videoCodec: 'h264',
      pixelFormat: 'yuv420p',
      audioCodec: 'aac',
      width: 1080,
      height: 1920,
      duration: 62.5,
    });
    const anamorphic = parseProbe(
      '  Duration: N/A\n    Stream #0:0: Video: mpeg2video (Main), yuv420p(tv, top first), 720x576 [SAR 64:45 DAR 16:9], 25 fps',
    );
    assert.deepEqual(anamorphic && { w: anamorphic.width, h: anamorphic.height, d: anamorphic.duration, a: anamorphic.audioCodec }, { w: 1024, h: 576, d: null, a: null }); // prettier-ignore
    assert.equal(parseProbe("[mov,mp4 @ 0x1] moov atom not found\na.mp4: Invalid data found when processing input"), undefined); // prettier-ignore
  });

  test('faststart: the index box before the media data', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-faststart-'));
    try {
      const front = path.join(dir, 'front.mp4');
      const tail = path.join(dir, 'tail.mp4');
      await writeFile(front, await makeVideo('h264-faststart'));
      await writeFile(tail, await makeVideo('h264-tail'));
      assert.equal(await isFastStart(front), true);
      assert.equal(await isFastStart(tail), false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('making the variants', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-video-variants-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function make(data: Buffer, contentType = 'video/mp4', limits = LIMITS) {
    const source = path.join(dir, `in-${Math.random().toString(36).slice(2)}`);
    await writeFile(source, data);
    const out = new Map<string, Buffer>();
    const made = await makeVideoVariants(
      source,
      contentType,
      dir,
      async (name, body) => {
        const chunks: Buffer[] = [];
        for await (const c of body) chunks.push(c as Buffer);
        out.set(name, Buffer.concat(chunks));
      },
      limits,
    );
    return { made, out };
  }

  test('an HEVC original larger than the box: a JPEG poster within 1280x1280 and an H.264/AAC faststart MP4 within 1920x1080', async () => {
    const { made, out } = await make(await makeVideo('hevc', { width: 2560, height: 1440, seconds: 1 }));
    assert.deepEqual(
      made.map((m) => [m.name, m.contentType, m.width, m.height]),
      [
        ['poster', 'image/jpeg', 1280, 720],
        ['web', 'video/mp4', 1920, 1080],
      ],
    );
    const poster = await sharp(out.get('poster')).metadata();
    assert.deepEqual([poster.format, poster.width, poster.height], ['jpeg', 1280, 720]);
    assert.equal(made[0]?.size, out.get('poster')?.length);
    const web = path.join(dir, 'web-check.mp4');
    await writeFile(web, out.get('web')!);
    assert.equal(made[1]?.size, out.get('web')?.length);
    assert.equal(await isFastStart(web), true);
    const probe = parseProbe(await streams(web));
    assert.deepEqual(probe && [probe.videoCodec, probe.pixelFormat, probe.audioCodec, probe.width, probe.height], ['h264', 'yuv420p', 'aac', 1920, 1080]); // prettier-ignore
  });

  test('a WebM and an MP4 whose index is at the end get a web rendition, at their own size (never enlarged)', async () => {
    for (const [data, type] of [
      [await makeVideo('vp8'), 'video/webm'],
      [await makeVideo('h264-tail'), 'video/mp4'],
      [await makeVideo('mpeg4'), 'video/mp4'],
    ] as const) {
      const { made } = await make(data, type);
      assert.deepEqual(
        made.map((m) => [m.name, m.width, m.height]),
        [
          ['poster', 320, 180],
          ['web', 320, 180],
        ],
        type,
      );
    }
  });

  test('an H.264/AAC MP4 with its index at the front, within the box: a poster and, for no web rendition, a stripped copy', async () => {
    const original = await makeVideo('h264-faststart', {
      metadata: { tags: { title: 'STUDIO tour', artist: 'STUDIO' }, streamTags: { handler_name: 'STUDIO' }, chapter: 'STUDIO' }, // prettier-ignore
    });
    const { made, out } = await make(original);
    assert.deepEqual(
      made.map((m) => [m.name, m.contentType, m.width, m.height]),
      [
        ['poster', 'image/jpeg', 320, 180],
        ['stripped', 'video/mp4', 320, 180],
      ],
    );
    // The original's streams as they were, in a new MP4 with its index first and none of its tags.
    const copy = out.get('stripped')!;
    assert.equal(made[1]?.size, copy.length);
    assert.ok(original.includes('STUDIO') && !copy.includes('STUDIO'));
    const file = path.join(dir, 'stripped-check.mp4');
    await writeFile(file, copy);
    assert.equal(await isFastStart(file), true);
    const said = await streams(file);
    const probe = parseProbe(said);
    assert.deepEqual(probe && [probe.videoCodec, probe.audioCodec, probe.width, probe.height], [
      'h264',
      'aac',
      320,
      180,
    ]);
    assert.doesNotMatch(said, /Chapter #|title|artist|encoder/);
    const { tags, chapters } = await videoTags(copy);
    assert.equal(chapters, 0);
    assert.deepEqual(
      tags.flatMap((t) => [...t.keys()]).filter((k) => !/^(major_brand|minor_version|compatible_brands|handler_name)$/.test(k)), // prettier-ignore
      [],
    );
    // The same bytes declared (sniffed) as QuickTime are not an MP4: they get one.
    const { made: mov } = await make(await makeVideo('h264-faststart'), 'video/quicktime');
    assert.deepEqual(
      mov.map((m) => m.name),
      ['poster', 'web'],
    );
  });

  test("the web rendition keeps none of the original's tags, streams' tags or chapters either", async () => {
    const original = await makeVideo('mpeg4', {
      metadata: { tags: { title: 'STUDIO tour', comment: 'by STUDIO' }, streamTags: { handler_name: 'STUDIO' }, chapter: 'STUDIO' }, // prettier-ignore
    });
    const { out } = await make(original);
    const web = out.get('web')!;
    assert.ok(original.includes('STUDIO') && !web.includes('STUDIO'));
    const { tags, chapters } = await videoTags(web);
    assert.equal(chapters, 0);
    assert.deepEqual(
      tags.flatMap((t) => [...t]).filter(([k]) => !/^(major_brand|minor_version|compatible_brands|handler_name)$/.test(k)), // prettier-ignore
      [],
    );
  });

  test('a file that cannot be decoded is a VariantError', async () => {
    await assert.rejects(make(undecodableMp4()), (err: unknown) => {
      assert.ok(err instanceof VariantError);
      assert.match(err.message, /cannot be decoded/);
      return true;
    });
  });

  test('past its time limit ffmpeg is killed and the video is a VariantError', async () => {
    const started = Date.now();
    await assert.rejects(
      runFfmpeg(
        ['-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=25', '-t', '600', '-c:v', 'libx264', '-f', 'null', '-'],
        {
          ...LIMITS,
          timeoutMs: 800,
        },
      ),
      (err: unknown) => {
        assert.ok(err instanceof VariantError);
        assert.match(err.message, /longer than 1 s/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 10_000);
    const { stdout } = await run('ps', ['-eo', 'args']);
    assert.doesNotMatch(stdout, /testsrc=size=1280x720:rate=25/, 'ffmpeg is still running');
  });

  test('ffmpeg runs within its memory bound: a 1080p encode fits the default, and fails as a VariantError under 250 MiB', async () => {
    const encode = ['-f', 'lavfi', '-i', 'testsrc=size=1920x1080:rate=25', '-t', '0.4', '-c:v', 'libx264', '-preset', 'veryfast', '-f', 'null', '-']; // prettier-ignore
    await runFfmpeg(encode, LIMITS);
    for (const mib of [150, 250]) {
      await assert.rejects(
        runFfmpeg(encode, { ...LIMITS, memoryBytes: mib * 1024 ** 2 }),
        (err: unknown) => err instanceof VariantError,
        `${mib} MiB`,
      );
    }
  });

  test("ffmpeg runs at the nice value asked (a kit build gives way), else at the service's", async () => {
    // A stand-in for ffmpeg that says its own nice value on stderr, which runFfmpeg answers.
    const binary = path.join(dir, 'say-nice.sh');
    await writeFile(binary, '#!/bin/sh\nnice >&2\n', { mode: 0o755 });
    const own = os.getPriority();
    assert.equal((await runFfmpeg([], { ...LIMITS, niceness: 10 }, { binary })).trim(), String(Math.max(own, Math.min(19, own + 10)))); // prettier-ignore
    assert.equal((await runFfmpeg([], LIMITS, { binary })).trim(), String(own));
  });

  test('leaves nothing in its temporary folder', async () => {
    await make(await makeVideo('mpeg4'));
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.startsWith('video-')),
      [],
    );
  });
});

describe('through the media.variants job and the API', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx);
  });
  after(async () => {
    await ctx.close();
  });

  const get = async (m: MediaJson): Promise<MediaJson> => {
    const res = await call(ctx, 'GET', `/v1/listings/${m.listing_id}/media/${m.id}`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<MediaJson>();
  };
  const variantUrl = (m: MediaJson, name: string): string => `/v1/listings/${m.listing_id}/media/${m.id}/variants/${name}`; // prettier-ignore

  test('pending on upload; then ready: a poster and web served like photo variants, web null for a file that plays as it is, failed for garbage', async () => {
    const listingId = await newGallery(ctx, owner);
    const [needsWeb, playsAsIs, garbage] = (await uploaded(ctx, owner.key, listingId, [
      {
        filename: 'walkthrough.mp4',
        contentType: 'video/mp4',
        data: await makeVideo('mpeg4', { width: 480, height: 270 }),
      },
      { filename: 'drone.mp4', contentType: 'video/mp4', data: await makeVideo('h264-faststart') },
      { filename: 'broken.mp4', contentType: 'video/mp4', data: undecodableMp4() },
    ])) as [MediaJson, MediaJson, MediaJson];
    for (const m of [needsWeb, playsAsIs, garbage]) {
      assert.equal(m.kind, 'video');
      assert.deepEqual(variantsOf(m), { status: 'pending', poster: null, web: null });
      const res = await call(ctx, 'GET', variantUrl(m, 'poster'), { key: owner.key });
      assert.equal(res.statusCode, 404);
    }
    const job = await ctx.deps.db.kysely.selectFrom('jobs').select('kind').where('subject_id', '=', needsWeb.id).executeTakeFirst(); // prettier-ignore
    assert.equal(job?.kind, 'media.variants', 'the one durable queue, the photos job');

    await makeVariantsNow(ctx);

    const made = variantsOf(await get(needsWeb));
    assert.equal(made.status, 'ready');
    assert.deepEqual(made.poster && [made.poster.content_type, made.poster.width, made.poster.height], ['image/jpeg', 480, 270]); // prettier-ignore
    assert.deepEqual(made.web && [made.web.content_type, made.web.width, made.web.height], ['video/mp4', 480, 270]);
    assert.equal(made.web?.url, `${ctx.config.publicUrl}${variantUrl(needsWeb, 'web')}`);

    const web = await call(ctx, 'GET', variantUrl(needsWeb, 'web'), { key: owner.key });
    assert.equal(web.statusCode, 200);
    assert.equal(web.headers['content-type'], 'video/mp4');
    assert.equal(web.rawPayload.length, made.web?.size);
    assert.match(String(web.headers['content-disposition']), /^attachment; filename="?med_\w+-web\.mp4"?$/);
    assert.equal(web.headers['x-content-type-options'], 'nosniff');
    const again = await call(ctx, 'GET', variantUrl(needsWeb, 'web'), {
      key: owner.key,
      headers: { 'if-none-match': String(web.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    const part = await call(ctx, 'GET', variantUrl(needsWeb, 'web'), {
      key: owner.key,
      headers: { range: 'bytes=0-99' },
    });
    assert.equal(part.statusCode, 206);
    assert.equal(part.rawPayload.length, 100);
    const poster = await call(ctx, 'GET', variantUrl(needsWeb, 'poster'), { key: owner.key });
    assert.equal(poster.statusCode, 200);
    assert.equal(poster.headers['content-type'], 'image/jpeg');
    assert.equal((await sharp(poster.rawPayload).metadata()).format, 'jpeg');

    const asIs = variantsOf(await get(playsAsIs));
    assert.equal(asIs.status, 'ready');
    assert.ok(asIs.poster !== null);
    assert.equal(asIs.web, null, 'an H.264/AAC faststart MP4 within 1920x1080 needs no rendition');
    assert.equal((await call(ctx, 'GET', variantUrl(playsAsIs, 'web'), { key: owner.key })).statusCode, 404);

    assert.deepEqual(variantsOf(await get(garbage)), { status: 'failed', poster: null, web: null });
    const left = await ctx.deps.db.kysely.selectFrom('jobs').select('id').where('subject_id', 'in', [needsWeb.id, playsAsIs.id, garbage.id]).execute(); // prettier-ignore
    assert.deepEqual(left, [], 'no job left: the failed one is not retried forever');

    // A photo name on a video is 404; a name that is no variant's is 400.
    assert.equal((await call(ctx, 'GET', variantUrl(needsWeb, 'thumb'), { key: owner.key })).statusCode, 404);
    assert.equal((await call(ctx, 'GET', variantUrl(needsWeb, 'huge'), { key: owner.key })).statusCode, 400);

    // The API lists no stripped copy (docs/api.md §25 names two); the unbranded page plays it.
    assert.deepEqual(Object.keys(asIs), ['status', 'poster', 'web']);
    assert.equal((await call(ctx, 'GET', variantUrl(playsAsIs, 'stripped'), { key: owner.key })).statusCode, 400);

    // Deleting the video removes its variants' bytes too.
    const before = (await storedKeys(ctx)).filter((k) => k.includes(listingId));
    assert.equal(before.length, 3 + 2 + 2, 'three originals, a poster and a web rendition, a poster and a stripped copy'); // prettier-ignore
    const del = await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${needsWeb.id}`, { key: owner.key });
    assert.equal(del.statusCode, 204);
    await ctx.services.mediaCleanup.purgeDue();
    const afterDelete = (await storedKeys(ctx)).filter((k) => k.includes(listingId));
    assert.equal(afterDelete.length, 4, 'the two originals left, the other poster and copy');
  });

  test('`lightbox media variants` remakes a failed video once it can be decoded', async () => {
    const listingId = await newGallery(ctx, owner);
    const [video] = (await uploaded(ctx, owner.key, listingId, [
      { filename: 'later.mp4', contentType: 'video/mp4', data: undecodableMp4() },
    ])) as [MediaJson];
    await makeVariantsNow(ctx);
    assert.equal(variantsOf(await get(video)).status, 'failed');
    const row = await ctx.deps.db.kysely.selectFrom('media').select('storage_key').where('id', '=', video.id).executeTakeFirstOrThrow(); // prettier-ignore
    const { Readable } = await import('node:stream');
    await ctx.deps.storage.put(row.storage_key, Readable.from([await makeVideo('mpeg4')]), {
      contentType: 'video/mp4',
    });
    assert.ok((await ctx.services.variants.remake('failed')) >= 1);
    await makeVariantsNow(ctx);
    const v = variantsOf(await get(video));
    assert.equal(v.status, 'ready');
    assert.ok(v.poster !== null && v.web !== null);
  });
});
