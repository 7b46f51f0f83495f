// The gallery's cover (docs/api.md §13): `cover_media_id` on PATCH /v1/listings/:id must be a photo of
// that gallery, null clears it, deleting that photo (or the gallery) clears it, and no
// interleaving of a cover change with that photo's deletion leaves a cover pointing nowhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  isPostgres,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, mp4, pdf } from '../../../test/support/media-fixtures.ts';
import { newGallery, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import { galleryJson, mediaUrl, patchGallery, patchMedia } from '../../../test/support/gallery-order.ts';

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

interface Gallery {
  listingId: string;
  photo: MediaJson;
  second: MediaJson;
  video: MediaJson;
  document: MediaJson;
}

/** A gallery holding two photos, a video and a document. */
async function gallery(account = owner): Promise<Gallery> {
  const listingId = await newGallery(ctx, account);
  const [photo, video, document, second] = await uploaded(ctx, account.key, listingId, [
    { filename: 'front.jpg', data: await jpeg(30, 20) },
    { filename: 'walk.mp4', data: mp4() },
    { filename: 'plan.pdf', data: pdf('plan') },
    { filename: 'back.jpg', data: await jpeg(20, 30) },
  ]);
  assert.deepEqual(
    [photo, video, document, second].map((m) => m?.kind),
    ['photo', 'video', 'document', 'photo'],
  );
  return { listingId, photo: photo!, second: second!, video: video!, document: document! };
}

const storedCover = async (listingId: string): Promise<string | null | undefined> =>
  (
    await ctx.deps.db.kysely
      .selectFrom('listings')
      .select('cover_media_id')
      .where('id', '=', listingId)
      .executeTakeFirst()
  )?.cover_media_id;

describe('cover_media_id', () => {
  test('a photo of this gallery is accepted and shown by GET; null clears it', async () => {
    const g = await gallery();
    const before = await galleryJson(ctx, owner.key, g.listingId);
    assert.equal(before.cover_media_id, null, 'no cover until one is chosen');

    const res = await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.photo.id });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ cover_media_id: string }>().cover_media_id, g.photo.id);
    assert.equal((await galleryJson(ctx, owner.key, g.listingId)).cover_media_id, g.photo.id);
    assert.equal(await storedCover(g.listingId), g.photo.id);

    const other = await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: `  ${g.second.id} ` });
    assert.equal(other.statusCode, 200, other.body);
    assert.equal((await galleryJson(ctx, owner.key, g.listingId)).cover_media_id, g.second.id);

    const cleared = await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.json<{ cover_media_id: null }>().cover_media_id, null);
    assert.equal(await storedCover(g.listingId), null);
  });

  test('a hidden photo may be the cover (the client gallery then uses the first visible one)', async () => {
    const g = await gallery();
    assert.equal((await patchMedia(ctx, owner.key, g.listingId, g.photo.id, { hidden: true })).statusCode, 200);
    const res = await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.photo.id });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await storedCover(g.listingId), g.photo.id);
  });

  test("a video, a document, another gallery's or account's photo, or a malformed id is 400 naming cover_media_id", async () => {
    const g = await gallery();
    const sibling = await gallery();
    const theirs = await gallery(stranger);
    assert.equal((await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.second.id })).statusCode, 200);
    const refused: unknown[] = [
      g.video.id,
      g.document.id,
      sibling.photo.id,
      theirs.photo.id,
      g.listingId,
      'med_01JDOESNOTEXIST000000000000',
      'med_',
      'not an id',
      '',
      '   ',
      'med_'.padEnd(41, 'x'),
      5,
      true,
      [g.photo.id],
      { id: g.photo.id },
    ];
    for (const cover of refused) {
      const res = await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: cover, address: '9 Changed Way' });
      const error = expectError(res, 400, 'validation_error');
      assert.deepEqual([...new Set(detailFields(error))], ['cover_media_id'], `${JSON.stringify(cover)}: ${res.body}`);
    }
    const after = await galleryJson(ctx, owner.key, g.listingId);
    assert.equal(after.cover_media_id, g.second.id, 'a refused cover leaves the one there was');
    assert.equal(after.address, '1 Harbour Road', 'a refused cover applies no other field either');
    // The other account's gallery is untouched.
    assert.equal(await storedCover(theirs.listingId), null);
  });

  test('deleting the cover photo sets it null; deleting another media keeps it', async () => {
    const g = await gallery();
    assert.equal((await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.second.id })).statusCode, 200);
    for (const m of [g.photo, g.video]) {
      assert.equal((await call(ctx, 'DELETE', mediaUrl(g.listingId, m.id), { key: owner.key })).statusCode, 204);
    }
    assert.equal((await galleryJson(ctx, owner.key, g.listingId)).cover_media_id, g.second.id);
    assert.equal((await call(ctx, 'DELETE', mediaUrl(g.listingId, g.second.id), { key: owner.key })).statusCode, 204);
    const after = await galleryJson(ctx, owner.key, g.listingId);
    assert.equal(after.cover_media_id, null);
    assert.equal(after.media_count, 1);
    assert.equal(await storedCover(g.listingId), null);
    // The deleted photo can no longer be chosen.
    const error = expectError(
      await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.second.id }),
      400,
      'validation_error',
    );
    assert.deepEqual(detailFields(error), ['cover_media_id']);
  });

  test('a gallery with a cover can be deleted, with its media', async () => {
    const g = await gallery();
    assert.equal((await patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.photo.id })).statusCode, 200);
    const res = await call(ctx, 'DELETE', `/v1/listings/${g.listingId}`, { key: owner.key });
    assert.equal(res.statusCode, 204, res.body);
    expectError(await call(ctx, 'GET', `/v1/listings/${g.listingId}`, { key: owner.key }), 404, 'not_found');
    const rows = await ctx.deps.db.kysely
      .selectFrom('media')
      .select('id')
      .where('listing_id', '=', g.listingId)
      .execute();
    assert.deepEqual(rows, []);
  });

  test("another account cannot set a cover on this gallery (404), even with this gallery's photo", async () => {
    const g = await gallery();
    expectError(await patchGallery(ctx, stranger.key, g.listingId, { cover_media_id: g.photo.id }), 404, 'not_found');
    assert.equal(await storedCover(g.listingId), null);
  });
});

describe('cover_media_id and a concurrent deletion', () => {
  test('choosing a photo as the cover while it is deleted never leaves a cover pointing at nothing', async () => {
    const rounds = isPostgres ? 12 : 6;
    for (let round = 0; round < rounds; round += 1) {
      const g = await gallery();
      const [chosen, deleted] = await Promise.all([
        patchGallery(ctx, owner.key, g.listingId, { cover_media_id: g.photo.id }),
        call(ctx, 'DELETE', mediaUrl(g.listingId, g.photo.id), { key: owner.key }),
      ]);
      assert.equal(deleted.statusCode, 204, deleted.body);
      // Either the cover was chosen first (and the deletion cleared it), or the photo was
      // already gone (400). Both end with no cover.
      assert.ok([200, 400].includes(chosen.statusCode), chosen.body);
      if (chosen.statusCode === 400)
        assert.deepEqual(detailFields(expectError(chosen, 400, 'validation_error')), ['cover_media_id']);
      assert.equal(await storedCover(g.listingId), null, `round ${round}: ${chosen.statusCode}`);
    }
  });
});
