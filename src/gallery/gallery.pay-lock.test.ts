// Pay-to-unlock (docs/api.md §29): while a gallery has an open invoice with pay_to_unlock, every
// public URL of it (the client link, a share link, the branded and unbranded property pages) is a
// preview: thumb and large carry the studio's name, and nothing serves an original, a ZIP, any
// other variant, or an item of the listing kit (§32), whatever the method or range. A key-holder's /v1 reads are never locked. Paying
// or voiding lifts it on the next request, validators included.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { linkedGallery, visit } from '../../test/support/gallery.ts';
import { jpeg, pdf } from '../../test/support/media-fixtures.ts';
import { getContent, makeVariantsNow, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { issuedInvoice, makePreviewsNow, pay } from '../../test/support/pay-lock.ts';
import { buildKitNow } from '../../test/support/kit.ts';
import { KIT_ITEM_NAMES } from '../db/schema-kit.ts';
import { publish } from '../../test/support/property.ts';
import {
  call,
  createAccount,
  createTestContext,
  type Response,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

const STUDIO = 'Quayside Studio';
const NAMES = ['thumb', 'medium', 'large', 'mls', 'poster'] as const;

let ctx: TestContext;
let owner: TestAccount;
let listingId: string;
let photos: MediaJson[];
let doc: MediaJson;
/** Client link, share link, branded and unbranded property page. */
let bases: { client: string; share: string; branded: string; unbranded: string };
/** Every byte a locked page must not serve: the originals, and the photos' unlocked variants. */
const secrets: { label: string; bytes: Buffer }[] = [];
/** The unlocked thumb and large of each photo, by `name id`. */
const unlocked = new Map<string, Buffer>();

/** 48-byte pieces from the middle of a secret: a response holding one holds its bytes. */
const piecesOf = (bytes: Buffer): Buffer[] =>
  [0.3, 0.5, 0.7].map((at) => {
    const start = Math.min(Math.max(0, Math.floor(bytes.length * at)), Math.max(0, bytes.length - 48));
    return bytes.subarray(start, start + 48);
  });

function assertNoSecret(res: Response, label: string): void {
  const body = res.rawPayload;
  for (const secret of secrets) {
    for (const piece of piecesOf(secret.bytes)) {
      assert.equal(body.indexOf(piece), -1, `${label} serves bytes of ${secret.label}`);
    }
  }
}

before(async () => {
  ctx = await createTestContext({ GALLERY_RATE_LIMIT_PER_MINUTE: '100000', KIT_SECONDS_PER_PHOTO: '1' });
  owner = await createAccount(ctx, STUDIO);
  const g = await linkedGallery(ctx, owner, { status: 'active' });
  listingId = g.listingId;
  const media = await uploaded(ctx, owner.key, listingId, [
    { filename: 'front.jpg', contentType: 'image/jpeg', data: await jpeg(240, 160) },
    { filename: 'garden.jpg', contentType: 'image/jpeg', data: await jpeg(160, 200) },
    { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf('floor plan of the house') },
  ]);
  photos = media.slice(0, 2);
  doc = media[2]!;
  await makeVariantsNow(ctx);
  const share = await call(ctx, 'POST', `/v1/listings/${listingId}/share_links`, {
    key: owner.key,
    body: { label: 'Agent' },
  });
  assert.equal(share.statusCode, 201, share.body);
  const published = await publish(ctx, owner.key, listingId);
  assert.equal(published.statusCode, 200, published.body);
  const page = published.json<{ property_page: { url: string; unbranded_url: string } }>().property_page;
  bases = {
    client: g.path,
    share: new URL(share.json<{ url: string }>().url).pathname,
    branded: new URL(page.url).pathname,
    unbranded: new URL(page.unbranded_url).pathname,
  };
  // A favorite, so that the favorites ZIP exists while unlocked.
  const marked = await ctx.app.inject({
    method: 'POST',
    url: `${bases.client}/favorites/${photos[0]!.id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'on=1',
  });
  assert.equal(marked.statusCode, 303, marked.body);
  for (const m of media) {
    const res = await getContent(ctx, owner.key, m);
    assert.equal(res.statusCode, 200);
    secrets.push({ label: `the original of ${m.id}`, bytes: res.rawPayload });
  }
  for (const p of photos) {
    for (const name of ['thumb', 'medium', 'large', 'mls']) {
      const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${p.id}/variants/${name}`, {
        key: owner.key,
      });
      if (res.statusCode !== 200) continue;
      secrets.push({ label: `the unlocked ${name} of ${p.id}`, bytes: res.rawPayload });
      if (name === 'thumb' || name === 'large') unlocked.set(`${name} ${p.id}`, res.rawPayload);
    }
  }
  // Unlocked, the ZIP serves the originals: the walk below would catch one.
  const zip = await visit(ctx, `${bases.client}/download.zip`);
  assert.equal(zip.statusCode, 200);
  assert.throws(() => assertNoSecret(zip, 'the unlocked ZIP'));
  // docs/api.md §32: the listing kit, built: every item is a secret while locked, and unlocked the
  // property pages serve them (the walk below would catch one).
  const kit = await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: owner.key });
  assert.equal(kit.statusCode, 202, kit.body);
  await buildKitNow(ctx);
  const built = await ctx.deps.db.kysely.selectFrom('listing_kits').select(['status', 'error']).executeTakeFirst();
  assert.equal(built?.status, 'ready', built?.error ?? '');
  for (const name of KIT_ITEM_NAMES) {
    const res = await call(ctx, 'GET', `/v1/listings/${listingId}/kit/${name}`, { key: owner.key });
    assert.equal(res.statusCode, 200, name);
    secrets.push({ label: `the kit's ${name}`, bytes: res.rawPayload });
  }
  const flyer = await visit(ctx, `${bases.branded}/kit/flyer`);
  assert.equal(flyer.statusCode, 200);
  assert.throws(() => assertNoSecret(flyer, 'the unlocked flyer'));
  assert.equal((await visit(ctx, `${bases.unbranded}/kit/slideshow_unbranded`)).statusCode, 200);
});
after(() => ctx.close());

/** Every URL a locked gallery's public pages could serve, with what each must answer. */
function everyUrl(): { url: string; expect: 'page' | 'preview' | 'gone' }[] {
  const urls: { url: string; expect: 'page' | 'preview' | 'gone' }[] = [];
  for (const [kind, base] of Object.entries(bases)) {
    const previews = kind !== 'unbranded';
    urls.push({ url: base, expect: 'page' });
    if (kind === 'branded' || kind === 'unbranded') {
      urls.push({ url: `${base}/embed`, expect: 'page' });
      for (const name of KIT_ITEM_NAMES) urls.push({ url: `${base}/kit/${name}`, expect: 'gone' });
    }
    urls.push({ url: `${base}/cover.jpg`, expect: previews ? 'preview' : 'gone' });
    urls.push({ url: `${base}/download.zip`, expect: 'gone' }, { url: `${base}/favorites.zip`, expect: 'gone' });
    for (const m of [...photos, doc]) {
      if (m.kind === 'photo') urls.push({ url: `${base}/photo/${m.id}`, expect: previews ? 'page' : 'gone' });
      for (const name of NAMES) {
        const shown = previews && m.kind === 'photo' && (name === 'thumb' || name === 'large');
        urls.push({ url: `${base}/${name}/${m.id}`, expect: shown ? 'preview' : 'gone' });
      }
      urls.push({ url: `${base}/media/${m.id}/download`, expect: 'gone' });
      urls.push({ url: `${base}/media/${m.id}/play`, expect: 'gone' });
    }
  }
  return urls;
}

const REQUESTS: { label: string; method: 'GET' | 'HEAD'; headers: Record<string, string> }[] = [
  { label: 'GET', method: 'GET', headers: {} },
  { label: 'HEAD', method: 'HEAD', headers: {} },
  { label: 'GET Range 0-', method: 'GET', headers: { range: 'bytes=0-' } },
  { label: 'GET Range 100-199', method: 'GET', headers: { range: 'bytes=100-199' } },
  { label: 'GET Range -64', method: 'GET', headers: { range: 'bytes=-64' } },
];

describe('a gallery with an open pay-to-unlock invoice', () => {
  let invoice: { id: string; number: string | null; total: number };
  /** The locked large's ETag of the first photo at the client link. */
  let lockedTag: string;

  test('is locked at once: previews not made yet answer 503 with Retry-After, never the photo', async () => {
    invoice = await issuedInvoice(ctx, owner.key, listingId, 125_000);
    assert.equal(invoice.number, 'INV-0001');
    const res = await visit(ctx, `${bases.client}/large/${photos[0]!.id}`);
    assert.equal(res.statusCode, 503);
    assert.equal(res.headers['retry-after'], '5');
    assertNoSecret(res, 'a preview being prepared');
    const page = await visit(ctx, bases.client);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Preview coming soon/);
    assertNoSecret(page, 'the page while previews are made');
  });

  test('every public URL, with GET, HEAD and ranges, serves a preview or nothing, never an original byte', async () => {
    await makePreviewsNow(ctx);
    for (const { url, expect } of everyUrl()) {
      for (const r of REQUESTS) {
        const label = `${r.label} ${url}`;
        const res = await visit(ctx, url, { method: r.method, headers: r.headers });
        assertNoSecret(res, label);
        if (expect === 'gone') {
          assert.equal(res.statusCode, 404, `${label}: ${res.statusCode}`);
          continue;
        }
        if (expect === 'page') {
          assert.equal(res.statusCode, 200, `${label}: ${res.statusCode}`);
          assert.match(String(res.headers['content-type']), /^text\/html/, label);
          assert.doesNotMatch(res.body, /download\.zip|\/download"|favorites\.zip|\/play"|\/kit\//, label);
          continue;
        }
        assert.ok(res.statusCode === 200 || res.statusCode === 206, `${label}: ${res.statusCode}`);
        assert.match(String(res.headers['content-type']), /^image\//, label);
      }
    }
  });

  test('the previews are the photos with the mark: same size, other bytes', async () => {
    for (const p of photos) {
      for (const name of ['thumb', 'large'] as const) {
        const res = await visit(ctx, `${bases.client}/${name}/${p.id}`);
        assert.equal(res.statusCode, 200);
        const before = unlocked.get(`${name} ${p.id}`)!;
        assert.notDeepEqual(res.rawPayload, before, `the ${name} of ${p.id} is not marked`);
        const [a, b] = await Promise.all([sharp(res.rawPayload).metadata(), sharp(before).metadata()]);
        assert.deepEqual([a.width, a.height], [b.width, b.height]);
        // The mark changes many pixels, not a few.
        const [pa, pb] = await Promise.all([
          sharp(res.rawPayload).removeAlpha().raw().toBuffer(),
          sharp(before).removeAlpha().raw().toBuffer(),
        ]);
        let changed = 0;
        for (let i = 0; i < pa.length; i += 1) if (Math.abs(pa[i]! - pb[i]!) > 24) changed += 1;
        assert.ok(changed > pa.length / 50, `the ${name} of ${p.id}: only ${changed} of ${pa.length} values changed`);
      }
      // Made once: asked again, the same stored bytes.
      const again = await visit(ctx, `${bases.share}/large/${p.id}`);
      assert.deepEqual(again.rawPayload, (await visit(ctx, `${bases.client}/large/${p.id}`)).rawPayload);
    }
    lockedTag = String((await visit(ctx, `${bases.client}/large/${photos[0]!.id}`)).headers.etag);
  });

  test('the client page shows the amount due, the number, the PDF and how to pay; property pages only say preview', async () => {
    for (const base of [bases.client, bases.share]) {
      const page = await visit(ctx, base);
      assert.match(page.body, /USD 1,250\.00 due/);
      assert.match(page.body, /INV-0001/);
      assert.match(page.body, new RegExp(`href="${base}/invoice\\.pdf"`));
      assert.match(page.body, /How to pay/);
      assert.match(page.body, new RegExp(`mailto:${owner.email.replace(/[.+]/g, '\\$&')}`));
      const file = await visit(ctx, `${base}/invoice.pdf`);
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'application/pdf');
      assert.equal(file.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    }
    for (const base of [bases.branded, bases.unbranded]) {
      const page = await visit(ctx, base);
      assert.match(page.body, /Preview: these photos are marked/);
      assert.doesNotMatch(page.body, /INV-0001|invoice\.pdf|due/);
      assert.equal((await visit(ctx, `${base}/invoice.pdf`)).statusCode, 404);
    }
  });

  test("a key-holder's /v1 reads are the photos themselves", async () => {
    for (const p of photos) {
      const res = await call(ctx, 'GET', `/v1/listings/${listingId}/media/${p.id}/variants/large`, { key: owner.key });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.rawPayload, unlocked.get(`large ${p.id}`));
    }
    const original = await getContent(ctx, owner.key, photos[0]!);
    assert.equal(original.statusCode, 200);
  });

  test('a part payment keeps it locked; the rest lifts it at once, validators included', async () => {
    await pay(ctx, owner.key, invoice.id, 25_000);
    const part = await visit(ctx, bases.client);
    assert.match(part.body, /USD 1,000\.00 due/);
    assert.equal((await visit(ctx, `${bases.client}/download.zip`)).statusCode, 404);

    await pay(ctx, owner.key, invoice.id, 100_000);
    const page = await visit(ctx, bases.client);
    assert.doesNotMatch(page.body, /due|invoice\.pdf/);
    assert.match(page.body, /download\.zip/);
    const url = `${bases.client}/large/${photos[0]!.id}`;
    const res = await visit(ctx, url, { headers: { 'if-none-match': lockedTag } });
    assert.equal(res.statusCode, 200, 'a preview validator must not answer 304 for the photo');
    assert.deepEqual(res.rawPayload, unlocked.get(`large ${photos[0]!.id}`));
    assert.equal((await visit(ctx, `${bases.client}/invoice.pdf`)).statusCode, 404);
    const download = await visit(ctx, `${bases.client}/media/${photos[0]!.id}/download`);
    assert.equal(download.statusCode, 200);
    assert.deepEqual(download.rawPayload, secrets[0]!.bytes);
    assert.equal((await visit(ctx, `${bases.unbranded}/large/${photos[0]!.id}`)).statusCode, 200);
    assert.equal((await visit(ctx, `${bases.branded}/kit/flyer`)).statusCode, 200);
    assert.match((await visit(ctx, bases.branded)).body, /\/kit\/flyer"/);
  });

  test('a void lifts it too; an invoice without pay_to_unlock never locks', async () => {
    const second = await issuedInvoice(ctx, owner.key, listingId, 5_000);
    // Previews already made carry the same mark: served at once.
    const locked = await visit(ctx, `${bases.share}/large/${photos[1]!.id}`);
    assert.equal(locked.statusCode, 200);
    assert.notDeepEqual(locked.rawPayload, unlocked.get(`large ${photos[1]!.id}`));
    assert.equal((await visit(ctx, `${bases.share}/download.zip`)).statusCode, 404);
    const voided = await call(ctx, 'POST', `/v1/invoices/${second.id}/void`, { key: owner.key });
    assert.equal(voided.statusCode, 200, voided.body);
    const open = await visit(ctx, `${bases.share}/large/${photos[1]!.id}`, {
      headers: { 'if-none-match': String(locked.headers.etag) },
    });
    assert.equal(open.statusCode, 200, `${String(locked.headers.etag)} ${String(open.headers.etag)}`);
    assert.deepEqual(open.rawPayload, unlocked.get(`large ${photos[1]!.id}`));
    assert.equal((await visit(ctx, `${bases.share}/download.zip`)).statusCode, 200);

    await issuedInvoice(ctx, owner.key, listingId, 5_000, false);
    assert.equal((await visit(ctx, `${bases.client}/download.zip`)).statusCode, 200);
  });

  test('a photo deleted takes its previews with it', async () => {
    const before = await ctx.deps.db.kysely
      .selectFrom('media_variants')
      .select(['name', 'storage_key'])
      .where('media_id', '=', photos[1]!.id)
      .where('name', 'in', ['thumb_wm', 'large_wm'])
      .execute();
    assert.equal(before.length, 2);
    const res = await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${photos[1]!.id}`, { key: owner.key });
    assert.equal(res.statusCode, 204, res.body);
    await ctx.services.mediaCleanup.purgeDue({ info: () => undefined, warn: () => undefined, error: () => undefined });
    for (const row of before) {
      await assert.rejects(ctx.deps.storage.get(row.storage_key).then((s) => s.toArray()));
    }
  });
});
