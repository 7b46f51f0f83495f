// Virtual staging on the property pages in a real browser (docs/api.md §31): a staged photo beside
// its original ("Before virtual staging"), at phone and desktop widths, branded and unbranded, with
// and without JavaScript. Every image loads; the label is in the staged photo's pixels (its large
// variant is the one the viewer shows); with JavaScript the viewer opens the staged photo and steps
// to the original; without it the original's link opens its own page. The grid has no empty cell (on
// a wide screen the photo after the pair moves up beside the one alone before it). axe-core finds no
// serious or critical violation; nothing is wider than the phone. Screenshots go to PROPERTY_SHOTS (default
// test-results/screenshots/property): staging-{branded,unbranded}-{phone,desktop}-{js,nojs}.png
// and staging-{phone,desktop}-viewer.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { call, createTestContext, type TestContext } from '../support/test-app.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../support/media-helpers.ts';
import { patchMedia } from '../support/gallery-order.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { brandedAccount, publish, type PropertyPageJson } from '../support/property.ts';
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

describe('a staged photo beside its original in a browser', { skip: skipWithoutChromium }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let pages: PropertyPageJson;
  let photos: MediaJson[];
  const errors: string[] = [];

  before(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    const me = await brandedAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: me.key,
      body: { address: '7 Lantern Row, Port Ellis', beds: 4, baths: 2.5, sqft: 2140, status: 'active' },
    });
    const listingId = created.json<{ id: string }>().id;
    photos = await uploaded(
      ctx,
      me.key,
      listingId,
      await Promise.all(
        [30, 150, 210, 270].map(async (hue, i) => ({
          filename: `room-${i + 1}.jpg`,
          contentType: 'image/jpeg',
          data: await sceneJpeg(1600, 1067, hue),
        })),
      ),
    );
    // The third photo is the second one staged.
    const res = await patchMedia(ctx, me.key, listingId, photos[2]!.id, {
      virtually_staged: true,
      original_media_id: photos[1]!.id,
      caption: 'Living room',
    });
    assert.equal(res.statusCode, 200, res.body);
    await patchMedia(ctx, me.key, listingId, photos[1]!.id, { caption: 'Empty living room' });
    await makeVariantsNow(ctx);
    const published = await publish(ctx, me.key, listingId);
    assert.equal(published.statusCode, 200, published.body);
    pages = published.json<{ property_page: PropertyPageJson }>().property_page;
    browser = await launchChromium();
    await mkdir(shots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    for (const js of [true, false]) {
      test(`at ${size} width, JavaScript ${js ? 'on' : 'off'}: the pair, its alt texts, the viewer or the photo pages`, async () => {
        const context = await browser.newContext({
          viewport,
          javaScriptEnabled: js,
          ...(size === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
        });
        try {
          for (const [name, url] of [
            ['branded', pages.url],
            ['unbranded', pages.unbranded_url],
          ] as const) {
            const p = await context.newPage();
            watchConsole(p, errors);
            const response = await p.goto(url, { waitUntil: 'load' });
            assert.equal(response?.status(), 200);
            await p.evaluate('window.scrollTo(0, document.body.scrollHeight)');
            await p.waitForLoadState('networkidle');
            await p.evaluate('Promise.all([...document.images].map((i) => i.decode().catch(() => undefined)))');
            const broken = await inPage(
              p,
              `JSON.stringify([...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src))`,
            );
            assert.equal(broken, '[]', `${name}: images that did not load`);
            // The grid's links: the staged photo and then its original, once each; the fourth photo moved up
            // beside the first, so the pair starts a row and leaves no cell empty.
            const shown = JSON.parse(
              await inPage(p, `JSON.stringify([...document.querySelectorAll('#photo-grid a')].map((a) => a.href.split('/').pop()))`), // prettier-ignore
            ) as string[];
            assert.deepEqual(shown, [photos[0]!.id, photos[3]!.id, photos[2]!.id, photos[1]!.id], name);
            const alts = JSON.parse(
              await inPage(p, `JSON.stringify([...document.querySelectorAll('.pair img')].map((i) => i.alt))`),
            ) as string[];
            assert.deepEqual(alts, ['Living room (virtually staged)', 'Empty living room, before virtual staging']);
            const captions = await inPage(p, `[...document.querySelectorAll('.pair .staged__label')].map((f) => f.textContent.trim()).join('|')`); // prettier-ignore
            assert.equal(captions, 'Virtually staged|Before virtual staging');
            // Beside it on a wide screen, above it on a phone.
            const boxes = JSON.parse(
              await inPage(p, `JSON.stringify([...document.querySelectorAll('.pair__item')].map((f) => { const r = f.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top)]; }))`), // prettier-ignore
            ) as [number, number][];
            if (size === 'desktop') assert.equal(boxes[0]![1], boxes[1]![1], 'side by side');
            else assert.ok(boxes[1]![1] > boxes[0]![1], 'one above the other');
            // No empty cell in the grid: every row but the last is filled edge to edge; on a wide screen
            // the first and fourth photos share a row, and the pair has the next.
            const rows = JSON.parse(
              await inPage(p, `(() => { const g = document.getElementById('photo-grid').getBoundingClientRect(); const rows = new Map(); for (const li of document.querySelectorAll('#photo-grid > li')) { const r = li.getBoundingClientRect(); const top = Math.round(r.top); if (!rows.has(top)) rows.set(top, []); rows.get(top).push([Math.round(r.left - g.left), Math.round(g.right - r.right)]); } return JSON.stringify([...rows.values()]); })()`), // prettier-ignore
            ) as [number, number][][];
            for (const row of rows.slice(0, -1)) {
              assert.ok(
                row[0]![0] <= 1 && row.at(-1)![1] <= 1,
                `${name}: a row with an empty cell: ${JSON.stringify(row)}`,
              );
            }
            if (size === 'desktop') assert.deepEqual(rows.map((r) => r.length), [2, 1], name); // prettier-ignore
            // axe-core runs as the page's script: with JavaScript on (the markup is the same without).
            if (js) await assertAccessible(p, `${name}-${size}`);
            if (size === 'phone') await assertFitsPhone(p);
            await p.locator('.tile--pair').scrollIntoViewIfNeeded();
            await p.screenshot({ path: path.join(shots, `staging-${name}-${size}-${js ? 'js' : 'nojs'}.png`), fullPage: true }); // prettier-ignore
            if (js && name === 'branded') {
              // The viewer opens the staged photo, and the next slide is its original.
              await p.locator('.pair a').first().click();
              await p.locator('.pswp--open').waitFor({ timeout: 10_000 });
              await p.waitForTimeout(400);
              await p.screenshot({ path: path.join(shots, `staging-${size}-viewer.png`) });
              const current = await inPage(p, `document.querySelector('.pswp__item:not([aria-hidden="true"]) img.pswp__img')?.src || ''`); // prettier-ignore
              assert.ok(current.includes(photos[2]!.id), current);
              await p.keyboard.press('ArrowRight');
              await p.waitForTimeout(300);
              const next = await inPage(p, `document.querySelector('.pswp__item:not([aria-hidden="true"]) img.pswp__img')?.src || ''`); // prettier-ignore
              assert.ok(next.includes(photos[1]!.id), next);
              await p.keyboard.press('Escape');
              await p.locator('.pswp--open').waitFor({ state: 'detached', timeout: 10_000 });
            }
            if (!js && name === 'unbranded') {
              await p.locator('.pair a').nth(1).click();
              await p.waitForLoadState('load');
              assert.ok(p.url().endsWith(`/photo/${photos[1]!.id}`), p.url());
            }
            await p.close();
          }
          assert.deepEqual(errors, []);
        } finally {
          await context.close();
        }
      });
    }
  }
});
