// The listing kit (docs/api.md §32) in a real browser: the kit panel on a gallery's dashboard page
// with a ready kit (every social image drawn, a video's length read through the dashboard's route),
// Rebuild clicked; the flyer's paper on Settings > Studio; and the property pages' kit sections,
// branded (the flyer, the videos, the social images) and unbranded (its slideshow alone), their
// images drawn and the slideshow playable. axe-core finds no serious or critical violation, nothing
// is wider than a phone, no request leaves the site, no console error. Screenshots at 1280 and
// 390 px in test-results/screenshots/kit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { buildKitNow } from '../support/kit.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { publish, type PropertyPageJson } from '../support/property.ts';
import {
  assertAccessible,
  assertFitsPhone,
  inPage,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'kit');
const SIZES = [
  ['1280', { width: 1280, height: 900 }],
  ['390', { width: 390, height: 844 }],
] as const;

describe('the listing kit in a browser', { skip: skipWithoutChromium }, () => {
  let ctx: TestContext;
  let base: string;
  let browser: Browser;
  let owner: TestAccount;
  let listingId: string;
  let pages: PropertyPageJson;
  const errors: string[] = [];

  async function open(viewport: { width: number; height: number }, signIn: boolean): Promise<Page> {
    const phone = viewport.width < 500;
    const context = await browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) });
    const p = await context.newPage();
    watchConsole(p, errors);
    p.on('request', (r) => {
      if (!r.url().startsWith(`${base}/`) && !/^(about|blob|data):/.test(r.url()))
        errors.push(`a request to ${r.url()}`);
    });
    if (signIn) {
      await p.goto(`${base}/dashboard/sign-in`);
      await p.getByLabel('Email').fill(owner.email);
      await p.getByLabel('Password').fill('correct horse battery');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.waitForURL(`${base}/dashboard`);
    }
    return p;
  }

  /** Waits for the images in `selector` to load or fail (no polling function: the CSP forbids eval). */
  const drawn = (p: Page, selector: string): Promise<string> =>
    inPage(p, `Promise.all([...document.querySelectorAll(${JSON.stringify(selector)})].map((i) => i.complete ? null : new Promise((done) => { i.addEventListener('load', done); i.addEventListener('error', done); }))).then(() => 'drawn')`); // prettier-ignore

  /** How many of the images in `selector` have not been drawn. */
  const undrawn = (p: Page, selector: string): Promise<string> =>
    inPage(p, `[...document.querySelectorAll(${JSON.stringify(selector)})].filter((i) => !(i.complete && i.naturalWidth > 0)).length`); // prettier-ignore

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({
      PUBLIC_URL: base,
      ANALYSIS: 'off',
      KIT_SECONDS_PER_PHOTO: '2',
      GALLERY_RATE_LIMIT_PER_MINUTE: '100000',
    });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Photography');
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: owner.key,
      body: {
        address: '12 Quayside Lane, Port Ellis',
        beds: 3,
        baths: 2,
        sqft: 1850,
        description: 'Light-filled family home by the water, with a walled garden.',
        status: 'active',
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    listingId = created.json<{ id: string }>().id;
    await uploaded(ctx, owner.key, listingId, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1600, 1067, 30) },
      { filename: 'kitchen.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1600, 1067, 150) },
      { filename: 'garden.jpg', contentType: 'image/jpeg', data: await sceneJpeg(1600, 1067, 270) },
    ]);
    await makeVariantsNow(ctx);
    const published = await publish(ctx, owner.key, listingId);
    assert.equal(published.statusCode, 200, published.body);
    pages = published.json<{ property_page: PropertyPageJson }>().property_page;
    assert.equal((await call(ctx, 'POST', `/v1/listings/${listingId}/kit`, { key: owner.key })).statusCode, 202);
    await buildKitNow(ctx);
    const kit = await call(ctx, 'GET', `/v1/listings/${listingId}/kit`, { key: owner.key });
    assert.equal(kit.json<{ status: string }>().status, 'ready');
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const [width, viewport] of SIZES) {
    test(`the kit panel with a ready kit at ${width} px`, async () => {
      const p = await open(viewport, true);
      await p.goto(`${base}/dashboard/galleries/${listingId}#kit`);
      const panel = p.locator('#kit');
      await panel.scrollIntoViewIfNeeded();
      assert.match(await panel.innerText(), /Ready/);
      await drawn(p, '#kit img');
      assert.equal(await undrawn(p, '#kit img'), '0');
      // The reel's length, read by the browser through the dashboard's route.
      const seconds = await p.locator('#kit video.kit-video-tall').evaluate(
        (v) =>
          new Promise<number>((resolve) => {
            if (v.readyState >= 1) resolve(v.duration);
            v.addEventListener('loadedmetadata', () => resolve(v.duration), { once: true });
            v.addEventListener('error', () => resolve(-1), { once: true });
          }),
      );
      assert.ok(seconds > 1, `the reel plays: ${seconds} s`);
      await assertAccessible(p, `the kit panel at ${width}`);
      if (viewport.width < 500) await assertFitsPhone(p);
      await panel.screenshot({ path: path.join(SHOTS, `dashboard-kit-${width}.png`) });
      await p.context().close();
    });
  }

  test("Settings > Studio's flyer paper, saved", async () => {
    const p = await open(SIZES[0][1], true);
    await p.goto(`${base}/dashboard/settings/studio#paper`);
    await p.getByLabel(/A4/).check();
    await p.getByRole('button', { name: 'Save paper' }).click();
    await p.waitForURL(/notice=paper-saved/);
    assert.equal(await p.getByLabel(/A4/).isChecked(), true);
    await assertAccessible(p, 'studio settings with the paper');
    await p.locator('#paper').screenshot({ path: path.join(SHOTS, 'settings-paper-1280.png') });
    await p.context().close();
  });

  for (const [width, viewport] of SIZES) {
    test(`the property pages' kit sections at ${width} px`, async () => {
      const p = await open(viewport, false);
      await p.goto(pages.url, { waitUntil: 'load' });
      const section = p.locator('section.kit');
      await section.scrollIntoViewIfNeeded();
      assert.match(await section.innerText(), /Flyer[\s\S]*Download/);
      await drawn(p, 'section.kit img');
      assert.equal(await undrawn(p, 'section.kit img'), '0');
      await assertAccessible(p, `the branded page at ${width}`);
      if (viewport.width < 500) await assertFitsPhone(p);
      await section.screenshot({ path: path.join(SHOTS, `property-kit-${width}.png`) });

      await p.goto(pages.unbranded_url, { waitUntil: 'load' });
      const plain = p.locator('section.kit');
      await plain.scrollIntoViewIfNeeded();
      assert.equal(await p.locator('section.kit a[download]').count(), 1);
      const seconds = await p.locator('section.kit video').evaluate(
        (v) =>
          new Promise<number>((resolve) => {
            v.addEventListener('loadedmetadata', () => resolve(v.duration), { once: true });
            v.addEventListener('error', () => resolve(-1), { once: true });
            v.preload = 'metadata';
            v.load();
          }),
      );
      assert.ok(seconds > 1, `the unbranded slideshow plays: ${seconds} s`);
      await assertAccessible(p, `the unbranded page at ${width}`);
      if (viewport.width < 500) await assertFitsPhone(p);
      await plain.screenshot({ path: path.join(SHOTS, `property-unbranded-kit-${width}.png`) });
      await p.context().close();
    });
  }

  test('Rebuild, clicked: the kit builds again, and the panel says so', async () => {
    const p = await open(SIZES[0][1], true);
    await p.goto(`${base}/dashboard/galleries/${listingId}#kit`);
    await p.locator('#kit').getByRole('button', { name: 'Rebuild' }).click();
    await p.waitForURL(/notice=kit-building/);
    assert.match(await p.locator('#kit').innerText(), /Building/);
    await assertAccessible(p, 'the kit panel building');
    await p.context().close();
    assert.deepEqual(errors, []);
  });
});
