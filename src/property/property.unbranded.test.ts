// The unbranded property page names no one through its files either (docs/api.md §25, issue 37
// §3): a document is listed under a neutral name (its caption, the kind its file name says, else
// "Document N"), never its file name; a video plays only as a rendition stripped of every tag
// (the web rendition, or a stripped copy of an original that needs none), never the original, which
// keeps the tags a camera or an editing tool wrote (title, artist, comment, the streams' handler
// names, chapters). Until that rendition is made the page shows the poster alone and `play` is 404.
// The branded page keeps the original's names and plays the original as before.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTestContext, type Response, type TestContext } from '../../test/support/test-app.ts';
import { jpeg, pdf } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow, storedKeys, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { patchMedia } from '../../test/support/gallery-order.ts';
import { visit } from '../../test/support/gallery.ts';
import { makeVideo, videoTags } from '../../test/support/videos.ts';
import { brandedAccount, brandNeedles, pathOf, publish, type PropertyPageJson } from '../../test/support/property.ts';
import type { TestAccount } from '../../test/support/test-app.ts';

const PUBLIC_URL = 'http://127.0.0.1:3000';
const MARK = 'BRANDSTUDIO';

/** What a studio's camera and editing tool leave in a video, everywhere a container keeps tags. */
const STAMPED = {
  tags: {
    title: `${MARK} Lantern Row tour`,
    artist: `${MARK} Films`,
    comment: `Shot and cut by ${MARK}, call 555 0100`,
    copyright: `(c) ${MARK}`,
    encoder: `${MARK} Exporter 2.1`,
  },
  streamTags: { handler_name: `${MARK} Media Handler`, title: `${MARK} stream` },
  chapter: `${MARK} intro`,
};

/** Every needle of the studio and its client, and the mark of its files. */
const needles = (): string[] => [...brandNeedles(), MARK.toLowerCase()];

function assertNamesNoOne(label: string, bytes: Buffer | string): void {
  const text = (typeof bytes === 'string' ? bytes : bytes.toString('latin1')).toLowerCase();
  for (const needle of needles()) assert.ok(!text.includes(needle), `${label} contains ${needle}`);
}

/** The whole response: its headers and every byte of its body. */
function assertResponseNamesNoOne(label: string, res: Response): void {
  assertNamesNoOne(`${label} headers`, JSON.stringify(res.headers));
  assertNamesNoOne(label, res.rawPayload);
}

/** Every same-site URL a page names (href, src, srcset, data-*, content). */
function urlsOf(page: string): string[] {
  const urls = [...page.matchAll(/\s(?:href|src|poster|data-[a-z-]+|content)="([^"]*)"/g)].map((m) => m[1]!);
  for (const m of page.matchAll(/\ssrcset="([^"]*)"/g)) {
    for (const part of m[1]!.split(',')) urls.push(part.trim().split(/\s+/)[0]!);
  }
  return urls
    .map((u) => u.replaceAll('&amp;', '&'))
    .map((u) => (u.startsWith(PUBLIC_URL) ? u.slice(PUBLIC_URL.length) : u))
    .filter((u) => u.startsWith('/'))
    .map((u) => u.split('#')[0]!);
}

/** The names a page lists its documents under, in order. */
const documentNames = (page: string): string[] =>
  [...page.matchAll(/<li class="file file--document">[\s\S]*?<span class="file__name">([^<]*)<\/span>/g)].map((m) =>
    m[1]!.trim(),
  );

/** Asserts a played file is a video whose tags name no one, and returns what a probe read of it. */
async function assertStrippedVideo(label: string, res: Response): Promise<void> {
  assert.equal(res.statusCode, 200, label);
  assert.equal(res.headers['content-type'], 'video/mp4', label);
  assertResponseNamesNoOne(label, res);
  const { tags, chapters } = await videoTags(res.rawPayload);
  assert.equal(chapters, 0, `${label}: chapters`);
  for (const block of tags) {
    for (const [key, value] of block) {
      assert.ok(!/^(title|artist|album_artist|author|comment|description|copyright|composer)$/i.test(key), `${label}: ${key}=${value}`); // prettier-ignore
      assert.ok(!/lavf|lavc|brandstudio/i.test(value), `${label}: ${key}=${value}`);
    }
  }
}

describe('the unbranded property page and its files', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let listingId: string;
  let photo: MediaJson;
  let asIs: MediaJson;
  let needsWeb: MediaJson;
  let plan: MediaJson;
  const originals = new Map<string, Buffer>();
  let branded: string;
  let unbranded: string;
  let unbrandedUrl: string;

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    owner = await brandedAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: owner.key,
      body: { address: '7 Lantern Row, Port Ellis', beds: 3, status: 'active' },
    });
    assert.equal(created.statusCode, 201, created.body);
    listingId = created.json<{ id: string }>().id;
    // An H.264/AAC MP4 with its index first plays as it is (no web rendition); MPEG-4 Part 2 needs one.
    const tour = await makeVideo('h264-faststart', { metadata: STAMPED });
    const drone = await makeVideo('mpeg4', { metadata: STAMPED });
    const media = await uploaded(ctx, owner.key, listingId, [
      { filename: `${MARK}-front.jpg`, contentType: 'image/jpeg', data: await jpeg(90, 60) },
      { filename: `${MARK}-tour.mp4`, contentType: 'video/mp4', data: tour },
      { filename: `${MARK}-drone.mp4`, contentType: 'video/mp4', data: drone },
      { filename: `${MARK}-floorplan.pdf`, contentType: 'application/pdf', data: pdf('plan') },
      { filename: `${MARK} notes.pdf`, contentType: 'application/pdf', data: pdf('notes') },
      { filename: `${MARK}-epc.pdf`, contentType: 'application/pdf', data: pdf('epc') },
    ]);
    [photo, asIs, needsWeb, plan] = media as [MediaJson, MediaJson, MediaJson, MediaJson];
    originals.set(asIs.id, tour).set(needsWeb.id, drone);
    const epc = media[5]!;
    const captioned = await patchMedia(ctx, owner.key, listingId, epc.id, { caption: 'Energy certificate' });
    assert.equal(captioned.statusCode, 200, captioned.body);
    const published = await publish(ctx, owner.key, listingId);
    assert.equal(published.statusCode, 200, published.body);
    const page = published.json<{ property_page: PropertyPageJson }>().property_page;
    branded = pathOf(page.url);
    unbranded = pathOf(page.unbranded_url);
    unbrandedUrl = page.unbranded_url;
  });
  after(() => ctx.close());

  test('the originals carry the studio: tags in the file, its streams and a chapter', async () => {
    for (const data of originals.values()) {
      assert.ok(data.includes(MARK), 'the test video has no mark to strip');
      const { tags, chapters } = await videoTags(data);
      const all = tags.flatMap((t) => [...t]).map(([k, v]) => `${k}=${v}`);
      for (const tag of ['title', 'artist', 'comment', 'handler_name']) {
        assert.ok(
          all.some((t) => t.startsWith(`${tag}=`) && t.includes(MARK)),
          `${tag}: ${all.join(', ')}`,
        );
      }
      assert.equal(chapters, 1);
    }
  });

  test('documents: neutral names on the unbranded page, the file names on the branded one', async () => {
    const page = await visit(ctx, unbranded);
    assert.equal(page.statusCode, 200);
    assert.deepEqual(documentNames(page.body), ['Floor plan', 'Document 2', 'Energy certificate']);
    assertResponseNamesNoOne(unbranded, page);
    // The branded page names the files as today (docs/api.md §25).
    assert.deepEqual(documentNames((await visit(ctx, branded)).body), [
      `${MARK}-floorplan.pdf`,
      `${MARK} notes.pdf`,
      'Energy certificate',
    ]);
    // No route of either page serves a document (neither offers originals).
    for (const base of [branded, unbranded]) {
      assert.equal((await visit(ctx, `${base}/media/${plan.id}/play`)).statusCode, 404);
    }
  });

  test('before any rendition: the unbranded page shows no player and plays nothing; the branded one plays the original', async () => {
    const page = (await visit(ctx, unbranded)).body;
    for (const m of [asIs, needsWeb]) {
      assert.ok(!page.includes(`/media/${m.id}/play`), `${m.filename}: a player on the unbranded page`);
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await visit(ctx, `${unbranded}/media/${m.id}/play`, { method });
        assert.equal(res.statusCode, 404, `${method} ${m.filename}`);
        assertResponseNamesNoOne(`${method} ${m.filename}`, res);
      }
    }
    const played = await visit(ctx, `${branded}/media/${asIs.id}/play`);
    assert.equal(played.statusCode, 200);
    assert.ok(played.rawPayload.equals(originals.get(asIs.id)!), 'the branded page plays the original as before');
  });

  test('once made: the unbranded page plays a stripped rendition of each video, never the original', async () => {
    await makeVariantsNow(ctx);
    const page = (await visit(ctx, unbranded)).body;
    for (const m of [asIs, needsWeb]) {
      assert.match(page, new RegExp(`<video[^>]+poster="${unbranded}/poster/${m.id}\\?v=[\\w-]{16}"[^>]+src="${unbranded}/media/${m.id}/play"`)); // prettier-ignore
      const played = await visit(ctx, `${unbranded}/media/${m.id}/play`);
      assert.ok(!played.rawPayload.equals(originals.get(m.id)!), `${m.filename}: the original`);
      await assertStrippedVideo(m.filename, played);
      const head = await visit(ctx, `${unbranded}/media/${m.id}/play`, { method: 'HEAD' });
      assert.equal(head.statusCode, 200);
      assert.equal(Number(head.headers['content-length']), played.rawPayload.length);
      const part = await visit(ctx, `${unbranded}/media/${m.id}/play`, { headers: { range: 'bytes=0-99' } });
      assert.equal(part.statusCode, 206);
      assert.ok(part.rawPayload.equals(played.rawPayload.subarray(0, 100)));
    }
    // The copy of the original that needed no rendition is the same pictures, not a new encode.
    const copy = await visit(ctx, `${unbranded}/media/${asIs.id}/play`);
    const original = originals.get(asIs.id)!;
    assert.ok(Math.abs(copy.rawPayload.length - original.length) < 4096, `${copy.rawPayload.length} vs ${original.length}`); // prettier-ignore
    // Made once, when the variants were: the same bytes at each request, with the same ETag.
    const again = await visit(ctx, `${unbranded}/media/${asIs.id}/play`);
    assert.equal(again.headers.etag, copy.headers.etag);
    assert.ok(again.rawPayload.equals(copy.rawPayload));
    // The branded page keeps today's behaviour: the original where it plays as it is, else the web rendition.
    assert.ok((await visit(ctx, `${branded}/media/${asIs.id}/play`)).rawPayload.equals(original));
    const web = await visit(ctx, `${branded}/media/${needsWeb.id}/play`);
    assert.ok(web.rawPayload.equals((await visit(ctx, `${unbranded}/media/${needsWeb.id}/play`)).rawPayload));
  });

  test('not a byte of any unbranded response names the studio, its files or its client', async () => {
    await makeVariantsNow(ctx);
    const seen = new Set<string>();
    const queue = [unbranded, `${unbranded}/embed`, `${unbranded}/photo/${photo.id}`];
    for (const m of [asIs, needsWeb]) queue.push(`${unbranded}/media/${m.id}/play`, `${unbranded}/poster/${m.id}`);
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await visit(ctx, url, { method });
        assert.equal(res.statusCode, 200, `${method} ${url}`);
        assertResponseNamesNoOne(`${method} ${url}`, res);
        if (method === 'GET' && String(res.headers['content-type']).startsWith('text/html')) {
          queue.push(...urlsOf(res.body).filter((u) => u.startsWith(unbranded) || u.startsWith('/g/assets/')));
        }
      }
    }
    assert.ok(seen.size > 10, `only ${seen.size} URLs`);
    const oembed = await call(ctx, 'GET', '/oembed', { query: { url: unbrandedUrl, format: 'json' } });
    assert.equal(oembed.statusCode, 200);
    assertResponseNamesNoOne('oembed', oembed);
    // The branded page does name the studio and its files (so the needles would have been found).
    const brandedPage = (await visit(ctx, branded)).body;
    assert.ok(brandedPage.includes(MARK) && brandedPage.includes('Zephyrquill'));
  });

  test('a video made before the stripped copy existed shows its poster alone until `lightbox doctor --fix` has it made', async () => {
    await makeVariantsNow(ctx);
    // As a video made by an older version: a poster, and no copy for the page.
    await ctx.deps.db.kysely
      .deleteFrom('media_variants')
      .where('media_id', '=', asIs.id)
      .where('name', '<>', 'poster')
      .execute();
    const page = (await visit(ctx, unbranded)).body;
    assert.ok(!page.includes(`/media/${asIs.id}/play`), 'a player for a video with no stripped rendition');
    assert.match(page, new RegExp(`<img[^>]+src="${unbranded}/poster/${asIs.id}\\?v=[\\w-]{16}"`));
    assert.equal((await visit(ctx, `${unbranded}/media/${asIs.id}/play`)).statusCode, 404);

    const report = await ctx.services.variants.check([]);
    assert.deepEqual(
      report.stalled.map((s) => s.id),
      [asIs.id],
      'a ready video with neither a web rendition nor a stripped copy is stalled',
    );
    assert.equal(await ctx.services.variants.repair(report), 1);
    await makeVariantsNow(ctx);
    await assertStrippedVideo('remade', await visit(ctx, `${unbranded}/media/${asIs.id}/play`));
    assert.deepEqual((await ctx.services.variants.check([])).stalled, []);
  });

  test("deleting a video removes its stripped copy's bytes with it", async () => {
    await makeVariantsNow(ctx);
    const key = await ctx.deps.db.kysely
      .selectFrom('media_variants')
      .select('storage_key')
      .where('media_id', '=', asIs.id)
      .where('name', '=', 'stripped')
      .executeTakeFirstOrThrow();
    assert.ok((await storedKeys(ctx)).includes(key.storage_key));
    const del = await call(ctx, 'DELETE', `/v1/listings/${listingId}/media/${asIs.id}`, { key: owner.key });
    assert.equal(del.statusCode, 204);
    await ctx.services.mediaCleanup.purgeDue();
    assert.ok(!(await storedKeys(ctx)).includes(key.storage_key));
  });
});
