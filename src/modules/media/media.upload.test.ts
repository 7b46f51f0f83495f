// Media uploads (docs/api.md §6) through the real HTTP stack on the local storage: what an upload
// request must look like, the files it refuses, limits and file names. The round-trips and
// all-or-nothing cases on both storages are in media.local.test.ts and media.s3.test.ts.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import {
  jpeg,
  jpegOfSize,
  pdf,
  pngDeclaring,
  refusedFixtures,
  rotatedJpeg,
  type Part,
} from '../../../test/support/media-fixtures.ts';
import {
  assertError,
  mediaCount,
  mediaRows,
  newGallery,
  storedKeys,
  storedState,
  upload,
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

describe('POST /v1/listings/:id/media: the request', () => {
  test('every refused kind alone is 415 unsupported_media_type, whatever its declared type and name', async () => {
    const listingId = await newGallery(ctx, owner);
    const before = await storedState(ctx, owner.key, listingId);
    for (const bad of refusedFixtures()) {
      const res = await upload(ctx, owner.key, listingId, [
        { filename: bad.filename, contentType: bad.declaredType, data: bad.data },
      ]);
      const body = assertError(res, 415, 'unsupported_media_type');
      assert.equal(body.error.details?.[0]?.field, 'files', bad.label);
      assert.deepEqual(await storedState(ctx, owner.key, listingId), before, bad.label);
    }
  });

  test('bytes that only start like a JPEG are a photo without dimensions (201), small or over 1 MiB', async () => {
    // docs/api.md §13: a file whose bytes sniff as a photo is accepted even if it cannot be decoded (its
    // variants end `failed`). It is only ever served as image/jpeg, attachment, nosniff.
    const listingId = await newGallery(ctx, owner);
    const magic = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
    const small = Buffer.concat([magic, Buffer.from('<html><script>alert(1)</script></html>')]);
    const big = Buffer.concat([magic, Buffer.alloc(1536 * 1024, '<p>x</p>')]);
    const media = await uploaded(ctx, owner.key, listingId, [
      { filename: 'fake.jpg', contentType: 'image/jpeg', data: small },
      { filename: 'big.jpg', contentType: 'text/html', data: big },
    ]);
    assert.deepEqual(
      media.map((m) => [m.filename, m.kind, m.content_type, m.width, m.height, m.size]),
      [
        ['fake.jpg', 'photo', 'image/jpeg', null, null, small.length],
        ['big.jpg', 'photo', 'image/jpeg', null, null, big.length],
      ],
    );
  });

  test('the kind comes from the bytes: a JPEG declared text/plain and named .txt is a photo', async () => {
    const listingId = await newGallery(ctx, owner);
    const [media] = await uploaded(ctx, owner.key, listingId, [
      { filename: 'notes.txt', contentType: 'text/plain', data: await jpeg() },
    ]);
    assert.equal(media?.kind, 'photo');
    assert.equal(media.content_type, 'image/jpeg');
    assert.equal(media.filename, 'notes.txt');
  });

  test('any field name works for a file part; plain fields beside the files are ignored', async () => {
    const listingId = await newGallery(ctx, owner);
    const data = await uploaded(ctx, owner.key, listingId, [
      { field: 'caption', data: 'not a file' },
      { field: 'photo', filename: 'a.jpg', data: await jpeg() },
      { field: 'file[]', filename: 'b.pdf', data: pdf() },
    ]);
    assert.deepEqual(
      data.map((m) => [m.filename, m.kind, m.position]),
      [
        ['a.jpg', 'photo', 1],
        ['b.pdf', 'document', 2],
      ],
    );
  });

  test('a request with no file part is 400 validation_error, and keeps nothing', async () => {
    const listingId = await newGallery(ctx, owner);
    const before = await storedState(ctx, owner.key, listingId);
    for (const parts of [[], [{ field: 'files', data: 'just text' }]]) {
      const res = await upload(ctx, owner.key, listingId, parts);
      const body = assertError(res, 400, 'validation_error');
      assert.equal(body.error.details?.[0]?.field, 'files');
      assert.deepEqual(await storedState(ctx, owner.key, listingId), before);
    }
  });

  test('a request that is neither multipart/form-data nor JSON is 415 unsupported_media_type', async () => {
    const listingId = await newGallery(ctx, owner);
    const image = await jpeg();
    const url = `/v1/listings/${listingId}/media`;
    // JSON is media from a URL (docs/api.md §21, media.from-url.test.ts): files in it are refused by name.
    const json = await call(ctx, 'POST', url, { key: owner.key, body: { files: ['x'] } });
    assertError(json, 400, 'validation_error');
    for (const [type, payload] of [
      ['image/jpeg', image],
      ['application/octet-stream', image],
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'files=x'],
    ] as const) {
      const res = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${owner.key}`, 'content-type': type },
        payload,
      });
      assertError(res, 415, 'unsupported_media_type');
    }
    const none = await call(ctx, 'POST', url, { key: owner.key });
    assert.ok([400, 415].includes(none.statusCode), `no body at all: ${none.statusCode}`);
    assert.deepEqual(await mediaRows(ctx, listingId), []);
    assert.equal(await mediaCount(ctx, owner.key, listingId), 0);
  });

  test(
    'a malformed or truncated multipart body is 400 validation_error (not a 500, not a hang) and keeps nothing',
    { timeout: 20_000 },
    async () => {
      const listingId = await newGallery(ctx, owner);
      const before = await storedState(ctx, owner.key, listingId);
      const image = await jpeg();
      const head = (name: string) =>
        `--b0undary\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: image/jpeg\r\n\r\n`;
      const cases: [string, string, Buffer][] = [
        ['no boundary parameter', 'multipart/form-data', Buffer.concat([Buffer.from(head('a.jpg')), image])],
        [
          'no closing delimiter',
          'multipart/form-data; boundary=b0undary',
          Buffer.concat([Buffer.from(head('a.jpg')), image]),
        ],
        [
          'cut inside the second file',
          'multipart/form-data; boundary=b0undary',
          Buffer.concat([
            Buffer.from(head('a.jpg')),
            image,
            Buffer.from(`\r\n${head('b.jpg')}`),
            image.subarray(0, 100),
          ]),
        ],
        [
          'cut inside the part headers',
          'multipart/form-data; boundary=b0undary',
          Buffer.concat([Buffer.from(head('a.jpg')), image, Buffer.from('\r\n--b0undary\r\nContent-Dispo')]),
        ],
        ['no delimiter at all', 'multipart/form-data; boundary=b0undary', Buffer.from('just some bytes')],
      ];
      for (const [label, type, payload] of cases) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: `/v1/listings/${listingId}/media`,
          headers: { authorization: `Bearer ${owner.key}`, 'content-type': type },
          payload,
        });
        assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
        assertError(res, 400, 'validation_error');
        assert.deepEqual(await storedState(ctx, owner.key, listingId), before, label);
      }
    },
  );

  test('form fields that break the parser are 400 or 413, never a 500, and keep nothing', async () => {
    const listingId = await newGallery(ctx, owner);
    const before = await storedState(ctx, owner.key, listingId);
    const image = await jpeg();
    const cases: [string, Part[], number][] = [
      ['a field declared JSON that is not', [{ field: 'meta', contentType: 'application/json', data: '{bad' }], 400],
      ['a field named __proto__', [{ field: '__proto__', data: 'x' }], 400],
      ['a file part named constructor', [{ field: 'constructor', filename: 'c.jpg', data: image }], 400],
      ['too many fields', Array.from({ length: 150 }, (_, i) => ({ field: `f${i}`, data: 'x' })), 413],
    ];
    for (const [label, extra, status] of cases) {
      for (const parts of [
        [{ filename: 'a.jpg', data: image }, ...extra],
        [...extra, { filename: 'a.jpg', data: image }],
      ]) {
        const res = await upload(ctx, owner.key, listingId, parts);
        assertError(res, status, status === 400 ? 'validation_error' : 'payload_too_large');
        assert.deepEqual(await storedState(ctx, owner.key, listingId), before, label);
      }
    }
  });

  test('a decompression bomb (20000 x 20000 declared) is refused 413 from its header, never decoded', async () => {
    const listingId = await newGallery(ctx, owner);
    const before = await storedState(ctx, owner.key, listingId);
    // The file is 60-odd bytes: its pixel data is a stub that would fail to decode.
    const bomb = pngDeclaring(20000, 20000);
    const started = Date.now();
    const res = await upload(ctx, owner.key, listingId, [
      { filename: 'ok.jpg', data: await jpeg() },
      { filename: 'bomb.png', contentType: 'image/png', data: bomb },
    ]);
    const body = assertError(res, 413, 'payload_too_large');
    assert.match(body.error.message, /bomb\.png is 20000x20000 pixels/);
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(await storedState(ctx, owner.key, listingId), before);
  });

  test('concurrent uploads to one gallery never share a position; each request keeps its files together', async () => {
    const listingId = await newGallery(ctx, owner);
    const image = await jpeg();
    const responses = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        upload(ctx, owner.key, listingId, [
          { filename: `${n}a.jpg`, data: image },
          { filename: `${n}b.pdf`, data: pdf() },
        ]),
      ),
    );
    const positions = responses.map((res) => {
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ data: MediaJson[] }>().data.map((m) => m.position);
    });
    for (const [first, second] of positions) assert.equal(second, first! + 1);
    assert.deepEqual(
      positions.flat().sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.equal(await mediaCount(ctx, owner.key, listingId), 8);
  });

  test('photos report the size a viewer shows (EXIF orientation 6 swaps width and height)', async () => {
    const listingId = await newGallery(ctx, owner);
    const [media] = await uploaded(ctx, owner.key, listingId, [{ filename: 'r.jpg', data: await rotatedJpeg() }]);
    assert.deepEqual([media?.width, media?.height], [21, 33]);
  });

  test('the gallery must exist in the caller account: 404 before anything is stored', async () => {
    const other = await createAccount(ctx, 'Other studio');
    const theirs = await newGallery(ctx, other);
    const before = await storedKeys(ctx);
    for (const listingId of [theirs, 'lst_0000000000000000000000ZZZZ']) {
      const res = await upload(ctx, owner.key, listingId, [{ filename: 'a.jpg', data: await jpeg() }]);
      assertError(res, 404, 'not_found');
    }
    assert.deepEqual(await storedKeys(ctx), before);
    assert.equal(await mediaCount(ctx, other.key, theirs), 0);
  });
});

describe('file names', () => {
  test('path parts and control characters are removed; what is left is kept as sent', async () => {
    const listingId = await newGallery(ctx, owner);
    const cases: [string, string][] = [
      ['../../etc/passwd.jpg', 'passwd.jpg'],
      ['C:\\Users\\ada\\Pictures\\beach.jpg', 'beach.jpg'],
      ['/var/www/html/index.jpg', 'index.jpg'],
      ['sub/dir/../x.jpg', 'x.jpg'],
      ['bell\u0007tab\tesc\u001b.jpg', 'belltabesc.jpg'],
      ['del\u007f c1\u0085.jpg', 'del c1.jpg'],
      ['gnp.\u202eevil.jpg', 'gnp.evil.jpg'],
      ['../', 'file'],
      ['..', 'file'],
      ['   spaced name.jpg  ', 'spaced name.jpg'],
      ['Café été, 2026 (1).jpg', 'Café été, 2026 (1).jpg'],
    ];
    const image = await jpeg();
    const data = await uploaded(
      ctx,
      owner.key,
      listingId,
      cases.map(([filename]) => ({ filename, data: image })),
    );
    assert.deepEqual(
      data.map((m) => m.filename),
      cases.map(([, clean]) => clean),
    );
    // What is stored is what was answered.
    const rows = await mediaRows(ctx, listingId);
    assert.deepEqual(
      rows.map((r) => r.filename),
      cases.map(([, clean]) => clean),
    );
  });

  test('an RFC 5987 filename* is decoded; a part without a name is called "file"', async () => {
    const listingId = await newGallery(ctx, owner);
    const image = await jpeg();
    const data = await uploaded(ctx, owner.key, listingId, [
      { rawDisposition: `form-data; name="files"; filename*=UTF-8''%C3%A9t%C3%A9%20%E2%82%AC.jpg`, data: image },
      { filename: '', data: image },
    ]);
    assert.deepEqual(
      data.map((m) => m.filename),
      ['été €.jpg', 'file'],
    );
  });
});

describe('limits', () => {
  test('the per-file limit is the configured one (a small MEDIA_MAX_FILE_BYTES)', async () => {
    const small = await createTestContext({ MEDIA_MAX_FILE_BYTES: '1000' });
    try {
      const account = await createAccount(small);
      const listingId = await newGallery(small, account);
      const res = await upload(small, account.key, listingId, [{ filename: 'a.jpg', data: await jpegOfSize(1001) }]);
      const body = assertError(res, 413, 'payload_too_large');
      assert.match(body.error.message, /a\.jpg .*1000 bytes/);
      assert.deepEqual(await storedKeys(small), []);
      await uploaded(small, account.key, listingId, [{ filename: 'b.jpg', data: await jpegOfSize(1000) }]);
    } finally {
      await small.close();
    }
  });
});
