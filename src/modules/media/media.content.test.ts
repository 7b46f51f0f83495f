// GET /v1/listings/:id/media/:media_id/content (docs/api.md §6): the bytes, Range (206/416), ETag and
// If-None-Match (304), and the headers that keep an uploaded file from ever running in a browser.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseDisposition } from 'content-disposition';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { pdf } from '../../../test/support/media-fixtures.ts';
import {
  assertError,
  getContent,
  newGallery,
  sha256,
  uploaded,
  type MediaJson,
} from '../../../test/support/media-helpers.ts';

let ctx: TestContext;
let owner: TestAccount;
let media: MediaJson;
let bytes: Buffer;

before(async () => {
  ctx = await createTestContext();
  owner = await createAccount(ctx);
  const listingId = await newGallery(ctx, owner);
  // 1,000+ bytes with a distinct value at every offset that matters.
  bytes = pdf('x'.repeat(1200));
  [media] = (await uploaded(ctx, owner.key, listingId, [
    { filename: 'brochure.pdf', contentType: 'text/html', data: bytes },
  ])) as [MediaJson];
});

after(async () => {
  await ctx.close();
});

const size = (): number => bytes.length;

describe('the whole file', () => {
  test('200 with exactly the stored bytes, the sniffed type, its length, Accept-Ranges and the ETag', async () => {
    const res = await getContent(ctx, owner.key, media);
    assert.equal(res.statusCode, 200);
    assert.ok(res.rawPayload.equals(bytes));
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(res.headers['content-length'], String(size()));
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.equal(res.headers.etag, `"${sha256(bytes)}"`);
    assert.equal(res.headers.etag, `"${media.sha256}"`);
    assert.equal(res.headers['content-range'], undefined);
  });

  test('nothing uploaded can run in a browser: attachment, nosniff and a sandboxing CSP', async () => {
    const res = await getContent(ctx, owner.key, media);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['content-disposition']), /^attachment;/);
    assert.equal(parseDisposition(String(res.headers['content-disposition'])).parameters.filename, 'brochure.pdf');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /(^|;)\s*sandbox(\s*;|$)/, csp);
    assert.match(csp, /(^|;)\s*default-src 'none'(\s*;|$)/, csp);
    // The declared type (text/html) is never what is served.
    assert.doesNotMatch(String(res.headers['content-type']), /html/);
  });

  test('the headers are the same on 206 and 304 answers', async () => {
    const variants: Record<string, string>[] = [{ range: 'bytes=0-9' }, { 'if-none-match': `"${media.sha256}"` }];
    for (const headers of variants) {
      const res = await getContent(ctx, owner.key, media, headers);
      assert.ok([206, 304].includes(res.statusCode), String(res.statusCode));
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(String(res.headers['content-disposition']), /^attachment;/);
      assert.match(String(res.headers['content-security-policy']), /sandbox/);
      assert.equal(res.headers.etag, `"${media.sha256}"`);
    }
  });
});

describe('HEAD', () => {
  test('the same headers as GET, without the body', async () => {
    const url = `/v1/listings/${media.listing_id}/media/${media.id}/content`;
    const whole = await call(ctx, 'HEAD', url, { key: owner.key });
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.rawPayload.length, 0);
    assert.equal(whole.headers['content-length'], String(size()));
    assert.equal(whole.headers.etag, `"${media.sha256}"`);
    assert.equal(whole.headers['x-content-type-options'], 'nosniff');
    const part = await call(ctx, 'HEAD', url, { key: owner.key, headers: { range: 'bytes=0-3' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 0-3/${size()}`);
  });
});

describe('Content-Disposition filenames (RFC 6266)', () => {
  const cases: [string, RegExp][] = [
    ['plain.pdf', /^attachment; filename="?plain\.pdf"?$/],
    ['two words "quoted".pdf', /^attachment; filename="two words \\"quoted\\"\.pdf"$/],
    ['Café été.pdf', /^attachment; filename="Caf. .t.\.pdf"; filename\*=UTF-8''Caf%C3%A9%20%C3%A9t%C3%A9\.pdf$/],
    ['写真.pdf', /^attachment; filename="\?\?\.pdf"; filename\*=UTF-8''%E5%86%99%E7%9C%9F\.pdf$/],
    ['semi;colon,comma.pdf', /^attachment; filename="semi;colon,comma\.pdf"$/],
  ];

  test('ASCII names are quoted as needed; other names add filename*=UTF-8 with an ASCII fallback', async () => {
    const listingId = await newGallery(ctx, owner);
    // Quotes in a multipart filename travel backslash-escaped.
    const data = await uploaded(
      ctx,
      owner.key,
      listingId,
      cases.map(([filename]) => ({
        rawDisposition: `form-data; name="files"; filename="${filename.replace(/"/g, '\\"')}"`,
        data: pdf(),
      })),
    );
    for (const [i, item] of data.entries()) {
      const [filename, shape] = cases[i]!;
      assert.equal(item.filename, filename);
      const header = String((await getContent(ctx, owner.key, item)).headers['content-disposition']);
      assert.match(header, shape, `${filename}: ${header}`);
      assert.doesNotMatch(header, /[^\x20-\x7e]/, 'the header is ASCII');
      assert.equal(parseDisposition(header).parameters.filename, filename, 'parsed back to the stored name');
    }
  });
});

describe('Range', () => {
  const ranged = async (range: string) => getContent(ctx, owner.key, media, { range });

  function assertPartial(res: Awaited<ReturnType<typeof ranged>>, start: number, end: number): void {
    assert.equal(res.statusCode, 206, res.body);
    assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size()}`);
    assert.equal(res.headers['content-length'], String(end - start + 1));
    assert.ok(res.rawPayload.equals(bytes.subarray(start, end + 1)), 'exact bytes');
    assert.equal(res.headers['content-type'], 'application/pdf');
  }

  test('the first bytes, a middle range, a suffix, an open end', async () => {
    assertPartial(await ranged('bytes=0-9'), 0, 9);
    assertPartial(await ranged('bytes=0-0'), 0, 0);
    assertPartial(await ranged('bytes=100-199'), 100, 199);
    assertPartial(await ranged('bytes=-10'), size() - 10, size() - 1);
    assertPartial(await ranged(`bytes=${size() - 5}-`), size() - 5, size() - 1);
    // An end past the last byte is clamped to it.
    assertPartial(await ranged(`bytes=${size() - 3}-${size() + 1000}`), size() - 3, size() - 1);
    // The whole file as a range.
    assertPartial(await ranged('bytes=0-'), 0, size() - 1);
  });

  test('an unsatisfiable range is 416 with Content-Range: bytes */size', async () => {
    for (const range of [`bytes=${size()}-`, `bytes=${size() + 10}-${size() + 20}`]) {
      const res = await ranged(range);
      assertError(res, 416, 'range_not_satisfiable');
      assert.equal(res.headers['content-range'], `bytes */${size()}`);
    }
  });

  test('a malformed range, another unit or several ranges are ignored: 200 with the whole file', async () => {
    for (const range of ['items=0-9', 'bytes=abc', 'bytes=0-9,20-29', 'nonsense']) {
      const res = await ranged(range);
      assert.equal(res.statusCode, 200, `${range}: ${res.statusCode}`);
      assert.ok(res.rawPayload.equals(bytes), range);
    }
  });

  test('If-Range: the range only while the ETag still matches', async () => {
    const same = await getContent(ctx, owner.key, media, { range: 'bytes=0-9', 'if-range': `"${media.sha256}"` });
    assertPartial(same, 0, 9);
    const stale = await getContent(ctx, owner.key, media, { range: 'bytes=0-9', 'if-range': '"0000"' });
    assert.equal(stale.statusCode, 200);
    assert.ok(stale.rawPayload.equals(bytes));
  });
});

describe('ETag and If-None-Match', () => {
  test('a matching tag (strong, weak, in a list, or *) is 304 with no body', async () => {
    for (const tag of [`"${media.sha256}"`, `W/"${media.sha256}"`, `"other", "${media.sha256}"`, '*']) {
      const res = await getContent(ctx, owner.key, media, { 'if-none-match': tag });
      assert.equal(res.statusCode, 304, tag);
      assert.equal(res.rawPayload.length, 0);
      assert.equal(res.headers.etag, `"${media.sha256}"`);
    }
  });

  test('a tag that does not match is 200 with the bytes; If-None-Match wins over Range', async () => {
    const res = await getContent(ctx, owner.key, media, { 'if-none-match': '"not-it"' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.rawPayload.equals(bytes));
    const both = await getContent(ctx, owner.key, media, { 'if-none-match': `"${media.sha256}"`, range: 'bytes=0-9' });
    assert.equal(both.statusCode, 304);
  });

  test('the ETag is the quoted sha256 of the bytes, so equal bytes have equal tags', async () => {
    const listingId = await newGallery(ctx, owner);
    const [copy] = await uploaded(ctx, owner.key, listingId, [{ filename: 'copy.pdf', data: bytes }]);
    const res = await getContent(ctx, owner.key, copy!);
    assert.equal(res.headers.etag, `"${media.sha256}"`);
  });
});
