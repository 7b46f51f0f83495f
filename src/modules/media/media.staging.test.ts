// Virtual staging (docs/api.md §31): `virtually_staged` and `original_media_id` on the media object,
// set by PATCH; the original must be another photo of the same gallery that was not staged from
// this one; deleting the original clears it on the staged photo in the same write (media.updated);
// staging or unstaging queues the photo's variants again, and the job draws the label on `large`
// and `mls` (recorded as the rows' `mark`).
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
import { jpeg, mp4, pdf } from '../../../test/support/media-fixtures.ts';
import { makeVariantsNow, newGallery, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import { mediaUrl, patchMedia } from '../../../test/support/gallery-order.ts';

let ctx: TestContext;
let owner: TestAccount;
let stranger: TestAccount;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
  stranger = await createAccount(ctx, 'Other studio');
});

after(async () => {
  await ctx.close();
});

type Staged = MediaJson & { virtually_staged: boolean; original_media_id: string | null };

interface Gallery {
  listingId: string;
  staged: Staged;
  original: Staged;
  third: Staged;
  video: Staged;
  document: Staged;
}

async function gallery(account = owner): Promise<Gallery> {
  const listingId = await newGallery(ctx, account);
  const [staged, original, third, video, document] = (await uploaded(ctx, account.key, listingId, [
    { filename: 'living-staged.jpg', data: await jpeg(60, 40) },
    { filename: 'living.jpg', data: await jpeg(60, 40) },
    { filename: 'bedroom.jpg', data: await jpeg(40, 60) },
    { filename: 'walk.mp4', data: mp4() },
    { filename: 'plan.pdf', data: pdf('plan') },
  ])) as Staged[];
  return { listingId, staged: staged!, original: original!, third: third!, video: video!, document: document! };
}

const getMedia = async (listingId: string, id: string): Promise<Staged> => {
  const res = await call(ctx, 'GET', mediaUrl(listingId, id), { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Staged>();
};

async function updatedEvents(mediaId: string): Promise<Staged[]> {
  const rows = await ctx.deps.db.kysely
    .selectFrom('events')
    .select('data')
    .where('type', '=', 'media.updated')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => (JSON.parse(r.data) as { object: Staged }).object).filter((o) => o.id === mediaId);
}

const jobsOf = async (mediaId: string): Promise<string[]> =>
  (await ctx.deps.db.kysely.selectFrom('jobs').select('kind').where('subject_id', '=', mediaId).execute()).map(
    (j) => j.kind,
  );

describe('virtually_staged and original_media_id', () => {
  test('default false and null; PATCH sets both, GET and media.updated show them; null clears the original', async () => {
    const g = await gallery();
    assert.equal(g.staged.virtually_staged, false);
    assert.equal(g.staged.original_media_id, null);
    assert.equal(g.document.virtually_staged, false);

    const res = await patchMedia(ctx, owner.key, g.listingId, g.staged.id, {
      virtually_staged: true,
      original_media_id: g.original.id,
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Staged>();
    assert.equal(body.virtually_staged, true);
    assert.equal(body.original_media_id, g.original.id);
    const got = await getMedia(g.listingId, g.staged.id);
    assert.deepEqual([got.virtually_staged, got.original_media_id], [true, g.original.id]);
    const events = await updatedEvents(g.staged.id);
    assert.deepEqual(
      events.map((e) => [e.virtually_staged, e.original_media_id]),
      [[true, g.original.id]],
    );
    // The original itself is unchanged.
    assert.equal((await getMedia(g.listingId, g.original.id)).virtually_staged, false);

    const cleared = await patchMedia(ctx, owner.key, g.listingId, g.staged.id, { original_media_id: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.deepEqual([cleared.json<Staged>().virtually_staged, cleared.json<Staged>().original_media_id], [true, null]);
    const unstaged = await patchMedia(ctx, owner.key, g.listingId, g.staged.id, { virtually_staged: false });
    assert.equal(unstaged.json<Staged>().virtually_staged, false);
  });

  test('an original that is this photo, a video, a document, not of this gallery, or malformed is 400 naming original_media_id', async () => {
    const g = await gallery();
    const sibling = await gallery();
    const theirs = await gallery(stranger);
    assert.equal(
      (await patchMedia(ctx, owner.key, g.listingId, g.staged.id, { original_media_id: g.third.id })).statusCode,
      200,
    );
    const refused: unknown[] = [
      g.staged.id,
      g.video.id,
      g.document.id,
      sibling.original.id,
      theirs.original.id,
      g.listingId,
      'med_01JDOESNOTEXIST000000000000',
      'not an id',
      '',
      5,
      true,
      [g.original.id],
    ];
    for (const original of refused) {
      const res = await patchMedia(ctx, owner.key, g.listingId, g.staged.id, {
        original_media_id: original,
        caption: 'changed',
        virtually_staged: true,
      });
      const error = expectError(res, 400, 'validation_error');
      assert.deepEqual(
        [...new Set(detailFields(error))],
        ['original_media_id'],
        `${JSON.stringify(original)}: ${res.body}`,
      );
    }
    const after = await getMedia(g.listingId, g.staged.id);
    assert.equal(after.original_media_id, g.third.id, 'a refused original leaves the one there was');
    assert.equal(after.caption, null, 'and applies no other field');
    assert.equal(after.virtually_staged, false);
  });

  test('a cycle is refused: a photo staged from this one (directly or through others) cannot be its original', async () => {
    const g = await gallery();
    // third <- original <- staged (staged was made from original, original from third).
    assert.equal(
      (await patchMedia(ctx, owner.key, g.listingId, g.staged.id, { original_media_id: g.original.id })).statusCode,
      200,
    );
    assert.equal(
      (await patchMedia(ctx, owner.key, g.listingId, g.original.id, { original_media_id: g.third.id })).statusCode,
      200,
    );
    for (const [id, original] of [
      [g.original.id, g.staged.id],
      [g.third.id, g.staged.id],
      [g.third.id, g.original.id],
    ] as const) {
      const error = expectError(
        await patchMedia(ctx, owner.key, g.listingId, id, { original_media_id: original }),
        400,
        'validation_error',
      );
      assert.deepEqual(detailFields(error), ['original_media_id']);
      assert.match(error.message, /cycle/);
    }
    assert.equal((await getMedia(g.listingId, g.third.id)).original_media_id, null);
  });

  test('only photos are staged: virtually_staged true on a video or document is 400 naming it; a non-boolean too', async () => {
    const g = await gallery();
    for (const m of [g.video, g.document]) {
      const error = expectError(
        await patchMedia(ctx, owner.key, g.listingId, m.id, { virtually_staged: true }),
        400,
        'validation_error',
      );
      assert.deepEqual(detailFields(error), ['virtually_staged']);
      // false is what it is already: accepted.
      assert.equal((await patchMedia(ctx, owner.key, g.listingId, m.id, { virtually_staged: false })).statusCode, 200);
    }
    for (const value of ['yes', 1, null]) {
      const error = expectError(
        await patchMedia(ctx, owner.key, g.listingId, g.staged.id, { virtually_staged: value }),
        400,
        'validation_error',
      );
      assert.deepEqual([...new Set(detailFields(error))], ['virtually_staged'], JSON.stringify(value));
    }
  });

  test("another account cannot stage this gallery's photos (404)", async () => {
    const g = await gallery();
    expectError(
      await patchMedia(ctx, stranger.key, g.listingId, g.staged.id, { virtually_staged: true }),
      404,
      'not_found',
    );
    assert.equal((await getMedia(g.listingId, g.staged.id)).virtually_staged, false);
  });
});

describe('conditional requests', () => {
  test("staging changes the photo's ETag (304 no more)", async () => {
    const g = await gallery();
    const etag = async (id: string): Promise<string> =>
      String((await call(ctx, 'GET', mediaUrl(g.listingId, id), { key: owner.key })).headers.etag);
    const staged = await etag(g.staged.id);
    const again = await call(ctx, 'GET', mediaUrl(g.listingId, g.staged.id), {
      key: owner.key,
      headers: { 'if-none-match': staged },
    });
    assert.equal(again.statusCode, 304);
    await patchMedia(ctx, owner.key, g.listingId, g.staged.id, {
      virtually_staged: true,
      original_media_id: g.original.id,
    });
    const changed = await call(ctx, 'GET', mediaUrl(g.listingId, g.staged.id), {
      key: owner.key,
      headers: { 'if-none-match': staged },
    });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, staged);
  });
});

describe('deleting the original', () => {
  test('DELETE of the original sets original_media_id null on the staged photo, announced as media.updated', async () => {
    const g = await gallery();
    await patchMedia(ctx, owner.key, g.listingId, g.staged.id, {
      virtually_staged: true,
      original_media_id: g.original.id,
    });
    const res = await call(ctx, 'DELETE', mediaUrl(g.listingId, g.original.id), { key: owner.key });
    assert.equal(res.statusCode, 204, res.body);
    const after = await getMedia(g.listingId, g.staged.id);
    assert.deepEqual([after.virtually_staged, after.original_media_id], [true, null]);
    const last = (await updatedEvents(g.staged.id)).at(-1);
    assert.deepEqual([last?.virtually_staged, last?.original_media_id], [true, null]);
  });

  test("the dashboard's deletion of a selection clears it too", async () => {
    const g = await gallery();
    await patchMedia(ctx, owner.key, g.listingId, g.staged.id, { original_media_id: g.original.id });
    await patchMedia(ctx, owner.key, g.listingId, g.third.id, { original_media_id: g.original.id });
    assert.equal(await ctx.services.media.removeMany(owner.accountId, g.listingId, [g.original.id, g.video.id]), 2);
    for (const id of [g.staged.id, g.third.id]) {
      assert.equal((await getMedia(g.listingId, id)).original_media_id, null);
      assert.equal((await updatedEvents(id)).at(-1)?.original_media_id, null);
    }
  });
});

describe('the label on large and mls', () => {
  const marks = async (mediaId: string): Promise<Record<string, string | null>> =>
    Object.fromEntries(
      (
        await ctx.deps.db.kysely
          .selectFrom('media_variants')
          .select(['name', 'mark'])
          .where('media_id', '=', mediaId)
          .execute()
      ).map((r) => [r.name, r.mark]),
    );

  test('staging queues the variants again; the job labels large, mls (and medium), not thumb; unstaging removes it', async () => {
    const listingId = await newGallery(ctx, owner);
    const [photo] = (await uploaded(ctx, owner.key, listingId, [
      {
        filename: 'room.jpg',
        data: await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#d8cfc0' } })
          .jpeg()
          .toBuffer(),
      },
    ])) as Staged[];
    await makeVariantsNow(ctx);
    assert.deepEqual(await jobsOf(photo!.id), ['media.analyze']);
    const plain = await marks(photo!.id);
    assert.deepEqual([plain.large, plain.mls, plain.thumb], [null, null, null]);

    // A caption change queues nothing; staging does, once, even when sent twice.
    await patchMedia(ctx, owner.key, listingId, photo!.id, { caption: 'Living room' });
    assert.deepEqual(await jobsOf(photo!.id), ['media.analyze']);
    await patchMedia(ctx, owner.key, listingId, photo!.id, { virtually_staged: true });
    await patchMedia(ctx, owner.key, listingId, photo!.id, { virtually_staged: true });
    assert.deepEqual((await jobsOf(photo!.id)).sort(), ['media.analyze', 'media.variants']);
    // Until remade, the old variants are still served.
    assert.equal((await getMedia(listingId, photo!.id)).variants?.status, 'ready');
    await makeVariantsNow(ctx);
    const staged = await marks(photo!.id);
    assert.deepEqual([staged.large, staged.mls, staged.medium, staged.thumb], ['staged', 'staged', 'staged', null]);

    // The bottom-left corner of the served large variant is the label's dark box now.
    const large = (await getMedia(listingId, photo!.id)).variants?.large;
    assert.ok(large);
    const bytes = await call(ctx, 'GET', new URL(large.url).pathname, { key: owner.key });
    const corner = await sharp(bytes.rawPayload)
      .extract({ left: 30, top: large.height - 40, width: 4, height: 4 })
      .greyscale()
      .raw()
      .toBuffer();
    assert.ok(Math.max(...corner) < 120, `the label's box is dark: ${[...corner].join(',')}`);

    await patchMedia(ctx, owner.key, listingId, photo!.id, { virtually_staged: false });
    await makeVariantsNow(ctx);
    const unstaged = await marks(photo!.id);
    assert.deepEqual([unstaged.large, unstaged.mls], [null, null]);
  });
});
