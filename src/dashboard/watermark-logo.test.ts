// The watermark logo (docs/api.md §29) over HTTP: Settings > Studio takes a PNG, JPEG or WebP
// (sniffed, at most 2 MB), keeps it in media storage, and a locked gallery's previews are made
// again with it across them; anything else is refused beside the field with nothing stored, and
// "Remove logo" goes back to the studio's name, its stored bytes removed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { Browser } from '../../test/support/dashboard-browser.ts';
import { linkedGallery, visit } from '../../test/support/gallery.ts';
import { jpeg, multipart, pdf, type Part } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../test/support/media-helpers.ts';
import { issuedInvoice, makePreviewsNow } from '../../test/support/pay-lock.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts';
import { markOf } from '../modules/variants/variants.watermark.ts';

const PASSWORD = 'correct horse battery';
const STUDIO = 'Harbour Light Studio';

let ctx: TestContext;
let owner: TestAccount;
let browser: Browser;
let base: string;
let photoId: string;
/** The large preview with the studio's name. */
let named: Buffer;

/** A pure red square with a transparent border: its colour is easy to find in a preview. */
const redLogo = (): Promise<Buffer> =>
  sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 230, g: 0, b: 0, alpha: 1 } } })
    .extend({ top: 8, bottom: 8, left: 8, right: 8, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();

async function sendLogo(data: Buffer, filename = 'logo.png', contentType = 'image/png') {
  const parts: Part[] = [
    { field: '_csrf', data: browser.token() ?? '' },
    { field: 'logo', filename, contentType, data },
  ];
  const body = multipart(parts);
  return ctx.app.inject({
    method: 'POST',
    url: '/dashboard/settings/studio/logo',
    remoteAddress: browser.address,
    headers: {
      cookie: browser.cookieHeader(),
      'content-type': body.contentType,
      origin: 'http://localhost',
      'sec-fetch-site': 'same-origin',
    },
    payload: body.body,
  });
}

const logoKey = async (): Promise<string | null> =>
  (
    await ctx.deps.db.kysely
      .selectFrom('accounts')
      .select('watermark_logo_key')
      .where('id', '=', owner.accountId)
      .executeTakeFirstOrThrow()
  ).watermark_logo_key;

async function storedKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of ctx.deps.storage.list('')) keys.push(o.key);
  return keys.sort();
}

/** The locked page asks for current previews; the job makes them; the large one is returned. */
async function currentPreview(): Promise<Buffer> {
  assert.equal((await visit(ctx, base)).statusCode, 200);
  await makePreviewsNow(ctx);
  const res = await visit(ctx, `${base}/large/${photoId}`);
  assert.equal(res.statusCode, 200);
  return res.rawPayload;
}

/** How many pixels are strongly red (the logo's colour). */
async function redPixels(image: Buffer): Promise<number> {
  const raw = await sharp(image).removeAlpha().raw().toBuffer();
  let n = 0;
  for (let i = 0; i < raw.length; i += 3) if (raw[i]! > 150 && raw[i + 1]! < 90 && raw[i + 2]! < 90) n += 1;
  return n;
}

before(async () => {
  ctx = await createTestContext({ GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
  owner = await createAccount(ctx, STUDIO);
  const g = await linkedGallery(ctx, owner, { status: 'active' });
  base = g.path;
  const [photo] = await uploaded(ctx, owner.key, g.listingId, [
    { filename: 'front.jpg', contentType: 'image/jpeg', data: await jpeg(240, 160) },
  ]);
  photoId = photo!.id;
  await makeVariantsNow(ctx);
  await issuedInvoice(ctx, owner.key, g.listingId, 10_000);
  named = await currentPreview();
  browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
  await browser.get('/dashboard/settings/studio');
});
after(() => ctx.close());

describe('the watermark logo', () => {
  let logoPreview: Buffer;
  let firstKey: string;

  test('refused: another type, an unreadable image, over 2 MB: 400 beside the field, nothing stored', async () => {
    const before = await storedKeys();
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==', 'base64');
    const cases: [Buffer, string, RegExp][] = [
      [pdf('not a logo'), 'logo.pdf', /must be a PNG, JPEG or WebP image/],
      [gif, 'logo.gif', /must be a PNG, JPEG or WebP image/],
      [(await redLogo()).subarray(0, 60), 'cut.png', /cannot be read as an image/],
      [Buffer.concat([await redLogo(), Buffer.alloc(2 * 1024 * 1024)]), 'big.png', /larger than 2 MB/],
    ];
    for (const [data, filename, words] of cases) {
      const res = await sendLogo(data, filename);
      assert.equal(res.statusCode, 400, `${filename}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, words, filename);
      assert.match(res.body, /id="f-logo-error"/, filename);
      assert.match(res.body, /aria-invalid="true"/, filename);
      await browser.get('/dashboard/settings/studio');
    }
    assert.equal(await logoKey(), null);
    await ctx.services.mediaCleanup.purgeDue();
    assert.deepEqual(await storedKeys(), before);
  });

  test('uploaded: shown on the page, and the previews are made again with it', async () => {
    const res = await sendLogo(await redLogo());
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard/settings/studio?notice=logo-saved#watermark');
    firstKey = (await logoKey())!;
    assert.ok(firstKey.startsWith(`${owner.accountId}/logo-png-`), firstKey);
    const page = await browser.get('/dashboard/settings/studio');
    assert.match(page.body, /Remove logo/);
    const src = /class="logo-preview"\s+src="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(src !== undefined, 'the page shows the logo');
    const image = await browser.get(src.replace(/&amp;/g, '&'));
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-type'], 'image/png');
    assert.deepEqual(image.rawPayload, await redLogo());

    // The previews made with the name are stale now: the locked page has them made again.
    assert.equal((await visit(ctx, base)).statusCode, 200);
    assert.equal((await visit(ctx, `${base}/large/${photoId}`)).statusCode, 503);
    logoPreview = await currentPreview();
    assert.notDeepEqual(logoPreview, named);
    const [withLogo, withName] = await Promise.all([redPixels(logoPreview), redPixels(named)]);
    assert.ok(withLogo > 500 && withLogo > withName * 2, `red pixels: ${withLogo} with the logo, ${withName} without`);
    const marks = await ctx.deps.db.kysely
      .selectFrom('media_variants')
      .select('mark')
      .where('media_id', '=', photoId)
      .where('name', 'in', ['thumb_wm', 'large_wm'])
      .execute();
    assert.deepEqual(
      marks.map((m) => m.mark),
      [markOf(STUDIO, firstKey), markOf(STUDIO, firstKey)],
    );
  });

  test('replaced: the old bytes are removed, the previews made again', async () => {
    await browser.get('/dashboard/settings/studio');
    const webp = await sharp(await redLogo())
      .webp()
      .toBuffer();
    const res = await sendLogo(webp, 'logo.webp', 'image/webp');
    assert.equal(res.statusCode, 303, res.body);
    const key = (await logoKey())!;
    assert.match(key, /\/logo-webp-/);
    await assert.rejects(ctx.deps.storage.get(firstKey).then((s) => s.toArray()));
    await currentPreview();
    firstKey = key;
  });

  test('removed: back to the studio name, the stored logo gone', async () => {
    await browser.get('/dashboard/settings/studio');
    const res = await browser.post('/dashboard/settings/studio/logo/delete', {});
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(await logoKey(), null);
    await assert.rejects(ctx.deps.storage.get(firstKey).then((s) => s.toArray()));
    assert.equal((await browser.get('/dashboard/settings/studio/logo')).statusCode, 404);
    const again = await currentPreview();
    assert.notDeepEqual(again, logoPreview);
    assert.ok((await redPixels(again)) <= (await redPixels(named)) + 10);
    const page = await browser.get('/dashboard/settings/studio');
    assert.doesNotMatch(page.body, /Remove logo/);
    assert.match(page.body, /now your studio name/);
  });
});
