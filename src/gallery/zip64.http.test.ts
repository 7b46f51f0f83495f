// A ZIP64 gallery past 4 GiB streamed through a real socket (docs/api.md §14; local storage,
// sparse sources, hashed on the fly, never stored): out of `npm run test:quick`, and run on one
// dialect, since it streams bytes and touches the database only to set up.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { createAccount, createTestContext, isPostgres, type TestContext } from '../../test/support/test-app.ts';
import { pdf } from '../../test/support/media-fixtures.ts';
import { mediaRows, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { linkedGallery, dataOffsetOf, readZipDirectory } from '../../test/support/gallery.ts';

const GiB = 1024 ** 3;

describe('a ZIP64 gallery past 4 GiB through a real socket (local storage, sparse files)', () => {
  let ctx: TestContext;
  let base: string;
  let skip: string | undefined;

  before(async () => {
    if (isPostgres) {
      skip = 'streams 4 GiB and touches the database only to set it up: run in the SQLite pass only';
      return;
    }
    ctx = await createTestContext();
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const address = ctx.app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    if (skip === undefined) await ctx.close();
  });

  /** Makes a media item's stored file `size` bytes (sparse, with markers) and its row say so. */
  async function inflate(item: MediaJson, size: number): Promise<string> {
    const [row] = (await mediaRows(ctx, item.listing_id)).filter((r) => r.id === item.id);
    const file = ctx.deps.storage.localPath!(row!.storage_key);
    const handle = await openFile(file, 'r+');
    try {
      await handle.truncate(size);
      for (const at of [2 * GiB + 17, 4 * GiB - 3, size - 8]) await handle.write(randomBytes(8), 0, 8, at);
    } finally {
      await handle.close();
    }
    const hash = createHash('sha256');
    let crc = 0;
    for await (const chunk of createReadStream(file, { highWaterMark: 4 * 1024 * 1024 })) {
      hash.update(chunk as Buffer);
      crc = zlib.crc32(chunk as Buffer, crc);
    }
    const digest = hash.digest('hex');
    await ctx.deps.db.kysely
      .updateTable('media')
      .set({ size, sha256: digest, crc32: crc })
      .where('id', '=', item.id)
      .execute();
    return digest;
  }

  const get = async (url: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${base}${url}`, { headers });

  test('Content-Length, the ZIP64 directory and every entry past 4 GiB, hashed as it streams', async (t) => {
    if (skip !== undefined) return t.skip(skip);
    const owner = await createAccount(ctx);
    const linked = await linkedGallery(ctx, owner);
    const small = Buffer.concat([pdf('small'), randomBytes(5000)]);
    const media = await uploaded(ctx, owner.key, linked.listingId, [
      { filename: 'first.pdf', contentType: 'application/pdf', data: small },
      { filename: 'huge.pdf', contentType: 'application/pdf', data: pdf('huge') },
      { filename: 'after.pdf', contentType: 'application/pdf', data: small },
    ]);
    const hugeSize = 4 * GiB + 4097;
    const hugeHash = await inflate(media[1]!, hugeSize);
    const expected = [media[0]!.sha256, hugeHash, media[2]!.sha256];
    const url = `${linked.path}/download.zip`;

    const head = await fetch(`${base}${url}`, { method: 'HEAD' });
    const size = Number(head.headers.get('content-length'));
    const etag = head.headers.get('etag')!;
    assert.ok(size > hugeSize + 2 * small.length, `Content-Length ${size}`);

    // The directory from the tail, the local headers from their offsets: all by Range.
    const range = async (start: number, end: number): Promise<Buffer> => {
      const res = await get(url, { range: `bytes=${start}-${end}`, 'if-range': etag });
      assert.equal(res.status, 206);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${size}`);
      return Buffer.from(await res.arrayBuffer());
    };
    const tailStart = size - 4096;
    const members = readZipDirectory(await range(tailStart, size - 1), tailStart);
    assert.deepEqual(
      members.map((m) => [m.name, m.size, m.method]),
      [
        ['first.pdf', small.length, 0],
        ['huge.pdf', hugeSize, 0],
        ['after.pdf', small.length, 0],
      ],
    );
    assert.ok(members[2]!.headerOffset > 2 ** 32, 'the last entry starts past 4 GiB (a ZIP64 offset)');
    const spans: { start: number; end: number }[] = [];
    for (const m of members) {
      const start = dataOffsetOf(m, await range(m.headerOffset, m.headerOffset + 1023));
      spans.push({ start, end: start + m.size });
    }
    // A range wholly past 4 GiB: the last original, byte for byte.
    assert.ok((await range(spans[2]!.start, spans[2]!.end - 1)).equals(small));

    // The whole archive through the socket: every entry's bytes hashed as they pass.
    const res = await get(url);
    assert.equal(res.status, 200);
    assert.equal(Number(res.headers.get('content-length')), size);
    const hashes = spans.map(() => createHash('sha256'));
    let at = 0;
    for await (const chunk of res.body!) {
      const bytes = chunk as Uint8Array;
      spans.forEach((span, i) => {
        const from = Math.max(span.start, at);
        const to = Math.min(span.end, at + bytes.length);
        if (from < to) hashes[i]!.update(bytes.subarray(from - at, to - at));
      });
      at += bytes.length;
    }
    assert.equal(at, size, 'the bytes received are the Content-Length');
    assert.deepEqual(
      hashes.map((h) => h.digest('hex')),
      expected,
    );
  });
});
