// Over 400 lines on purpose: one test per rule of two routes that share one gallery set-up (PATCH media, PUT order).
// docs/api.md §13 through the real HTTP stack: PATCH .../media/:media_id (caption, hidden, position)
// and PUT .../media/order, each rule and what is stored after it. Random sequences of these are
// in media.positions.property.test.ts; the cover is in media.cover.test.ts.
import { assertPagination } from '../../../test/support/api-assertions.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createKey,
  createTestContext,
  detailFields,
  expectError,
  type ApiError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, pdf } from '../../../test/support/media-fixtures.ts';
import { newGallery, uploaded, type MediaJson } from '../../../test/support/media-helpers.ts';
import {
  assertGapless,
  listMedia,
  mediaUrl,
  patchMedia,
  putOrder,
  type MediaPage,
} from '../../../test/support/gallery-order.ts';

let ctx: TestContext;
let owner: TestAccount;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

/** A gallery of `n` media (photos and PDFs alternating), in upload order. */
async function galleryOf(n: number, account = owner): Promise<{ listingId: string; media: MediaJson[] }> {
  const listingId = await newGallery(ctx, account);
  const photo = await jpeg(10, 8);
  const parts = Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? { filename: `${i + 1}.jpg`, data: photo } : { filename: `${i + 1}.pdf`, data: pdf(`${i + 1}`) },
  );
  const media = n === 0 ? [] : await uploaded(ctx, account.key, listingId, parts);
  return { listingId, media };
}

/** The distinct fields an error names (a value can break two rules of one field: type and format). */
const namedFields = (error: ApiError): string[] => [...new Set(detailFields(error))];

const storedRow = (id: string) =>
  ctx.deps.db.kysely
    .selectFrom('media')
    .select(['caption', 'hidden', 'position'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('PATCH media: caption', () => {
  test('stored trimmed; the answer is the media object; null clears it', async () => {
    const { listingId, media } = await galleryOf(2);
    const one = media[1]!;
    const res = await patchMedia(ctx, owner.key, listingId, one.id, { caption: '  Front porch at dusk \n ' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { ...one, caption: 'Front porch at dusk' });
    assert.deepEqual(await storedRow(one.id), { caption: 'Front porch at dusk', hidden: 0, position: 2 });
    const got = await call(ctx, 'GET', mediaUrl(listingId, one.id), { key: owner.key });
    assert.equal(got.json<MediaJson>().caption, 'Front porch at dusk');

    const cleared = await patchMedia(ctx, owner.key, listingId, one.id, { caption: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.json<MediaJson>().caption, null);
    assert.equal((await storedRow(one.id)).caption, null);
  });

  test('2,000 characters (after trimming, counted as characters) are accepted; 2,001 are 400 naming caption', async () => {
    const { listingId, media } = await galleryOf(1);
    const id = media[0]!.id;
    const longest = `${'é'.repeat(1000)}${'📷'.repeat(1000)}`;
    const ok = await patchMedia(ctx, owner.key, listingId, id, { caption: `  ${longest}  ` });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json<MediaJson>().caption, longest);
    assert.equal((await storedRow(id)).caption, longest);

    const error = expectError(
      await patchMedia(ctx, owner.key, listingId, id, { caption: `${longest}x` }),
      400,
      'validation_error',
    );
    assert.deepEqual(detailFields(error), ['caption']);
    assert.equal((await storedRow(id)).caption, longest, 'a refused caption changes nothing');
  });

  test('NUL, an unpaired surrogate and a non-string are 400 naming caption', async () => {
    const { listingId, media } = await galleryOf(1);
    const id = media[0]!.id;
    for (const body of [
      '{"caption": "before\\u0000after"}',
      '{"caption": "lone \\udfff"}',
      { caption: 5 },
      { caption: true },
      { caption: ['a'] },
    ]) {
      const error = expectError(await patchMedia(ctx, owner.key, listingId, id, body), 400, 'validation_error');
      assert.deepEqual(detailFields(error), ['caption'], JSON.stringify(body));
    }
    assert.equal((await storedRow(id)).caption, null);
  });
});

describe('PATCH media: hidden', () => {
  test('true and false are stored; hidden media stay in the API list, with hidden: true', async () => {
    const { listingId, media } = await galleryOf(3);
    const middle = media[1]!;
    const res = await patchMedia(ctx, owner.key, listingId, middle.id, { hidden: true });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { ...middle, hidden: true });
    assert.equal((await storedRow(middle.id)).hidden, 1);

    const list = await listMedia(ctx, owner.key, listingId);
    assert.deepEqual(
      list.map((m) => [m.id, m.hidden]),
      media.map((m) => [m.id, m.id === middle.id]),
    );
    await assertGapless(
      ctx,
      owner.key,
      listingId,
      media.map((m) => m.id),
    );
    const one = await call(ctx, 'GET', mediaUrl(listingId, middle.id), { key: owner.key });
    assert.equal(one.json<MediaJson>().hidden, true);

    const shown = await patchMedia(ctx, owner.key, listingId, middle.id, { hidden: false });
    assert.equal(shown.json<MediaJson>().hidden, false);
    assert.equal((await storedRow(middle.id)).hidden, 0);
  });

  test('a non-boolean is 400 naming hidden', async () => {
    const { listingId, media } = await galleryOf(1);
    for (const hidden of ['true', 1, 0, null, {}]) {
      const error = expectError(
        await patchMedia(ctx, owner.key, listingId, media[0]!.id, { hidden }),
        400,
        'validation_error',
      );
      assert.deepEqual(detailFields(error), ['hidden'], JSON.stringify(hidden));
    }
    assert.equal((await storedRow(media[0]!.id)).hidden, 0);
  });
});

describe('PATCH media: position', () => {
  test('moving up and down shifts the media between; the answer carries the new position', async () => {
    const { listingId, media } = await galleryOf(5);
    const ids = media.map((m) => m.id);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];

    const down = await patchMedia(ctx, owner.key, listingId, b, { position: 4 });
    assert.equal(down.statusCode, 200, down.body);
    assert.equal(down.json<MediaJson>().position, 4);
    await assertGapless(ctx, owner.key, listingId, [a, c, d, b, e]);

    const up = await patchMedia(ctx, owner.key, listingId, e, { position: 1 });
    assert.equal(up.json<MediaJson>().position, 1);
    await assertGapless(ctx, owner.key, listingId, [e, a, c, d, b]);

    const same = await patchMedia(ctx, owner.key, listingId, c, { position: 3 });
    assert.equal(same.json<MediaJson>().position, 3);
    await assertGapless(ctx, owner.key, listingId, [e, a, c, d, b]);

    const last = await patchMedia(ctx, owner.key, listingId, e, { position: 5 });
    assert.equal(last.json<MediaJson>().position, 5);
    await assertGapless(ctx, owner.key, listingId, [a, c, d, b, e]);
  });

  test('caption, hidden and position in one body all apply', async () => {
    const { listingId, media } = await galleryOf(3);
    const [a, b, c] = media.map((m) => m.id) as [string, string, string];
    const res = await patchMedia(ctx, owner.key, listingId, c, { caption: 'Kitchen', hidden: true, position: 1 });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      {
        caption: res.json<MediaJson>().caption,
        hidden: res.json<MediaJson>().hidden,
        position: res.json<MediaJson>().position,
      },
      { caption: 'Kitchen', hidden: true, position: 1 },
    );
    await assertGapless(ctx, owner.key, listingId, [c, a, b]);
  });

  test('0, n+1, a non-integer, a string, null and a huge number are 400 naming position; nothing changes', async () => {
    const { listingId, media } = await galleryOf(3);
    const ids = media.map((m) => m.id);
    const id = ids[1]!;
    for (const position of [0, -1, 4, 1000, 1.5, '2', null, true, 2 ** 31, 1e300]) {
      const res = await patchMedia(ctx, owner.key, listingId, id, { position, caption: 'not applied' });
      const error = expectError(res, 400, 'validation_error');
      assert.deepEqual(namedFields(error), ['position'], `${JSON.stringify(position)}: ${res.body}`);
    }
    assert.equal((await storedRow(id)).caption, null, 'a refused move applies no other field either');
    await assertGapless(ctx, owner.key, listingId, ids);
  });

  test('n is the current count: after a deletion, the old last position is 400', async () => {
    const { listingId, media } = await galleryOf(3);
    const [a, b, c] = media.map((m) => m.id) as [string, string, string];
    assert.equal((await call(ctx, 'DELETE', mediaUrl(listingId, a), { key: owner.key })).statusCode, 204);
    const error = expectError(await patchMedia(ctx, owner.key, listingId, b, { position: 3 }), 400, 'validation_error');
    assert.deepEqual(detailFields(error), ['position']);
    assert.equal((await patchMedia(ctx, owner.key, listingId, b, { position: 2 })).statusCode, 200);
    await assertGapless(ctx, owner.key, listingId, [c, b]);
  });
});

describe('PATCH media: the body', () => {
  test('none of caption, hidden, position is 400; unknown and read-only fields are 400 naming them', async () => {
    const { listingId, media } = await galleryOf(1);
    const id = media[0]!.id;
    const empty = expectError(await patchMedia(ctx, owner.key, listingId, id, {}), 400, 'validation_error');
    assert.deepEqual(detailFields(empty), ['body']);
    const cases: [unknown, string[]][] = [
      [{ filename: 'x.jpg' }, ['filename']],
      [{ caption: 'ok', colour: 'red' }, ['colour']],
      [{ id: 'med_x' }, ['id']],
      [{ listing_id: 'lst_x', position: 1 }, ['listing_id']],
      [{ created_at: '2026-11-22T10:15:30.123Z' }, ['created_at']],
    ];
    for (const [body, fields] of cases) {
      const error = expectError(await patchMedia(ctx, owner.key, listingId, id, body), 400, 'validation_error');
      assert.deepEqual(detailFields(error), fields, JSON.stringify(body));
    }
    for (const body of ['[]', '"caption"', 'null']) {
      expectError(await patchMedia(ctx, owner.key, listingId, id, body), 400, 'validation_error');
    }
    expectError(await patchMedia(ctx, owner.key, listingId, id, '{"caption": '), 400, 'invalid_json');
    assert.deepEqual(await storedRow(id), { caption: null, hidden: 0, position: 1 });
  });

  test("unknown media, another gallery's media and ids of the wrong shape are 404", async () => {
    const { listingId, media } = await galleryOf(1);
    const other = await galleryOf(1);
    for (const url of [
      mediaUrl(listingId, other.media[0]!.id),
      mediaUrl(other.listingId, media[0]!.id),
      mediaUrl(listingId, 'med_01JDOESNOTEXIST000000000000'),
      mediaUrl(listingId, 'not-an-id'),
      mediaUrl('lst_nope', media[0]!.id),
    ]) {
      expectError(await call(ctx, 'PATCH', url, { key: owner.key, body: { caption: 'x' } }), 404, 'not_found');
    }
    assert.equal((await storedRow(media[0]!.id)).caption, null);
    assert.equal((await storedRow(other.media[0]!.id)).caption, null);
  });
});

describe('PUT media order', () => {
  test('a permutation is stored; the answer is the media list in the new order, as GET shows it', async () => {
    const { listingId, media } = await galleryOf(4);
    const order = [3, 0, 2, 1].map((i) => media[i]!.id);
    const res = await putOrder(ctx, owner.key, listingId, { media_ids: order });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json<MediaPage>();
    assert.deepEqual(
      page.data.map((m) => [m.id, m.position]),
      order.map((id, i) => [id, i + 1]),
    );
    assertPagination(page.pagination, { page: 1, limit: 4, total: 4 });
    const listed = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key: owner.key });
    assert.deepEqual(page, listed.json());
    await assertGapless(ctx, owner.key, listingId, order);
  });

  test('missing, repeated and foreign ids are each named in details; nothing changes', async () => {
    const { listingId, media } = await galleryOf(3);
    const ids = media.map((m) => m.id);
    const [a, b, c] = ids as [string, string, string];
    const sibling = (await galleryOf(1)).media[0]!.id;
    const stranger = await createAccount(ctx, 'Other studio');
    const foreign = (await galleryOf(1, stranger)).media[0]!.id;

    const cases: [string[], { field: string; message: string }[]][] = [
      [[c, a], [{ field: 'media_ids', message: `is missing ${b}` }]],
      [[c, a, b, a], [{ field: 'media_ids.3', message: `repeats ${a}` }]],
      [[c, a, b, sibling], [{ field: 'media_ids.3', message: `${sibling} is not a media of this gallery` }]],
      [[foreign, c, a, b], [{ field: 'media_ids.0', message: `${foreign} is not a media of this gallery` }]],
      [
        [a, a, sibling],
        [
          { field: 'media_ids.1', message: `repeats ${a}` },
          { field: 'media_ids.2', message: `${sibling} is not a media of this gallery` },
          { field: 'media_ids', message: `is missing ${b}` },
          { field: 'media_ids', message: `is missing ${c}` },
        ],
      ],
      [[], ids.map((id) => ({ field: 'media_ids', message: `is missing ${id}` }))],
      [
        ['hello', 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA', c, a, b],
        [
          { field: 'media_ids.0', message: 'hello is not a media of this gallery' },
          { field: 'media_ids.1', message: 'lst_01JAAAAAAAAAAAAAAAAAAAAAAA is not a media of this gallery' },
        ],
      ],
    ];
    for (const [order, details] of cases) {
      const error = expectError(
        await putOrder(ctx, owner.key, listingId, { media_ids: order }),
        400,
        'validation_error',
      );
      assert.deepEqual(error.details, details, JSON.stringify(order));
    }
    await assertGapless(ctx, owner.key, listingId, ids);
    // Neither the sibling gallery nor the other account's moved.
    assert.equal((await storedRow(sibling)).position, 1);
    assert.equal((await storedRow(foreign)).position, 1);
  });

  test('ids of the wrong shape or type, and a malformed body, are 400 naming the field', async () => {
    const { listingId, media } = await galleryOf(2);
    const ids = media.map((m) => m.id);
    const cases: [unknown, string[]][] = [
      [{ media_ids: ['med x!', ...ids] }, ['media_ids.0']],
      [{ media_ids: [...ids, ''] }, ['media_ids.2']],
      [{ media_ids: [...ids, 7] }, ['media_ids.2']],
      [{ media_ids: [...ids, null] }, ['media_ids.2']],
      [{ media_ids: [...ids, 'm'.repeat(65)] }, ['media_ids.2']],
      [{ media_ids: ids.join(',') }, ['media_ids']],
      [{ media_ids: null }, ['media_ids']],
      [{}, ['media_ids']],
      [{ media_ids: ids, position: 1 }, ['position']],
    ];
    for (const [body, fields] of cases) {
      const error = expectError(await putOrder(ctx, owner.key, listingId, body), 400, 'validation_error');
      assert.deepEqual(namedFields(error), fields, JSON.stringify(body));
    }
    expectError(await putOrder(ctx, owner.key, listingId, `{"media_ids": ["a\\u0000"]}`), 400, 'validation_error');
    await assertGapless(ctx, owner.key, listingId, ids);
  });

  test('a gallery of 450 media (renumbered in several statements) is reordered and moved in full', async () => {
    const listingId = await newGallery(ctx, owner);
    const ids: string[] = [];
    for (let batch = 0; batch < 5; batch += 1) {
      const parts = Array.from({ length: 90 }, (_, i) => ({
        filename: `${batch}-${i}.pdf`,
        data: pdf(`${batch}-${i}`),
      }));
      ids.push(...(await uploaded(ctx, owner.key, listingId, parts)).map((m) => m.id));
    }
    // Odd positions first, then even ones reversed: every item moves, across the 400-id batches.
    const order = [...ids.filter((_, i) => i % 2 === 0), ...ids.filter((_, i) => i % 2 === 1).reverse()];
    const res = await putOrder(ctx, owner.key, listingId, { media_ids: order });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json<MediaPage>().data.map((m) => m.id),
      order,
    );
    await assertGapless(ctx, owner.key, listingId, order);
    const moved = await patchMedia(ctx, owner.key, listingId, order[449]!, { position: 1 });
    assert.equal(moved.statusCode, 200, moved.body);
    await assertGapless(ctx, owner.key, listingId, [order[449]!, ...order.slice(0, 449)]);
  });

  test('an empty gallery with [] is 200 and an empty list', async () => {
    const { listingId } = await galleryOf(0);
    const res = await putOrder(ctx, owner.key, listingId, { media_ids: [] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      data: [],
      pagination: { page: 1, limit: 0, total: 0, total_exact: true, next_cursor: null },
    });
  });

  test("another account's gallery and unknown galleries are 404, and are not reordered", async () => {
    const stranger = await createAccount(ctx, 'Stranger');
    const theirs = await galleryOf(2, stranger);
    const reversed = theirs.media.map((m) => m.id).reverse();
    expectError(await putOrder(ctx, owner.key, theirs.listingId, { media_ids: reversed }), 404, 'not_found');
    expectError(await putOrder(ctx, owner.key, 'lst_01JDOESNOTEXIST000000000000', { media_ids: [] }), 404, 'not_found');
    expectError(await putOrder(ctx, owner.key, 'nope', { media_ids: [] }), 404, 'not_found');
    await assertGapless(
      ctx,
      stranger.key,
      theirs.listingId,
      theirs.media.map((m) => m.id),
    );
  });
});

describe('read-only keys', () => {
  test('PATCH media, PUT order and a cover change are 403 and change nothing', async () => {
    const { listingId, media } = await galleryOf(2);
    const ids = media.map((m) => m.id);
    const { key } = await createKey(ctx, owner.accountId, { scope: 'read_only' });
    expectError(await patchMedia(ctx, key, listingId, ids[0]!, { caption: 'x', position: 2 }), 403, 'forbidden');
    expectError(await putOrder(ctx, key, listingId, { media_ids: [...ids].reverse() }), 403, 'forbidden');
    expectError(
      await call(ctx, 'PATCH', `/v1/listings/${listingId}`, { key, body: { cover_media_id: ids[0] } }),
      403,
      'forbidden',
    );
    await assertGapless(ctx, owner.key, listingId, ids);
    assert.equal((await storedRow(ids[0]!)).caption, null);
    const gallery = await call(ctx, 'GET', `/v1/listings/${listingId}`, { key });
    assert.equal(gallery.json<{ cover_media_id: string | null }>().cover_media_id, null);
  });
});
