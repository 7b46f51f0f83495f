// One list of cases run on both local and S3 storage: split, each half would start its own S3 server.
// "Download all" over HTTP (docs/api.md §14), on local and S3 storage: Content-Length known before the
// first byte, every range equal to the same slice of the whole, If-Range with the strong ETag, an
// ETag that follows the set and order of visible originals, entries in position order with unique
// names and the originals' bytes. The ZIP64 archive past 4 GiB is zip64.http.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg, pdf } from '../../test/support/media-fixtures.ts';
import { sha256, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { patchMedia, putOrder } from '../../test/support/gallery-order.ts';
import { assertGalleryHeaders, linkedGallery, readZip, visit, type LinkedGallery } from '../../test/support/gallery.ts';
import { checkZipWithTools } from '../../test/support/zip-tools.ts';

interface StorageSetup {
  env: (name: string) => Record<string, string>;
  stop: () => Promise<void>;
}

/** Files whose bytes are mostly random, so that a slice from the wrong offset cannot pass. */
async function files(): Promise<{ filename: string; contentType: string; data: Buffer }[]> {
  const photo = await jpeg(20, 20);
  const bigPhoto = (n: number) => Buffer.concat([photo, randomBytes(n)]);
  return [
    { filename: 'a.jpg', contentType: 'image/jpeg', data: bigPhoto(300_000) },
    { filename: 'secret.jpg', contentType: 'image/jpeg', data: bigPhoto(1000) },
    { filename: 'a.jpg', contentType: 'image/jpeg', data: bigPhoto(70_000) },
    { filename: 'A.JPG', contentType: 'image/jpeg', data: bigPhoto(5) },
    { filename: 'plan.pdf', contentType: 'application/pdf', data: Buffer.concat([pdf('plan'), randomBytes(123_457)]) },
    { filename: 'empty-ish.pdf', contentType: 'application/pdf', data: pdf('e') },
  ];
}

function describeZipOverHttp(name: string, start: () => Promise<StorageSetup | string>): void {
  describe(`the gallery ZIP over HTTP on ${name} storage`, () => {
    let setup: StorageSetup | undefined;
    let skip: string | undefined;
    let ctx: TestContext;
    let owner: TestAccount;
    let linked: LinkedGallery;
    let media: MediaJson[];
    let zipUrl: string;

    before(async () => {
      const started = await start();
      if (typeof started === 'string') {
        skip = started;
        return;
      }
      setup = started;
      ctx = await createTestContext(setup.env(`zip-${randomBytes(4).toString('hex')}`));
      owner = await createAccount(ctx);
      linked = await linkedGallery(ctx, owner, { address: '7 Elm Row, Flat 2/B' });
      media = await uploaded(ctx, owner.key, linked.listingId, await files());
      assert.equal(
        (await patchMedia(ctx, owner.key, linked.listingId, media[1]!.id, { hidden: true })).statusCode,
        200,
      );
      zipUrl = `${linked.path}/download.zip`;
    });
    after(async () => {
      if (setup === undefined) return;
      await ctx.close();
      await setup.stop();
    });

    const visibleMedia = () => media.filter((_, i) => i !== 1);

    test('the whole ZIP: length and strong ETag known up front, entries in order, unique names, the originals', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const head = await visit(ctx, zipUrl, { method: 'HEAD' });
      assert.equal(head.statusCode, 200);
      // Local files are read into reused buffers (src/gallery/zip-stream.ts); S3 objects are streamed.
      const storage = ctx.deps.storage;
      const openReader = storage.openReader?.bind(storage);
      const readers: string[] = [];
      if (openReader !== undefined) {
        storage.openReader = (key) => {
          readers.push(key);
          return openReader(key);
        };
      }
      let res;
      try {
        res = await visit(ctx, zipUrl);
      } finally {
        if (openReader !== undefined) storage.openReader = openReader;
      }
      assert.equal(readers.length, name === 'local' ? visibleMedia().length : 0, 'originals read into reused buffers');
      assert.equal(res.statusCode, 200);
      assertGalleryHeaders(res, 'the ZIP');
      assert.equal(res.headers['content-type'], 'application/zip');
      assert.equal(res.headers['accept-ranges'], 'bytes');
      assert.equal(res.headers['content-length'], String(res.rawPayload.length));
      assert.equal(head.headers['content-length'], res.headers['content-length'], 'HEAD gives the same length');
      assert.match(String(res.headers.etag), /^"[^"]+"$/, 'a strong ETag');
      assert.equal(head.headers.etag, res.headers.etag);
      assert.match(String(res.headers['content-disposition']), /^attachment; filename="7 Elm Row, Flat 2 B\.zip"$/);

      const members = readZip(res.rawPayload);
      assert.deepEqual(
        members.map((m) => m.name),
        ['a.jpg', 'a (2).jpg', 'A (3).JPG', 'plan.pdf', 'empty-ish.pdf'],
      );
      const originals = await files();
      visibleMedia().forEach((item, i) => {
        const member = members[i]!;
        assert.equal(member.method, 0, 'stored');
        assert.equal(sha256(member.data), item.sha256, member.name);
        assert.equal(member.crc32, zlib.crc32(member.data), member.name);
        assert.equal(member.size, item.size);
      });
      assert.equal(originals.length, 6);

      // Three independent readers agree (unzip, Python zipfile, 7-Zip).
      const dir = await mkdtemp(path.join(tmpdir(), 'lightbox-gallery-zip-'));
      try {
        const file = path.join(dir, 'gallery.zip');
        await writeFile(file, res.rawPayload);
        const report = await checkZipWithTools(file, { hash: true });
        assert.deepEqual(
          report.map((r) => r.sha256),
          visibleMedia().map((m) => m.sha256),
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('any range is exactly that slice of the whole', async (t) => {
      if (skip !== undefined) return t.skip(skip);
      const whole = (await visit(ctx, zipUrl)).rawPayload;
      const size = whole.length;
      const etag = String((await visit(ctx, zipUrl, { method: 'HEAD' })).headers.etag);
      const edges = readZip(whole).flatMap((m) => [m.headerOffset, m.dataOffset, m.dataOffset + m.size]);
      const points = [...new Set([0, 1, size - 1, ...edges.flatMap((e) => [e - 1, e, e + 1])])].filter(
        (p) => p >= 0 && p < size,
      );
      const ranges: [string, number, number][] = [];
      for (const p of points) {
        ranges.push([`bytes=${p}-`, p, size - 1]);
        ranges.push([`bytes=${p}-${Math.min(size - 1, p + 99)}`, p, Math.min(size - 1, p + 99)]);
      }
      let seed = 7;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let i = 0; i < 40; i++) {
        const a = random(size);
        const b = a + random(size - a);
        ranges.push([`bytes=${a}-${b}`, a, b]);
      }
      for (const n of [1, 22, 1000, size]) ranges.push([`bytes=-${n}`, size - n, size - 1]);
      for (const [range, start, end] of ranges) {
        const res = await visit(ctx, zipUrl, { headers: { range, 'if-range': etag } });
        assert.equal(res.statusCode, 206, range);
        assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size}`, range);
        assert.equal(res.headers['content-length'], String(end - start + 1), range);
        assert.ok(res.rawPayload.equals(whole.subarray(start, end + 1)), `${range}: not that slice of the whole`);
      }
      const beyond = await visit(ctx, zipUrl, { headers: { range: `bytes=${size}-` } });
      assert.equal(beyond.statusCode, 416);
      assert.equal(beyond.headers['content-range'], `bytes */${size}`);
      assertGalleryHeaders(beyond, 'the ZIP 416');
    });
  });
}

describeZipOverHttp('local', () => Promise.resolve({ env: () => ({}), stop: () => Promise.resolve() }));

const s3Helper = new URL('../../test/support/s3-server.ts', import.meta.url);
describeZipOverHttp('S3', async () => {
  if (!existsSync(s3Helper)) return 'test/support/s3-server.ts does not exist: S3 cases not run';
  const { startS3Server } = (await import(s3Helper.href)) as typeof import('../../test/support/s3-server.ts');
  const server = await startS3Server();
  return {
    env: (prefix) => ({ ...server.env, MEDIA_STORAGE: `s3://${server.bucket}/${prefix}` }),
    stop: () => server.stop(),
  };
});

describe('the ZIP ETag follows the visible originals, and If-Range follows the ETag', () => {
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx);
  });
  after(() => ctx.close());

  test('hiding, showing, reordering, adding and deleting change it; a caption does not', async () => {
    const linked = await linkedGallery(ctx, owner);
    const media = await uploaded(ctx, owner.key, linked.listingId, (await files()).slice(2));
    const url = `${linked.path}/download.zip`;
    const get = async (headers: Record<string, string> = {}) => visit(ctx, url, { headers });
    const first = await get();
    const etag = String(first.headers.etag);
    const names = (body: Buffer) => readZip(body).map((m) => m.name);
    assert.deepEqual(names(first.rawPayload), ['a.jpg', 'A (2).JPG', 'plan.pdf', 'empty-ish.pdf']);

    // A caption changes no byte of the ZIP: same ETag, and a resumed download goes on.
    await patchMedia(ctx, owner.key, linked.listingId, media[0]!.id, { caption: 'The front' });
    assert.equal((await get()).headers.etag, etag);
    const resumed = await get({ range: 'bytes=1000-', 'if-range': etag });
    assert.equal(resumed.statusCode, 206);

    // Hidden: another set, another ETag; a download resumed with the old one starts again whole.
    await patchMedia(ctx, owner.key, linked.listingId, media[1]!.id, { hidden: true });
    const hidden = await get();
    assert.notEqual(hidden.headers.etag, etag);
    assert.deepEqual(names(hidden.rawPayload), ['a.jpg', 'plan.pdf', 'empty-ish.pdf']);
    const stale = await get({ range: 'bytes=1000-', 'if-range': etag });
    assert.equal(stale.statusCode, 200, 'If-Range with a stale ETag: the whole new ZIP');
    assert.ok(stale.rawPayload.equals(hidden.rawPayload));
    assert.equal((await get({ 'if-none-match': etag })).statusCode, 200);
    assert.equal((await get({ 'if-none-match': String(hidden.headers.etag) })).statusCode, 304);

    // Shown again: the same bytes as before, so the same ETag.
    await patchMedia(ctx, owner.key, linked.listingId, media[1]!.id, { hidden: false });
    const shown = await get();
    assert.equal(shown.headers.etag, etag);
    assert.ok(shown.rawPayload.equals(first.rawPayload));

    // Reordered: the entries follow the positions (the first of a name keeps it), and other bytes
    // mean another ETag.
    const ids = media.map((m) => m.id);
    const reversed = [...ids].reverse();
    assert.equal((await putOrder(ctx, owner.key, linked.listingId, { media_ids: reversed })).statusCode, 200);
    const moved = await get();
    assert.notEqual(moved.headers.etag, etag);
    assert.deepEqual(names(moved.rawPayload), ['empty-ish.pdf', 'plan.pdf', 'A.JPG', 'a (2).jpg']);
    assert.equal((await get({ range: 'bytes=10-', 'if-range': etag })).statusCode, 200);
    assert.equal((await putOrder(ctx, owner.key, linked.listingId, { media_ids: ids })).statusCode, 200);
    assert.equal((await get()).headers.etag, etag);

    // Added and deleted.
    const [added] = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpeg(9, 9) },
    ]);
    const grown = await get();
    assert.notEqual(grown.headers.etag, etag);
    assert.deepEqual(names(grown.rawPayload), ['a.jpg', 'A (2).JPG', 'plan.pdf', 'empty-ish.pdf', 'a (3).jpg']);
    assert.equal(
      (await call(ctx, 'DELETE', `/v1/listings/${linked.listingId}/media/${added!.id}`, { key: owner.key })).statusCode,
      204,
    );
    assert.equal((await get()).headers.etag, etag);
    await call(ctx, 'DELETE', `/v1/listings/${linked.listingId}/media/${media[3]!.id}`, { key: owner.key });
    assert.notEqual((await get()).headers.etag, etag);
  });

  test('If-Range: the strong ETag gives the range; a weak one, another tag or a date gives the whole', async () => {
    const linked = await linkedGallery(ctx, owner);
    await uploaded(ctx, owner.key, linked.listingId, (await files()).slice(4));
    const url = `${linked.path}/download.zip`;
    const whole = await visit(ctx, url);
    const etag = String(whole.headers.etag);
    const match = await visit(ctx, url, { headers: { range: 'bytes=50-', 'if-range': etag } });
    assert.equal(match.statusCode, 206);
    assert.ok(match.rawPayload.equals(whole.rawPayload.subarray(50)));
    for (const ifRange of [`W/${etag}`, '"something-else"', new Date(Date.now() + 86_400_000).toUTCString()]) {
      const res = await visit(ctx, url, { headers: { range: 'bytes=50-', 'if-range': ifRange } });
      assert.equal(res.statusCode, 200, ifRange);
      assert.equal(res.headers['content-range'], undefined);
      assert.ok(res.rawPayload.equals(whole.rawPayload), ifRange);
    }
  });

  test('a gallery with nothing visible gives an empty, valid ZIP', async () => {
    const linked = await linkedGallery(ctx, owner);
    const res = await visit(ctx, `${linked.path}/download.zip`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(readZip(res.rawPayload), []);
    assert.equal(res.headers['content-length'], String(res.rawPayload.length));
  });
});
