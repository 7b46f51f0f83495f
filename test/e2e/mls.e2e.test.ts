// MLS rules in the dashboard (docs/api.md §31) in a real browser (Debian's chromium through
// playwright-core, the app on a free port) at 1280 and 390 px: the owner adds a profile under
// Settings (a refused form shows each message beside its field), chooses it on a gallery's page,
// reads the compliance panel (each issue, its fix or what to do, a link that scrolls to the
// photo in the grid) and sees the badge in the gallery list. Every page is checked by axe-core
// (no serious or critical violation), fits the phone and logs no console error.
// Screenshots: test-results/screenshots/mls/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../support/media-helpers.ts';
import { writeAnalysis } from '../support/mls.ts';
import { sceneJpeg } from '../support/photos.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  checkPage as checkPageIn,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  signedIn,
  skipWithoutChromium,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'mls');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let galleryId = '';
let photos: MediaJson[] = [];
const contexts: BrowserContext[] = [];
const consoleErrors: string[] = [];

const checkPage = (p: Page, name: string, phone: boolean): Promise<void> => checkPageIn(p, SHOTS, name, { phone });

const open = (viewport: { width: number; height: number }): Promise<Page> =>
  signedIn({ browser, base, contexts, consoleErrors }, viewport, { email: owner.email, password: PASSWORD });

describe('MLS profiles and compliance in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Photography');
    const listing = await ctx.services.listings.create(owner.accountId, {
      address: '12 Quay Street, Harbourside',
      status: 'active',
    });
    galleryId = listing.id;
    await ctx.services.listings.create(owner.accountId, { address: '3 Orchard Close', status: 'draft' });
    photos = await uploaded(
      ctx,
      owner.key,
      galleryId,
      await Promise.all(
        (
          [
            ['kitchen.jpg', 1400, 933, 30],
            ['front.jpg', 1400, 933, 200],
            ['sign.jpg', 1400, 933, 90],
            ['hallway.jpg', 560, 373, 150],
            ['living-staged.jpg', 1400, 933, 260],
            ['garden.jpg', 2400, 1600, 320],
          ] as const
        ).map(async ([filename, w, h, hue]) => ({
          filename,
          contentType: 'image/jpeg',
          data: await sceneJpeg(w, h, hue),
        })),
      ),
    );
    const [kitchen, front, sign, hallway, staged, garden] = photos;
    assert.ok(kitchen && front && sign && hallway && staged && garden);
    await writeAnalysis(ctx, kitchen.id, { analysis_room: 'Kitchen' });
    await writeAnalysis(ctx, front.id, { analysis_room: 'Exterior Front' });
    await writeAnalysis(ctx, sign.id, {
      analysis_room: 'Exterior Front',
      analysis_text: '[{"text":"FOR SALE","confidence":0.95},{"text":"555-0100","confidence":0.9}]',
      analysis_people: 1,
    });
    await writeAnalysis(ctx, hallway.id, { analysis_room: 'Hallway', analysis_tilt_degrees: 3.4 });
    await writeAnalysis(ctx, staged.id, { virtually_staged: 1 });
    await writeAnalysis(ctx, garden.id, { analysis_room: 'Backyard' });
    await makeVariantsNow(ctx);
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'console errors');
  });

  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await ctx?.close();
  });

  test('the owner adds a profile under Settings: refused beside its fields, then saved', async () => {
    const p = await open(DESKTOP);
    await p.goto(`${base}/dashboard/settings/studio`);
    await p.getByRole('link', { name: 'MLS profiles' }).last().click();
    await p.waitForURL(`${base}/dashboard/settings/mls`);
    await p.getByRole('link', { name: 'New profile' }).click();
    await p.getByLabel('Name').fill('Coastal MLS');
    await p.getByLabel('Largest long edge').fill('1600');
    await p.getByLabel('Smallest long edge').fill('2000');
    await p.getByLabel('Largest file').fill('5');
    await p.getByRole('button', { name: 'Add profile' }).click();
    await p.locator('.field-error').first().waitFor();
    const errors = await p.locator('.field-error').allTextContents();
    assert.deepEqual(errors, ['Enter a number from 10,000 to 100,000,000']);
    await checkPage(p, 'profile-refused-1280', false);
    await p.getByLabel('Largest file').fill('6,000,000');
    await p.getByRole('button', { name: 'Add profile' }).click();
    await p.locator('#f-min_long_edge-error').waitFor();
    assert.equal(await p.locator('#f-min_long_edge-error').textContent(), 'Enter at most 1,600, the largest long edge');
    await p.getByLabel('Smallest long edge').fill('800');
    await p.getByRole('button', { name: 'Add profile' }).click();
    await p.waitForURL(/notice=mls-created/);
    await checkPage(p, 'profile-1280', false);
    await p.getByRole('link', { name: '← MLS profiles' }).click();
    await p.waitForURL(`${base}/dashboard/settings/mls`);
    await checkPage(p, 'profiles-1280', false);
    await p.setViewportSize(PHONE);
    await checkPage(p, 'profiles-390', true);
    await p.getByRole('link', { name: 'Coastal MLS' }).click();
    await checkPage(p, 'profile-390', true);
  });

  test("the gallery's profile chosen on its page; the panel with its issues; the link to a photo", async () => {
    for (const [size, viewport] of [
      ['1280', DESKTOP],
      ['390', PHONE],
    ] as const) {
      const p = await open(viewport);
      await p.goto(`${base}/dashboard/galleries/${galleryId}`);
      if (size === '1280') {
        await p.getByLabel('MLS profile').selectOption({ label: 'Coastal MLS' });
        await p.locator('#mls').getByRole('button', { name: 'Save' }).click();
        await p.waitForURL(/notice=mls-profile-set/);
        await makeVariantsNow(ctx);
        await p.reload();
      }
      const panel = p.locator('#mls');
      await panel.scrollIntoViewIfNeeded();
      const text = (await panel.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /FAIL/i);
      assert.match(text, /Coastal MLS would refuse this listing/);
      assert.match(text, /The first photo shows the Kitchen, not the exterior\./);
      assert.match(text, /Left out of the unbranded property page/);
      assert.match(text, /Fixed: Its mls variant is 1600x1067 px/);
      assert.match(text, /Choose its original photo on the photo's page/);
      // Every thumbnail of the panel loads.
      await p.evaluate('Promise.all([...document.querySelectorAll("#mls img")].map((i) => i.decode().catch(() => undefined)))'); // prettier-ignore
      const broken = await p.evaluate(
        '[...document.querySelectorAll("#mls img")].filter((i) => !i.complete || i.naturalWidth === 0).length',
      );
      assert.equal(broken, 0, 'thumbnails that did not load');
      await checkPage(p, `gallery-${size}`, size === '390');
      await panel.screenshot({ path: path.join(SHOTS, `gallery-panel-${size}.png`) });
      // The photo's link goes to its tile in the grid.
      await panel.getByRole('link', { name: /Photo 3: sign\.jpg/ }).click();
      await p.waitForURL(new RegExp(`#m-${photos[2]!.id}$`));
      const top = await p.evaluate(`document.getElementById('m-${photos[2]!.id}').getBoundingClientRect().top`);
      assert.ok(Number(top) >= 0 && Number(top) < viewport.height, `the tile is on screen (top ${String(top)})`);
    }
  });

  test('the gallery list shows the badge of a gallery with a profile', async () => {
    for (const [size, viewport] of [
      ['1280', DESKTOP],
      ['390', PHONE],
    ] as const) {
      const p = await open(viewport);
      await p.goto(`${base}/dashboard/galleries`);
      const row = p.getByRole('row', { name: /12 Quay Street/ });
      assert.equal(await row.locator('.badge-mls-fail').textContent(), 'MLS fail');
      assert.equal(
        await p
          .getByRole('row', { name: /3 Orchard Close/ })
          .locator('[class*="badge-mls"]')
          .count(),
        0,
      );
      await checkPage(p, `list-${size}`, size === '390');
    }
  });
});
