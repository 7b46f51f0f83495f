// Media (docs/api.md §6) through the real HTTP stack on the local storage: list, get and delete,
// deleting a gallery, the sweep after a crash, and ids of the wrong shape. Uploads are in
// media.upload.test.ts, serving the bytes in media.content.test.ts, and the round-trips and
// all-or-nothing cases on both storages in media.local.test.ts and media.s3.test.ts.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, multipart, pdf } from '../../../test/support/media-fixtures.ts';
import {
  assertError,
  cleanupRows,
  contentUrl,
  getContent,
  mediaCount,
  mediaRows,
  newGallery,
  storedKeys,
  uploaded,
  type MediaJson,
} from '../../../test/support/media-helpers.ts';

let ctx: TestContext;
let owner: TestAccount;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

describe('list, get and delete', () => {
  let listingId: string;
  let media: MediaJson[];

  before(async () => {
    listingId = await newGallery(ctx, owner);
    const image = await jpeg();
    media = [
      ...(await uploaded(ctx, owner.key, listingId, [
        { filename: '1.jpg', data: image },
        { filename: '2.pdf', data: pdf('two') },
      ])),
      ...(await uploaded(ctx, owner.key, listingId, [{ filename: '3.jpg', data: image }])),
    ];
  });

  test('GET list: every item by position, pagination {page: 1, limit: n, total: n}', async () => {
    const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      data: media,
      pagination: { page: 1, limit: 3, total: 3, total_exact: true, next_cursor: null },
    });
    assert.deepEqual(
      media.map((m) => m.position),
      [1, 2, 3],
    );
    const empty = await call(ctx, 'GET', `/v1/listings/${await newGallery(ctx, owner)}/media`, { key: owner.key });
    assert.deepEqual(empty.json(), {
      data: [],
      pagination: { page: 1, limit: 0, total: 0, total_exact: true, next_cursor: null },
    });
  });

  test('GET one: the media object, with every field present', async () => {
    const one = media[1]!;
    const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${one.id}`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), one);
    assert.deepEqual(Object.keys(res.json()).sort(), [
      'alt_text',
      'analysis',
      'caption',
      'content_type',
      'content_url',
      'created_at',
      'filename',
      'height',
      'hidden',
      'id',
      'kind',
      'listing_id',
      'original_media_id',
      'position',
      'sha256',
      'size',
      'variants',
      'virtually_staged',
      'width',
    ]);
    assert.equal(one.width, null);
    assert.equal(one.height, null);
    assert.equal(one.caption, null);
    assert.equal(one.hidden, false);
    // docs/api.md §31.
    assert.equal(res.json<{ virtually_staged: boolean }>().virtually_staged, false);
    assert.equal(res.json<{ original_media_id: null }>().original_media_id, null);
    assert.equal(one.variants, null, 'not a photo');
  });

  test('media of one gallery are not found through another gallery of the same account', async () => {
    const elsewhere = await newGallery(ctx, owner);
    const one = media[0]!;
    for (const url of [
      `/v1/listings/${elsewhere}/media/${one.id}`,
      `/v1/listings/${elsewhere}/media/${one.id}/content`,
    ]) {
      assertError(await call(ctx, 'GET', url, { key: owner.key }), 404, 'not_found');
    }
    assertError(
      await call(ctx, 'DELETE', `/v1/listings/${elsewhere}/media/${one.id}`, { key: owner.key }),
      404,
      'not_found',
    );
  });

  test('DELETE removes the row and the bytes and decrements media_count; the gap closes (docs/api.md §13)', async () => {
    const gone = media[1]!;
    const [row] = (await mediaRows(ctx, listingId)).filter((r) => r.id === gone.id);
    assert.ok(row !== undefined && (await storedKeys(ctx)).includes(row.storage_key));
    const res = await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${gone.id}`, { key: owner.key });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');

    assert.ok(!(await storedKeys(ctx)).includes(row.storage_key), 'the bytes are still stored');
    assert.deepEqual(await cleanupRows(ctx), []);
    assert.equal(await mediaCount(ctx, owner.key, listingId), 2);
    assertError(
      await call(ctx, 'GET', `/v1/listings/${listingId}/media/${gone.id}`, { key: owner.key }),
      404,
      'not_found',
    );
    assertError(await getContent(ctx, owner.key, gone), 404, 'not_found');
    assertError(
      await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${gone.id}`, { key: owner.key }),
      404,
      'not_found',
    );
    const list = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key: owner.key });
    assert.deepEqual(
      list.json<{ data: MediaJson[] }>().data.map((m) => [m.id, m.position]),
      [
        [media[0]!.id, 1],
        [media[2]!.id, 2],
      ],
    );
    // A new upload takes the next position: positions stay 1..n.
    const [next] = await uploaded(ctx, owner.key, listingId, [{ filename: '4.jpg', data: await jpeg() }]);
    assert.equal(next?.position, 3);
    assert.equal(await mediaCount(ctx, owner.key, listingId), 3);
  });

  test('DELETE of a gallery removes all its media rows and bytes, and no other gallery’s', async () => {
    const doomed = await newGallery(ctx, owner);
    const kept = await newGallery(ctx, owner);
    const image = await jpeg();
    await uploaded(ctx, owner.key, doomed, [
      { filename: 'a.jpg', data: image },
      { filename: 'b.pdf', data: pdf() },
      { filename: 'c.jpg', data: image },
    ]);
    const [survivor] = await uploaded(ctx, owner.key, kept, [{ filename: 'd.jpg', data: image }]);
    const doomedKeys = (await mediaRows(ctx, doomed)).map((r) => r.storage_key);
    assert.equal(doomedKeys.length, 3);

    const res = await call(ctx, 'DELETE', `/v1/listings/${doomed}`, { key: owner.key });
    assert.equal(res.statusCode, 204, res.body);
    assert.deepEqual(await mediaRows(ctx, doomed), []);
    const keys = await storedKeys(ctx);
    for (const key of doomedKeys) assert.ok(!keys.includes(key), `${key} is still stored`);
    assert.deepEqual(await cleanupRows(ctx), []);
    assertError(await call(ctx, 'GET', `/v1/listings/${doomed}/media`, { key: owner.key }), 404, 'not_found');

    const content = await getContent(ctx, owner.key, survivor!);
    assert.equal(content.statusCode, 200);
    assert.ok(content.rawPayload.equals(image));
  });
});

describe('crashes and the sweep', () => {
  test('bytes with a due cleanup row, and bytes with no row at all, are removed; committed media and uploads in flight stay', async () => {
    const sweeper = await createTestContext();
    try {
      const account = await createAccount(sweeper);
      const listingId = await newGallery(sweeper, account);
      const committed = await uploaded(sweeper, account.key, listingId, [
        { filename: 'a.jpg', data: await jpeg() },
        { filename: 'b.pdf', data: pdf() },
      ]);
      const base = `${account.accountId}/${listingId}`;
      const put = (key: string) =>
        sweeper.deps.storage.put(key, Readable.from([Buffer.from('left over')]), { contentType: 'image/jpeg' });
      const now = Date.now();
      const lease = (key: string, offsetMs: number) =>
        sweeper.deps.db.kysely
          .insertInto('media_cleanup')
          .values({
            storage_key: key,
            delete_after: new Date(now + offsetMs).toISOString(),
            created_at: new Date(now).toISOString(),
          })
          .execute();
      // A process died mid-upload: its lease ran out. Another died between storing and any row.
      await put(`${base}/med_01CRASHEDUPLOAD0000000000`);
      await lease(`${base}/med_01CRASHEDUPLOAD0000000000`, -1000);
      await put(`${base}/med_01ORPHANEDBYTES0000000000`);
      // A live upload on another node: its lease has not run out.
      await put(`${base}/med_01INFLIGHTUPLOAD000000000`);
      await lease(`${base}/med_01INFLIGHTUPLOAD000000000`, 60_000);
      // Deleted media whose bytes did not go (the delete crashed after committing).
      await lease(`${base}/med_01ALREADYGONE00000000000`, -1000);
      // A file the storage never wrote (a desktop's .DS_Store) is left alone and stops nothing.
      const stray = path.join(sweeper.config.dataDir, 'media', account.accountId, '.DS_Store');
      await writeFile(stray, 'finder');

      const result = await sweeper.services.mediaCleanup.sweep();
      assert.deepEqual(result, { purged: 2, orphans: 1 });
      const committedKeys = (await mediaRows(sweeper, listingId)).map((r) => r.storage_key);
      assert.deepEqual(await storedKeys(sweeper), [...committedKeys, `${base}/med_01INFLIGHTUPLOAD000000000`].sort());
      assert.deepEqual(
        (await cleanupRows(sweeper)).map((r) => r.storage_key),
        [`${base}/med_01INFLIGHTUPLOAD000000000`],
      );
      // The committed media are whole and served.
      for (const media of committed) assert.equal((await getContent(sweeper, account.key, media)).statusCode, 200);
      assert.equal(await mediaCount(sweeper, account.key, listingId), 2);
      // A second sweep has nothing to do.
      assert.deepEqual(await sweeper.services.mediaCleanup.sweep(), { purged: 0, orphans: 0 });
      assert.equal(await readFile(stray, 'utf8'), 'finder');
    } finally {
      await sweeper.close();
    }
  });

  test('no media row is ever left without its bytes', async () => {
    for (const row of await mediaRows(ctx)) {
      assert.ok((await storedKeys(ctx)).includes(row.storage_key), `${row.id} has no bytes`);
    }
  });
});

describe('ids of the wrong shape', () => {
  test('are 404 not_found on every media route, never 400 or 500', async () => {
    const listingId = await newGallery(ctx, owner);
    const [media] = await uploaded(ctx, owner.key, listingId, [{ filename: 'a.jpg', data: await jpeg() }]);
    const mediaId = media!.id;
    const badListings = [
      'x',
      'lst_',
      'lst_a b',
      `lst_${'a'.repeat(60)}`,
      'lst_%00',
      mediaId,
      'lst_..%2F..',
      '%E2%82%AC',
    ];
    const badMedia = ['x', 'med_', 'med_!', `med_${'a'.repeat(60)}`, 'med_%00', listingId, '..%2F..%2Fetc'];
    const urls: [string, string][] = [];
    for (const bad of badListings) {
      urls.push(
        ['GET', `/v1/listings/${bad}/media`],
        ['POST', `/v1/listings/${bad}/media`],
        ['GET', `/v1/listings/${bad}/media/${mediaId}`],
        ['GET', `/v1/listings/${bad}/media/${mediaId}/content`],
        ['DELETE', `/v1/listings/${bad}/media/${mediaId}`],
      );
    }
    for (const bad of badMedia) {
      urls.push(
        ['GET', `/v1/listings/${listingId}/media/${bad}`],
        ['GET', `/v1/listings/${listingId}/media/${bad}/content`],
        ['DELETE', `/v1/listings/${listingId}/media/${bad}`],
      );
    }
    const { body, contentType } = multipart([{ filename: 'a.jpg', data: await jpeg() }]);
    for (const [method, url] of urls) {
      const res =
        method === 'POST'
          ? await ctx.app.inject({
              method,
              url,
              headers: { authorization: `Bearer ${owner.key}`, 'content-type': contentType },
              payload: body,
            })
          : await call(ctx, method, url, { key: owner.key });
      assertError(res, 404, 'not_found');
    }
    assert.equal((await getContent(ctx, owner.key, media!)).statusCode, 200);
    assert.equal(await mediaCount(ctx, owner.key, listingId), 1);
    assert.equal(contentUrl(media!), `/v1/listings/${listingId}/media/${mediaId}/content`);
  });
});
