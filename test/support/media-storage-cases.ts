// Over 400 lines on purpose: the one list of cases every storage must pass; split, a storage could silently miss a case.
// The upload cases that depend on where bytes are stored, run once per storage (the local folder
// and S3) by src/modules/media/media.local.test.ts and media.s3.test.ts: every accepted format
// round-trips byte for byte, and a request is all or nothing (refused type, size and count
// limits, pixel limit, a client that disconnects mid-upload).
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { call, createAccount, createTestContext, listen, type TestAccount, type TestContext } from './test-app.ts';
import { skippableTest } from './skippable.ts';
import {
  acceptedFixtures,
  filesOf,
  jpeg,
  jpegOfSize,
  largeFixtures,
  multipart,
  pdf,
  png,
  refusedFixtures,
  type AcceptedFixture,
  type Part,
} from './media-fixtures.ts';
import {
  assertError,
  cleanupRows,
  contentUrl,
  eventually,
  getContent,
  mediaCount,
  mediaRows,
  newGallery,
  sha256,
  storedKeys,
  storedState,
  upload,
  uploaded,
  type MediaJson,
} from './media-helpers.ts';

export interface StorageUnderTest {
  /** Environment for a context whose storage is its own (a folder, or a bucket prefix). */
  env: (name: string) => Record<string, string>;
  stop: () => Promise<void>;
}

const MAX_FILE_BYTES = 2 * 1024 * 1024;
const LIMITS = {
  MEDIA_MAX_FILE_BYTES: String(MAX_FILE_BYTES),
  MEDIA_MAX_FILES: '3',
  MEDIA_MAX_IMAGE_PIXELS: '100000',
};

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function assertMatches(media: MediaJson, fixture: AcceptedFixture, listingId: string, publicUrl: string): void {
  const where = `${fixture.label}: ${JSON.stringify(media)}`;
  assert.match(media.id, /^med_[0-9A-Za-z_-]+$/, where);
  assert.ok(media.id.length <= 40, where);
  assert.equal(media.listing_id, listingId, where);
  assert.equal(media.kind, fixture.kind, where);
  assert.equal(media.content_type, fixture.contentType, where);
  assert.equal(media.filename, fixture.filename, where);
  assert.equal(media.size, fixture.data.length, where);
  assert.equal(media.sha256, sha256(fixture.data), where);
  assert.equal(media.width, fixture.width, where);
  assert.equal(media.height, fixture.height, where);
  assert.match(media.created_at, ISO_MS, where);
  assert.equal(media.content_url, `${publicUrl}${contentUrl(media)}`, where);
}

/** The bytes served for `media` are exactly `data`, with the sniffed type and the sha256 as ETag. */
async function assertServed(ctx: TestContext, key: string, media: MediaJson, data: Buffer, label: string) {
  const res = await getContent(ctx, key, media);
  assert.equal(res.statusCode, 200, `${label}: ${res.body.slice(0, 200)}`);
  assert.ok(res.rawPayload.equals(data), `${label}: the served bytes differ from the upload`);
  assert.equal(sha256(res.rawPayload), media.sha256, label);
  assert.equal(res.headers['content-type'], media.content_type, label);
  assert.equal(res.headers['content-length'], String(data.length), label);
  assert.equal(res.headers.etag, `"${media.sha256}"`, label);
}

export function describeStorageCases(name: string, start: () => Promise<StorageUnderTest | string>): void {
  describe(`uploads on ${name} storage`, () => {
    let storage: StorageUnderTest | undefined;
    let skip: string | undefined;
    let ctx: TestContext;
    let limited: TestContext;
    let owner: TestAccount;
    let limitedOwner: TestAccount;
    let fixtures: AcceptedFixture[];
    let large: AcceptedFixture[];

    before(async () => {
      const started = await start();
      if (typeof started === 'string') {
        skip = started;
        return;
      }
      storage = started;
      ctx = await createTestContext(storage.env('media'));
      limited = await createTestContext({ ...storage.env('limited'), ...LIMITS });
      owner = await createAccount(ctx);
      limitedOwner = await createAccount(limited);
      fixtures = await acceptedFixtures();
      large = await largeFixtures();
    });

    after(async () => {
      if (storage === undefined) return;
      await ctx.close();
      await limited.close();
      await storage.stop();
    });

    /** Runs `body` unless the storage could not be started, in which case the test says why it skipped. */
    const it = skippableTest(() => skip);

    it('the context really uses this storage', async () => {
      assert.equal(ctx.deps.storage.kind, name === 'S3' ? 's3' : 'local');
      assert.equal(limited.deps.storage.kind, ctx.deps.storage.kind);
      assert.deepEqual(await storedKeys(ctx), []);
    });

    it('a file larger than one S3 part (8 MiB) round-trips byte for byte', async () => {
      // Regression: a \`size\` property on the upload stream made lib-storage expect 0 parts.
      const head = pdf('large');
      const data = Buffer.concat([head, Buffer.alloc(9 * 1024 * 1024 + 123, 0x20)]);
      const listingId = await newGallery(ctx, owner);
      const [media] = await uploaded(ctx, owner.key, listingId, [
        { field: 'files', filename: 'big.pdf', contentType: 'application/pdf', data },
      ]);
      assert.ok(media !== undefined);
      assert.equal(media.size, data.length);
      assert.equal(media.sha256, sha256(data));
      assert.equal(media.kind, 'document');
      const res = await getContent(ctx, owner.key, media);
      assert.equal(res.statusCode, 200);
      assert.ok(res.rawPayload.equals(data), 'the bytes served are the bytes uploaded');
    });

    it('every accepted format round-trips byte for byte, in upload order, with its kind, type and size', async () => {
      const listingId = await newGallery(ctx, owner);
      const data = await uploaded(ctx, owner.key, listingId, filesOf(fixtures));
      assert.equal(data.length, fixtures.length);
      data.forEach((media, i) => {
        const fixture = fixtures[i]!;
        assertMatches(media, fixture, listingId, ctx.config.publicUrl);
        assert.equal(media.position, i + 1, fixture.label);
      });
      for (const [i, media] of data.entries())
        await assertServed(ctx, owner.key, media, fixtures[i]!.data, fixtures[i]!.label);
      // Ranges come from the storage too: the first byte, a middle range, a suffix.
      const [media, fixture] = [data[0]!, fixtures[0]!];
      const size = fixture.data.length;
      for (const [range, start, end] of [
        ['bytes=0-0', 0, 0],
        ['bytes=10-99', 10, 99],
        ['bytes=-10', size - 10, size - 1],
      ] as const) {
        const res = await getContent(ctx, owner.key, media, { range });
        assert.equal(res.statusCode, 206, range);
        assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size}`);
        assert.ok(res.rawPayload.equals(fixture.data.subarray(start, end + 1)), range);
      }

      // The list (by position) and each item say the same as the upload did.
      const list = await call(ctx, 'GET', `/v1/listings/${listingId}/media`, { key: owner.key });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(list.json(), {
        data,
        pagination: { page: 1, limit: data.length, total: data.length, total_exact: true, next_cursor: null },
      });
      for (const media of data) {
        const one = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${media.id}`, { key: owner.key });
        assert.equal(one.statusCode, 200, one.body);
        assert.deepEqual(one.json(), media);
      }
      assert.equal(await mediaCount(ctx, owner.key, listingId), fixtures.length);

      // One object per file, each owned by its row; no upload lease is left behind.
      const rows = await mediaRows(ctx, listingId);
      const keys = await storedKeys(ctx);
      for (const row of rows) assert.ok(keys.includes(row.storage_key), `${row.storage_key} is not stored`);
      assert.equal(rows.length, fixtures.length);
      assert.deepEqual(await cleanupRows(ctx), []);
    });

    it('photos over 1 MiB round-trip and get their size (read from the stored file where needed)', async () => {
      const listingId = await newGallery(ctx, owner);
      const first = await uploaded(ctx, owner.key, listingId, filesOf(fixtures.slice(0, 1)));
      const data = await uploaded(ctx, owner.key, listingId, filesOf(large));
      // Positions continue from the earlier upload.
      assert.deepEqual(
        [...first, ...data].map((m) => m.position),
        [1, 2, 3],
      );
      for (const [i, media] of data.entries()) {
        const fixture = large[i]!;
        assert.ok(fixture.data.length > 1024 * 1024, `${fixture.label} is only ${fixture.data.length} bytes`);
        assertMatches(media, fixture, listingId, ctx.config.publicUrl);
        await assertServed(ctx, owner.key, media, fixture.data, fixture.label);
      }
      assert.equal(await mediaCount(ctx, owner.key, listingId), 3);
      // No temporary copy is left behind.
      const tmp = await readdir(path.join(ctx.dataDir, 'tmp')).catch(() => []);
      assert.deepEqual(tmp, []);
    });

    it('DELETE of a media item, then of its gallery, removes their bytes from storage', async () => {
      const listingId = await newGallery(ctx, owner);
      const before = await storedKeys(ctx);
      const data = await uploaded(ctx, owner.key, listingId, filesOf(fixtures.slice(0, 3)));
      const keys = (await mediaRows(ctx, listingId)).map((r) => r.storage_key);
      assert.deepEqual(await storedKeys(ctx), [...before, ...keys].sort());

      const res = await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${data[0]!.id}`, { key: owner.key });
      assert.equal(res.statusCode, 204, res.body);
      assert.deepEqual(await storedKeys(ctx), [...before, ...keys.slice(1)].sort());
      assert.equal(await mediaCount(ctx, owner.key, listingId), 2);

      const gone = await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key });
      assert.equal(gone.statusCode, 204, gone.body);
      assert.deepEqual(await storedKeys(ctx), before);
      assert.deepEqual(await mediaRows(ctx, listingId), []);
      assert.deepEqual(await cleanupRows(ctx), []);
    });

    it('the sweep removes bytes of a due lease and bytes no row owns, and keeps committed media', async () => {
      const listingId = await newGallery(ctx, owner);
      await uploaded(ctx, owner.key, listingId, filesOf(fixtures.slice(0, 1)));
      const before = await storedKeys(ctx);
      const base = `${owner.accountId}/${listingId}`;
      for (const key of [`${base}/med_01SWEPTLEASE`, `${base}/med_01SWEPTORPHAN`]) {
        await ctx.deps.storage.put(key, Readable.from([Buffer.from('left over')]), { contentType: 'image/jpeg' });
      }
      const past = new Date(Date.now() - 1000).toISOString();
      await ctx.deps.db.kysely
        .insertInto('media_cleanup')
        .values({ storage_key: `${base}/med_01SWEPTLEASE`, delete_after: past, created_at: past })
        .execute();
      assert.deepEqual(await ctx.services.mediaCleanup.sweep(), { purged: 1, orphans: 1 });
      assert.deepEqual(await storedKeys(ctx), before);
      assert.deepEqual(await cleanupRows(ctx), []);
    });

    it('the ledger audit (lightbox doctor) names an object no row owns and media whose bytes are gone', async () => {
      const listingId = await newGallery(ctx, owner);
      const [kept, lost] = await uploaded(ctx, owner.key, listingId, filesOf(fixtures.slice(0, 2)));
      const rows = await mediaRows(ctx, listingId);
      const lostKey = rows.find((r) => r.id === lost!.id)!.storage_key;
      const orphan = `${owner.accountId}/${listingId}/med_01AUDITORPHAN`;
      await ctx.deps.storage.put(orphan, Readable.from([Buffer.from('left over')]), { contentType: 'image/jpeg' });
      await ctx.deps.storage.delete(lostKey);
      const audit = await ctx.services.mediaCleanup.audit();
      assert.deepEqual(audit.unowned, [orphan]);
      assert.deepEqual(audit.missing, [
        { id: lost!.id, account_id: owner.accountId, listing_id: listingId, storage_key: lostKey, variant: null },
      ]);
      assert.deepEqual(audit.missingVariants, []);
      assert.equal((await getContent(ctx, owner.key, kept!)).statusCode, 200);
      // Leave the shared context as clean as it was.
      assert.equal((await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key })).statusCode, 204);
      await ctx.services.mediaCleanup.sweepOrphans();
      assert.deepEqual(await ctx.services.mediaCleanup.audit(), { unowned: [], missing: [], missingVariants: [] });
    });

    it('a request with one refused file keeps none of its files, wherever the refused file is', async () => {
      const listingId = await newGallery(ctx, owner);
      await uploaded(ctx, owner.key, listingId, [{ filename: 'kept.pdf', data: fixtures.at(-1)!.data }]);
      const before = await storedState(ctx, owner.key, listingId);
      assert.equal(before.count, 1);
      const good: Part[] = [
        { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg() },
        { filename: 'b.png', contentType: 'image/png', data: await png(20, 20) },
      ];
      for (const [i, bad] of refusedFixtures().entries()) {
        const parts = [...good];
        parts.splice(i % 3, 0, { filename: bad.filename, contentType: bad.declaredType, data: bad.data });
        const res = await upload(ctx, owner.key, listingId, parts);
        const body = assertError(res, 415, 'unsupported_media_type');
        assert.ok(body.error.message.includes(bad.filename), `${bad.label}: ${body.error.message}`);
        assert.deepEqual(await storedState(ctx, owner.key, listingId), before, bad.label);
      }
    });

    it('a file over MEDIA_MAX_FILE_BYTES is 413 and the request keeps nothing; a file at the limit is taken', async () => {
      const listingId = await newGallery(limited, limitedOwner);
      const atLimit = await jpegOfSize(MAX_FILE_BYTES);
      await uploaded(limited, limitedOwner.key, listingId, [{ filename: 'at-limit.jpg', data: atLimit }]);
      const before = await storedState(limited, limitedOwner.key, listingId);
      assert.equal(before.count, 1);
      const small = await jpeg();
      const tooBig = await jpegOfSize(MAX_FILE_BYTES + 1);
      for (const files of [
        [small, small, tooBig],
        [tooBig, small],
        [small, await jpegOfSize(3 * MAX_FILE_BYTES)],
      ]) {
        const res = await upload(
          limited,
          limitedOwner.key,
          listingId,
          files.map((data, i) => ({ filename: `f${i}.jpg`, data })),
        );
        assertError(res, 413, 'payload_too_large');
        assert.deepEqual(await storedState(limited, limitedOwner.key, listingId), before);
      }
    });

    it('more files than MEDIA_MAX_FILES is 413 and the request keeps nothing; exactly the limit is taken', async () => {
      const listingId = await newGallery(limited, limitedOwner);
      const small = await jpeg();
      const three = await uploaded(
        limited,
        limitedOwner.key,
        listingId,
        [1, 2, 3].map((n) => ({ filename: `${n}.jpg`, data: small })),
      );
      assert.deepEqual(
        three.map((m) => m.position),
        [1, 2, 3],
      );
      const before = await storedState(limited, limitedOwner.key, listingId);
      const res = await upload(
        limited,
        limitedOwner.key,
        listingId,
        [1, 2, 3, 4].map((n) => ({ filename: `${n}.jpg`, data: small })),
      );
      assertError(res, 413, 'payload_too_large');
      assert.deepEqual(await storedState(limited, limitedOwner.key, listingId), before);
    });

    it('a photo over MEDIA_MAX_IMAGE_PIXELS is 413 and the request keeps nothing', async () => {
      const listingId = await newGallery(limited, limitedOwner);
      const before = await storedState(limited, limitedOwner.key, listingId);
      // 400 x 300 = 120,000 pixels, over the 100,000 of this context: from the header in the
      // first bytes (PNG), and from the stored file (a TIFF over 1 MiB with its directory last).
      const tiff = large.find((f) => f.contentType === 'image/tiff')!;
      for (const [name, data, size] of [
        ['big.png', await png(400, 300), '400x300'],
        ['big.tiff', tiff.data, `${tiff.width}x${tiff.height}`],
      ] as const) {
        const res = await upload(limited, limitedOwner.key, listingId, [
          { filename: 'ok.jpg', data: await jpeg() },
          { filename: name, data },
        ]);
        const body = assertError(res, 413, 'payload_too_large');
        assert.ok(body.error.message.startsWith(`${name} is ${size} pixels`), body.error.message);
        assert.deepEqual(await storedState(limited, limitedOwner.key, listingId), before);
      }
      assert.deepEqual(await readdir(path.join(limited.dataDir, 'tmp')).catch(() => []), []);
    });

    it('a client that disconnects mid-upload keeps nothing (inside the first file, or inside the second)', async () => {
      const listingId = await newGallery(ctx, owner);
      const before = await storedState(ctx, owner.key, listingId);
      const big = await jpegOfSize(3 * 1024 * 1024);
      const port = await listen(ctx);
      const scenarios = [
        {
          // Before the first file's type is even known (fewer bytes than are sniffed).
          parts: [{ filename: 'cut-early.jpg', data: big }],
          sent: (body: Buffer) => body.length - big.length + 1000,
          started: async () => assert.equal((await cleanupRows(ctx)).length, before.cleanup + 1),
        },
        {
          // The first file is stored and the second one is on its way.
          parts: [
            { filename: 'complete.jpg', data: await jpeg() },
            { filename: 'cut-short.jpg', data: big },
          ],
          sent: (body: Buffer) => body.length - 2 * 1024 * 1024,
          started: async () => {
            assert.equal((await cleanupRows(ctx)).length, before.cleanup + 2);
            assert.ok((await storedKeys(ctx)).length > before.keys.length);
          },
        },
      ];
      for (const scenario of scenarios) {
        const { body, contentType } = multipart(scenario.parts);
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/v1/listings/${listingId}/media`,
          headers: { authorization: `Bearer ${owner.key}`, 'content-type': contentType, 'content-length': body.length },
        });
        let answered: number | undefined;
        req.on('response', (res: IncomingMessage) => {
          answered = res.statusCode;
          res.resume();
        });
        req.on('error', () => undefined);
        req.write(body.subarray(0, scenario.sent(body)));
        await eventually(scenario.started);
        req.destroy();
        await eventually(async () => {
          assert.deepEqual(await storedState(ctx, owner.key, listingId), before);
        });
        assert.equal(answered, undefined);
        assert.deepEqual(await mediaRows(ctx, listingId), []);
      }
    });

    it('an upload over the size limit is answered 413 as soon as the limit is passed, not after the whole body', async () => {
      const listingId = await newGallery(limited, limitedOwner);
      const before = await storedState(limited, limitedOwner.key, listingId);
      const { body, contentType } = multipart([{ filename: 'huge.jpg', data: await jpegOfSize(8 * 1024 * 1024) }]);
      const port = await listen(limited);
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v1/listings/${listingId}/media`,
        headers: {
          authorization: `Bearer ${limitedOwner.key}`,
          'content-type': contentType,
          'content-length': body.length,
        },
      });
      const answer = new Promise<{ status: number | undefined; text: string; connection: string | undefined }>(
        (resolve, reject) => {
          req.on('response', (res: IncomingMessage) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode, text, connection: res.headers.connection }));
          });
          req.on('error', reject);
        },
      );
      // Only a little more than the limit of the 8 MiB body is ever sent.
      req.write(body.subarray(0, MAX_FILE_BYTES + 256 * 1024));
      const { status, text, connection } = await answer;
      req.destroy();
      assert.equal(status, 413, text);
      assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'payload_too_large');
      assert.equal(connection, 'close');
      await eventually(async () => {
        assert.deepEqual(await storedState(limited, limitedOwner.key, listingId), before);
      });
    });
  });
}
