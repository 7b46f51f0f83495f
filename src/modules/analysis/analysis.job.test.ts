// The `media.analyze` job end to end (docs/api.md §30), on SQLite and PostgreSQL: queued by the
// upload, waiting for the photo's variants, recorded with the gallery's similar groups and
// announced as media.analyzed; a photo that cannot be decoded ends failed; ANALYSIS=off queues
// nothing; `lightbox media analyze` queues what is missing or failed, once. The model stage's
// findings (from a stand-in reader: the models themselves are measured in analysis.models.test.ts)
// are recorded with the room and alt text, and the gallery's pages take the alt text as `alt`.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../../../test/support/test-app.ts'; // prettier-ignore
import { makeVariantsNow, newGallery, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import { truncatedJpeg } from '../../../test/support/photos.ts';
import { reencoded, roomPhoto } from '../../../test/support/analysis-photos.ts';
import type { Log } from '../../lib/log.ts';
import { createJobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { mediaAnalyzeCommand } from '../../cli/media.ts';
import { analysisHandler } from './analysis.job.ts';
import type { ModelAnalysis, ModelReader } from './analysis.models.ts';
import { linkedGallery, visit } from '../../../test/support/gallery.ts';
import { patchMedia } from '../../../test/support/gallery-order.ts';
import type { AnalysisType } from './analysis.serializer.ts';

const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ctx: TestContext;
let owner: TestAccount;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
});
after(() => ctx.close());

const analyseNow = () =>
  createJobRunner(ctx.deps, quiet, analysisHandler({ ...ctx.deps, writes: ctx.services.writes }, quiet)).drain();

async function get(m: MediaJson): Promise<MediaJson & { analysis: AnalysisType | null; alt_text: string | null }> {
  const res = await call(ctx, 'GET', `/v1/listings/${m.listing_id}/media/${m.id}`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const jobs = (kind: string) =>
  ctx.deps.db.kysely
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', kind as 'media.analyze')
    .execute();

test('an upload queues the analysis; it waits for the variants, then is ready, grouped and announced', async () => {
  const listingId = await newGallery(ctx, owner);
  const original = await roomPhoto(21);
  const media = (await uploaded(ctx, owner.key, listingId, [
    { filename: 'a.jpg', contentType: 'image/jpeg', data: original },
    { filename: 'b.jpg', contentType: 'image/jpeg', data: await reencoded(original, 50) },
    { filename: 'c.jpg', contentType: 'image/jpeg', data: await roomPhoto(22, { tilt: 3 }) },
    { filename: 'd.pdf', contentType: 'application/pdf', data: '%PDF-1.4\n%%EOF\n' },
  ])) as [MediaJson, MediaJson, MediaJson, MediaJson];
  const [a, b, c, doc] = media;
  assert.equal((await get(doc)).analysis, null);
  const pending = await get(a);
  assert.equal(pending.analysis?.status, 'pending');
  assert.equal(pending.analysis?.phash, null);
  assert.equal(pending.alt_text, null);

  // Before the variants: the job gives way, unattempted.
  await analyseNow();
  assert.equal((await get(a)).analysis?.status, 'pending');
  const waiting = (await jobs('media.analyze')).filter((j) => [a.id, b.id, c.id].includes(j.subject_id));
  assert.equal(waiting.length, 3);
  for (const j of waiting) assert.equal(j.attempts, 0);

  await makeVariantsNow(ctx);
  // Due again after GIVE_WAY_MS: made due now, as time passing would.
  await ctx.deps.db.kysely.updateTable('jobs').set({ run_at: new Date(0).toISOString() }).where('kind', '=', 'media.analyze').execute(); // prettier-ignore
  await analyseNow();
  const [ra, rb, rc] = [await get(a), await get(b), await get(c)];
  for (const m of [ra, rb, rc]) {
    const x = m.analysis;
    assert.equal(x?.status, 'ready');
    assert.match(x.phash ?? '', /^[0-9a-f]{16}$/);
    assert.ok(x.sharpness !== null && x.sharpness > 0 && x.sharpness <= 1);
    assert.equal(x.blurry, false);
    assert.ok(x.exposure !== null);
    // Not read by this installation: null, never a made-up zero or empty list.
    for (const field of ['faces', 'people', 'text', 'qr_codes', 'objects', 'room'] as const)
      assert.equal(x[field], null);
  }
  assert.ok(ra.analysis?.similar_group !== null && ra.analysis?.similar_group === rb.analysis?.similar_group);
  assert.equal([ra, rb].filter((m) => m.analysis?.best_in_group === true).length, 1);
  assert.equal(rc.analysis?.similar_group, null);
  assert.equal(rc.analysis?.best_in_group, true);
  assert.ok(Math.abs((rc.analysis?.tilt_degrees ?? 99) - 3) <= 0.5, `tilt ${rc.analysis?.tilt_degrees}`);

  const events = await ctx.deps.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('type', '=', 'media.analyzed')
    .execute();
  const announced = events.map((e) => JSON.parse(e.data) as { object: { id: string; analysis: AnalysisType } });
  for (const m of [a, b, c]) {
    const event = announced.find((e) => e.object.id === m.id);
    assert.ok(event !== undefined, `media.analyzed for ${m.filename}`);
    assert.equal(event.object.analysis.status, 'ready');
  }
  assert.equal((await jobs('media.analyze')).filter((j) => [a.id, b.id, c.id].includes(j.subject_id)).length, 0);
});

test('a photo that cannot be decoded ends failed; `lightbox media analyze` queues it again, once', async () => {
  const listingId = await newGallery(ctx, owner);
  const [bad] = (await uploaded(ctx, owner.key, listingId, [
    { filename: 'bad.jpg', contentType: 'image/jpeg', data: await truncatedJpeg() },
  ])) as [MediaJson];
  await makeVariantsNow(ctx);
  await analyseNow();
  assert.equal((await get(bad)).analysis?.status, 'failed');

  const out = new PassThrough();
  let printed = '';
  out.on('data', (d: Buffer) => (printed += d.toString()));
  const env = { ...(ctx.config.database.kind === 'postgres' ? { DATABASE_URL: ctx.config.database.url } : {}), DATA_DIR: ctx.dataDir }; // prettier-ignore
  const io = { stdin: new PassThrough(), stdout: out, stderr: new PassThrough(), env };
  assert.equal(await mediaAnalyzeCommand.run(['--listing', listingId], io), 0);
  assert.match(printed, /queued 1 photo\(s\) for analysis/);
  assert.equal((await get(bad)).analysis?.status, 'pending');
  printed = '';
  assert.equal(await mediaAnalyzeCommand.run(['--listing', listingId], io), 0);
  assert.match(printed, /queued 0 photo\(s\)/, 'one already queued is left alone');
  await assert.rejects(mediaAnalyzeCommand.run(['--listing', 'nope'], io), /--listing must be a gallery id/);
  await assert.rejects(mediaAnalyzeCommand.run([], { ...io, env: { ...env, ANALYSIS: 'off' } }), /ANALYSIS is off/);
});

test('ANALYSIS=off: a new photo has no analysis and no job', async () => {
  const off = await createTestContext({ ANALYSIS: 'off' });
  try {
    const account = await createAccount(off);
    const res = await call(off, 'POST', '/v1/listings', { key: account.key, body: { address: '2 Quiet Lane' } });
    const listingId = res.json<{ id: string }>().id;
    const [photo] = (await uploaded(off, account.key, listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await roomPhoto(23) },
    ])) as [MediaJson & { analysis: unknown }];
    assert.equal(photo.analysis, null);
    const queued = await off.deps.db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'media.analyze')
      .execute();
    assert.equal(queued.length, 0);
  } finally {
    await off.close();
  }
});

test('the model stage: findings recorded with the room and alt text; pages use caption, else alt text', async () => {
  const gallery = await linkedGallery(ctx, owner);
  const photos = await uploaded(ctx, owner.key, gallery.listingId, [
    { filename: 'a.jpg', contentType: 'image/jpeg', data: await roomPhoto(41) },
    { filename: 'b.jpg', contentType: 'image/jpeg', data: await roomPhoto(42) },
    { filename: 'c.jpg', contentType: 'image/jpeg', data: await roomPhoto(43) },
  ]);
  // Read in the order of their ids (one due time): the first is the kitchen, the last has a caption.
  const order = photos.sort((x, y) => (x.id < y.id ? -1 : 1)) as [MediaJson, MediaJson, MediaJson];
  const captioned = await patchMedia(ctx, owner.key, gallery.listingId, order[2].id, { caption: 'The hall sign' });
  assert.equal(captioned.statusCode, 200);
  await makeVariantsNow(ctx);
  const scene = { white: 0.05, dark: 0.1, saturation: 0.3, sky: 0, water: 0 };
  const cpuMs = { detect: 0, ocr: 0, qr: 0 };
  const none: ModelAnalysis = { faces: 0, people: 0, objects: [], text: [], qrCodes: [], scene, cpuMs };
  // What the stand-in reads, by the order the photos are read in (by id within a due time).
  const reads: ModelAnalysis[] = [
    {
      ...none,
      objects: [
        { label: 'oven', confidence: 0.81 },
        { label: 'refrigerator', confidence: 0.74 },
        { label: 'person', confidence: 0.52 },
      ],
      faces: 1,
      people: 1,
      text: [{ text: 'SALE', confidence: 0.95 }],
      qrCodes: [{ data: 'https://example.com/42' }],
    },
    { ...none, text: null },
    none,
  ];
  const files: string[] = [];
  const reader: ModelReader = {
    read: (file) => {
      files.push(file);
      return Promise.resolve(reads[files.length - 1] ?? none);
    },
    close: () => Promise.resolve(),
  };
  // Only these three are due: the rest of the file's jobs are done.
  await createJobRunner(ctx.deps, quiet, analysisHandler({ ...ctx.deps, writes: ctx.services.writes }, quiet, reader)).drain(); // prettier-ignore
  assert.equal(files.length, 3);
  const got = new Map(await Promise.all(order.map(async (m, i) => [i, await get(m)] as const)));
  const first = got.get(0)!;
  assert.equal(first.analysis?.status, 'ready');
  assert.deepEqual(
    {
      faces: first.analysis?.faces,
      people: first.analysis?.people,
      objects: first.analysis?.objects,
      text: first.analysis?.text,
      qr_codes: first.analysis?.qr_codes,
      room: first.analysis?.room,
    },
    {
      faces: 1,
      people: 1,
      objects: reads[0]!.objects,
      text: [{ text: 'SALE', confidence: 0.95 }],
      qr_codes: [{ data: 'https://example.com/42' }],
      room: { label: 'Kitchen', confidence: 0.951 },
    },
  );
  assert.equal(first.alt_text, 'Kitchen with an oven, a refrigerator and a person');
  // Text not read (ANALYSIS_OCR=off) is null; none found is an empty list and a zero.
  const second = got.get(1)!;
  assert.equal(second.analysis?.text, null);
  assert.deepEqual([second.analysis?.faces, second.analysis?.objects, second.analysis?.qr_codes], [0, [], []]);
  assert.deepEqual(second.analysis?.room, { label: 'Other', confidence: 0.2 });
  assert.equal(second.alt_text, null, 'nothing recognised: nothing to say');

  // The gallery page: the caption where there is one, else the alt text, else the photo's number.
  const page = await visit(ctx, gallery.path);
  assert.equal(page.statusCode, 200);
  const alts = [...page.body.matchAll(/<img[^>]*?alt="([^"]*)"/g)].map((m) => m[1]);
  assert.ok(alts.includes('Kitchen with an oven, a refrigerator and a person'), alts.join(' | '));
  assert.ok(alts.includes('The hall sign'), alts.join(' | '));
  assert.ok(
    alts.some((a) => a !== undefined && /^Photo [123]$/.test(a)),
    alts.join(' | '),
  );
});
