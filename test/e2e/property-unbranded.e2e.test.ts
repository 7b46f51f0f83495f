// The unbranded property page's files in a real browser (docs/api.md §25, issue 37 §3), at phone
// and desktop widths: documents under neutral names, videos whose originals carry the studio's
// tags playing their stripped renditions (the web rendition of one, the stripped copy of one that
// needed none), a video with no such rendition yet shown as its poster alone. Every URL the page
// asked for is fetched again: no byte or header names the studio. axe-core finds no serious or
// critical violation; nothing is wider than the phone. Screenshots go to PROPERTY_SHOTS (default
// test-results/screenshots/property): unbranded-files-{phone,desktop}.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { call, createTestContext, type TestContext } from '../support/test-app.ts';
import { pdf } from '../support/media-fixtures.ts';
import { eventually, makeVariantsNow, uploaded, type MediaJson } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { makeVideo } from '../support/videos.ts';
import { BRAND, brandedAccount, publish, type PropertyPageJson } from '../support/property.ts';
import {
  assertAccessible,
  assertFitsPhone,
  inPage,
  launchChromium,
  SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const shots = process.env.PROPERTY_SHOTS ?? path.join(SHOTS, 'property');
const MARK = 'BRANDSTUDIO';
const STAMPED = {
  tags: { title: `${MARK} tour`, artist: `${MARK} Films`, comment: `Filmed by ${MARK}` },
  streamTags: { handler_name: `${MARK} Handler` },
  chapter: `${MARK} intro`,
};

describe('the unbranded property page and its files in a browser', { skip: skipWithoutChromium }, () => {
  let ctx: TestContext;
  let base: string;
  let browser: Browser;
  let page: PropertyPageJson;
  const playable: MediaJson[] = [];
  let stillOnly: MediaJson;
  const errors: string[] = [];

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    const me = await brandedAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: me.key,
      body: { address: '7 Lantern Row, Port Ellis', beds: 4, baths: 2.5, sqft: 2140, status: 'active' },
    });
    const listingId = created.json<{ id: string }>().id;
    const media = await uploaded(ctx, me.key, listingId, [
      ...(await Promise.all(
        [30, 150, 270].map(async (hue, i) => ({
          filename: `${MARK}-room-${i + 1}.jpg`,
          contentType: 'image/jpeg',
          data: await sceneJpeg(1600, 1067, hue),
        })),
      )),
      // Plays as it is (its stripped copy plays), needs a web rendition, and one left as an older version made it.
      { filename: `${MARK}-tour.mp4`, contentType: 'video/mp4', data: await makeVideo('h264-faststart', { width: 640, height: 360, metadata: STAMPED }) }, // prettier-ignore
      { filename: `${MARK}-drone.mp4`, contentType: 'video/mp4', data: await makeVideo('mpeg4', { width: 640, height: 360, metadata: STAMPED }) }, // prettier-ignore
      { filename: `${MARK}-garden.mp4`, contentType: 'video/mp4', data: await makeVideo('h264-faststart', { width: 640, height: 360, metadata: STAMPED }) }, // prettier-ignore
      { filename: `${MARK}-floorplan.pdf`, contentType: 'application/pdf', data: pdf('plan') },
      { filename: `${MARK} notes.pdf`, contentType: 'application/pdf', data: pdf('notes') },
    ]);
    const videos = media.filter((m) => m.kind === 'video');
    playable.push(videos[0]!, videos[1]!);
    stillOnly = videos[2]!;
    await makeVariantsNow(ctx);
    await ctx.deps.db.kysely
      .deleteFrom('media_variants')
      .where('media_id', '=', stillOnly.id)
      .where('name', '=', 'stripped')
      .execute();
    const res = await publish(ctx, me.key, listingId);
    assert.equal(res.statusCode, 200, res.body);
    page = res.json<{ property_page: PropertyPageJson }>().property_page;
    browser = await launchChromium();
    await mkdir(shots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  /** axe-core in the page (evaluated: the page's CSP allows no inline script). */

  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    test(`at ${size} width: neutral names, stripped videos that play, the poster alone, no byte naming the studio`, async () => {
      const context = await browser.newContext({
        viewport,
        ...(size === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      });
      try {
        const p = await context.newPage();
        watchConsole(p, errors);
        const asked = new Set<string>();
        p.on('request', (r) => {
          const url = r.url();
          if (!url.startsWith(`${base}/`)) errors.push(`a request to ${url}`);
          else asked.add(url);
        });
        const response = await p.goto(page.unbranded_url, { waitUntil: 'load' });
        assert.equal(response?.status(), 200);
        await p.evaluate('window.scrollTo(0, document.body.scrollHeight)');
        await p.waitForLoadState('networkidle');

        const text = await inPage(p, 'document.body.innerText');
        assert.ok(!text.toLowerCase().includes(MARK.toLowerCase()), 'the page shows a file name');
        assert.ok(!text.toLowerCase().includes(BRAND.studio.toLowerCase()), "the page shows the studio's name");
        const names = JSON.parse(
          await inPage(p, `JSON.stringify([...document.querySelectorAll('.file--document .file__name')].map((n) => n.textContent.trim()))`), // prettier-ignore
        ) as string[];
        assert.deepEqual(names, ['Floor plan', 'Document 2']);
        // Two players, and the video with no stripped rendition yet as its poster alone.
        assert.equal(await p.locator('video').count(), 2);
        assert.equal(await p.locator(`video[src$="/media/${stillOnly.id}/play"]`).count(), 0);
        const still = p.locator(`img.file__poster[src*="/poster/${stillOnly.id}"]`);
        assert.equal(await still.count(), 1);
        await still.scrollIntoViewIfNeeded();
        await eventually(async () => {
          const loaded = await inPage(p, `(() => { const i = document.querySelector('img.file__poster'); return i.complete && i.naturalWidth > 0; })()`); // prettier-ignore
          assert.equal(loaded, 'true', 'the poster did not load');
        });

        for (const m of playable) {
          const selector = `video[src$="/media/${m.id}/play"]`;
          await p.locator(selector).scrollIntoViewIfNeeded();
          await p.evaluate(`(() => { const v = document.querySelector('${selector}'); v.muted = true; return v.play(); })()`); // prettier-ignore
          await eventually(async () => {
            const state = JSON.parse(
              await inPage(p, `(() => { const v = document.querySelector('${selector}'); return JSON.stringify({ ready: v.readyState, time: v.currentTime, error: v.error && v.error.message, w: v.videoWidth }); })()`), // prettier-ignore
            ) as { ready: number; time: number; error: string | null; w: number };
            assert.equal(state.error, null);
            assert.ok(state.ready >= 2 && state.time > 0.2, `${m.filename} not playing: ${JSON.stringify(state)}`);
            assert.equal(state.w, 640);
          });
          await p.evaluate(`document.querySelector('${selector}').pause()`);
          await p.evaluate(`document.querySelector('${selector}').currentTime = 1`);
        }
        await assertAccessible(p, size);
        if (size === 'phone') await assertFitsPhone(p);
        await p.evaluate('window.scrollTo(0, 0)');
        await p.screenshot({ path: path.join(shots, `unbranded-files-${size}.png`), fullPage: true });

        // Every URL the page asked for, whole: not a byte or a header names the studio or its files.
        assert.ok(
          [...asked].some((u) => u.includes('/play')),
          'no video was asked for',
        );
        for (const url of asked) {
          const res = await fetch(url);
          const bytes = Buffer.from(await res.arrayBuffer())
            .toString('latin1')
            .toLowerCase();
          const headers = JSON.stringify([...res.headers]).toLowerCase();
          for (const needle of [MARK, BRAND.studio, 'zephyrquill'].map((s) => s.toLowerCase())) {
            assert.ok(!bytes.includes(needle) && !headers.includes(needle), `${url} names ${needle}`);
          }
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
});
