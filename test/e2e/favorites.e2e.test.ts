// The link controls and favorites of docs/api.md §25 in a real browser (Debian's chromium through
// playwright-core) against the app listening on a free port, at 390 and 1280 px wide, with and
// without JavaScript: the expired page (410), the password form (wrong, then right), the page with
// downloads off (no download control at all), marking favorites (with the script: no reload, the
// heart's aria-pressed, the count and the favorites ZIP link change in place; by keyboard too),
// sending the selection with a note, the studio's email, and the favorites ZIP downloaded. Any
// console error or CSP violation fails.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import PostalMime from 'postal-mime';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { eventually, makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { linkedGallery, readZip, type LinkedGallery } from '../support/gallery.ts';
import {
  SHOTS as SHARED_SHOTS,
  inPage,
  launchChromium,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';
import { createJobRunner } from '../../src/mechanisms/queue/queue.runner.ts';
import { SELECTION_EMAIL_DELAY_MS, selectionEmailHandler } from '../../src/modules/client-links/selection-email.job.ts';
import { fakeClock } from '../support/notification-helpers.ts';

/** Screenshots: test-results/screenshots/favorites/ (git-ignored), or FAVORITES_SHOTS. */
const SHOTS = process.env.FAVORITES_SHOTS ?? path.join(SHARED_SHOTS, 'favorites');
const VIEWPORTS = [
  { name: 'phone', size: { width: 390, height: 844 }, mobile: true },
  { name: 'desktop', size: { width: 1280, height: 900 }, mobile: false },
] as const;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const CSP_RECORDER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  });`;

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
const consoleErrors: string[] = [];
const contexts: { name: string; js: boolean; context: BrowserContext; page: Page }[] = [];

async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function patchLink(listingId: string, body: Record<string, unknown>): Promise<void> {
  const res = await call(ctx, 'PATCH', `/v1/listings/${listingId}/client_link`, { key: owner.key, body });
  assert.equal(res.statusCode, 200, res.body);
}

async function galleryWithPhotos(address: string): Promise<LinkedGallery & { ids: string[] }> {
  const g = await linkedGallery(ctx, owner, {
    address,
    beds: 3,
    baths: 2,
    sqft: 1850,
    description: 'A bright corner house near the harbour.',
  });
  const parts = [];
  for (let i = 0; i < 5; i += 1) {
    parts.push({
      filename: `room-${i + 1}.jpg`,
      contentType: 'image/jpeg',
      data: await sceneJpeg(i % 2 === 0 ? 1200 : 800, i % 2 === 0 ? 800 : 1000, i * 55),
    });
  }
  const media = await uploaded(ctx, owner.key, g.listingId, parts);
  await makeVariantsNow(ctx);
  return { ...g, ids: media.map((m) => m.id) };
}

const text = (p: Page, selector: string) => p.locator(selector).first().innerText();

/**
 * Waits until `expression` is true in the page. Not page.waitForFunction: its polling evaluates a
 * string, which the gallery's CSP (no 'unsafe-eval') refuses once a page script has run.
 */
async function until(p: Page, expression: string): Promise<void> {
  await eventually(async () => assert.equal(await inPage(p, `String(${expression})`), 'true', expression));
}

describe('link controls and favorites in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Studio');
    browser = await launchChromium();
    for (const v of VIEWPORTS) {
      for (const js of [true, false]) {
        const context = await browser.newContext({
          viewport: v.size,
          isMobile: v.mobile,
          hasTouch: v.mobile,
          deviceScaleFactor: v.mobile ? 2 : 1,
          javaScriptEnabled: js,
          acceptDownloads: true,
        });
        await context.addInitScript(CSP_RECORDER);
        const page = await context.newPage();
        watchConsole(page, consoleErrors);
        contexts.push({ name: `${v.name}-${js ? 'js' : 'nojs'}`, js, context, page });
      }
    }
  });

  afterEach(async () => {
    for (const { js, page } of contexts) {
      if (js && page.url().startsWith(base)) {
        assert.equal(await inPage(page, 'JSON.stringify(window.__cspViolations || [])'), '[]');
      }
    }
    assert.deepEqual(consoleErrors.splice(0), []);
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('an expired link: a page naming the studio and the date, status 410', async () => {
    const g = await galleryWithPhotos('9 Old Quay');
    await ctx.deps.db.kysely
      .updateTable('gallery_links')
      .set({ expires_at: '2026-01-31T23:59:59.999Z' })
      .where('listing_id', '=', g.listingId)
      .execute();
    for (const { name, page } of contexts) {
      const res = await page.goto(`${base}${g.path}`);
      assert.equal(res?.status(), 410, name);
      const body = await page.locator('body').innerText();
      assert.match(body, /Harbour Light Studio/);
      assert.match(body, /2026/);
      assert.equal(await page.locator('img, a[download], form').count(), 0, `${name}: nothing of the gallery`);
      await shot(page, `expired-${name}`);
    }
  });

  test('a password: the form, a wrong answer said plainly, then the right one opens the gallery', async () => {
    const g = await galleryWithPhotos('14 Rope Walk');
    await patchLink(g.listingId, { password: 'harbour-2026' });
    for (const { name, page } of contexts) {
      const res = await page.goto(`${base}${g.path}`);
      assert.equal(res?.status(), 403, name);
      assert.equal(await page.locator('#photo-grid').count(), 0);
      await shot(page, `password-${name}`);
      const field = page.locator('input[type="password"]');
      await field.fill('not the password');
      await Promise.all([page.waitForLoadState('load'), field.press('Enter')]);
      await page.waitForURL(/\/unlock$/);
      assert.match(await page.locator('body').innerText(), /wrong|not right|incorrect/i, name);
      await shot(page, `password-wrong-${name}`);
      await page.locator('input[type="password"]').fill('harbour-2026');
      await Promise.all([
        page.waitForURL(`${base}${g.path}`),
        page.locator('button[type="submit"], input[type="submit"]').first().click(),
      ]);
      assert.equal(await page.locator('#photo-grid img').count(), 5, name);
      // Remembered: the next visit shows the gallery at once.
      assert.equal((await page.goto(`${base}${g.path}`))?.status(), 200);
    }
  });

  test('downloads off: thumbnails and large photos, and no download control anywhere', async () => {
    const g = await galleryWithPhotos('3 Sail Loft');
    await patchLink(g.listingId, { downloads_enabled: false });
    for (const { name, js, page } of contexts) {
      assert.equal((await page.goto(`${base}${g.path}`))?.status(), 200);
      assert.equal(await page.locator('#photo-grid img').count(), 5);
      assert.equal(await page.locator('a[download], a[href$=".zip"], a[href*="/download"]').count(), 0, name);
      assert.doesNotMatch(await page.locator('body').innerText(), /Download/, name);
      await shot(page, `downloads-off-${name}`);
      if (js) {
        // The viewer opens without its download button.
        await page.locator('a.tile__link').first().click();
        await page.locator('.pswp').waitFor();
        assert.equal(await page.locator('.pswp__button--download, .pswp a[download]').count(), 0, name);
        await page.keyboard.press('Escape');
      }
    }
  });

  test('favorites: marked (with and without JavaScript), sent with a note, emailed, and the ZIP of them', async () => {
    for (const { name, js, page } of contexts) {
      const g = await galleryWithPhotos(`${name} house, 21 Harbour Street`);
      assert.equal((await page.goto(`${base}${g.path}`))?.status(), 200);
      assert.equal(await page.locator('[data-favorites-zip]').isVisible(), false, `${name}: no ZIP before a favorite`);
      assert.equal(await page.locator('[data-favorites-send]').isDisabled(), true);
      await shot(page, `favorites-0-${name}`);
      if (js) await page.evaluate('window.__notReloaded = true');

      const hearts = page.locator('.tile__favorite button');
      // A real button, in reach of a thumb on a phone: 40 px, inside the screen.
      const box = await hearts.nth(1).boundingBox();
      assert.ok(
        box !== null && box.width >= 40 && box.height >= 40 && box.x >= 0,
        `${name}: heart ${JSON.stringify(box)}`,
      );
      assert.equal(await hearts.nth(1).getAttribute('aria-pressed'), 'false');
      await hearts.nth(1).click();
      if (!js) await page.waitForLoadState('load');
      await page.locator('.tile__favorite button[aria-pressed="true"]').first().waitFor();
      // By keyboard: focus the third heart and press Space.
      await page.locator('.tile__favorite button').nth(3).focus();
      await page.keyboard.press('Space');
      if (!js) await page.waitForLoadState('load');
      // Both answers in: no heart waits, and the count says 2.
      await until(page, "document.querySelector('[data-favorites-count]').textContent.trim() === '2'");
      await until(page, "document.querySelectorAll('.tile__favorite button[aria-busy]').length === 0");
      assert.equal(await page.locator('.tile__favorite button[aria-pressed="true"]').count(), 2, name);
      if (js) assert.equal(await inPage(page, 'String(window.__notReloaded === true)'), 'true', `${name}: no reload`);
      assert.equal(await page.locator('.tile__favorite button').nth(1).getAttribute('aria-pressed'), 'true');
      assert.equal(
        await page
          .locator('.tile__favorite button')
          .nth(1)
          .innerText()
          .then((t) => t.includes('♥')),
        true,
      );

      // Unmark and mark again: the count follows.
      await page.locator('.tile__favorite button').nth(3).click();
      if (!js) await page.waitForLoadState('load');
      await until(page, "document.querySelector('[data-favorites-count]').textContent.trim() === '1'");
      await page.locator('.tile__favorite button').nth(3).click();
      if (!js) await page.waitForLoadState('load');
      await until(page, "document.querySelector('[data-favorites-count]').textContent.trim() === '2'");

      const zip = page.locator('[data-favorites-zip] a');
      await zip.waitFor({ state: 'visible' });
      assert.equal(await zip.getAttribute('href'), `${g.path}/favorites.zip`);
      await page.locator('#photo-grid').scrollIntoViewIfNeeded();
      await shot(page, `favorites-marked-${name}`);

      // The favorites ZIP, downloaded by the browser: the two marked photos, in position order.
      const [download] = await Promise.all([page.waitForEvent('download'), zip.click()]);
      const saved = await download.path();
      const names = readZip(await readFile(saved)).map((e) => e.name);
      assert.deepEqual(names, ['room-2.jpg', 'room-4.jpg'], name);

      await page.locator('#favorites-note').fill('Please retouch the kitchen <b>window</b> & the hall.');
      await Promise.all([page.waitForURL(/\?sent=1#favorites$/), page.locator('[data-favorites-send]').click()]);
      assert.match(await text(page, '.selection__sent'), /Sent to Harbour Light Studio/);
      await page.locator('#favorites').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `favorites-sent-${name}.png`) });

      const favorites = await call(ctx, 'GET', `/v1/listings/${g.listingId}/favorites`, { key: owner.key });
      assert.deepEqual(favorites.json<{ media_ids: string[] }>().media_ids, [g.ids[1], g.ids[3]]);
    }

    // The studio's emails, one per gallery's selection, written by the file mailer: a worker whose
    // clock is past the few minutes an email waits for more presses.
    const later = { ...ctx.deps, clock: fakeClock(Date.now() + SELECTION_EMAIL_DELAY_MS).clock };
    await createJobRunner(later, quiet, selectionEmailHandler(later, quiet)).drain();
    const dir = path.join(ctx.dataDir, 'outbox');
    const emails = [];
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.eml'))) {
      emails.push(await PostalMime.parse(await readFile(path.join(dir, file))));
    }
    const selections = emails.filter((e) => /sent a selection/.test(e.subject ?? ''));
    assert.equal(selections.length, contexts.length);
    for (const email of selections) {
      assert.equal(email.to?.[0]?.address, owner.email);
      assert.match(email.text ?? '', /1\. room-2\.jpg\n2\. room-4\.jpg/);
      assert.match(email.text ?? '', /Please retouch the kitchen <b>window<\/b> & the hall\./);
      assert.match(email.html ?? '', /&lt;b&gt;window&lt;\/b&gt; &amp; the hall/);
    }
    // The email as a studio sees it, in the same browser.
    // On a blank page: the gallery's CSP would refuse the email's inline styles (a mail program has none).
    const reader = contexts[3]!.page;
    await reader.goto('about:blank');
    await reader.setContent(selections[0]!.html ?? '');
    await reader.screenshot({ path: path.join(SHOTS, 'studio-email-desktop.png'), fullPage: true });
    const phoneReader = contexts[0]!.page;
    await phoneReader.goto('about:blank');
    await phoneReader.setContent(selections[0]!.html ?? '');
    await phoneReader.screenshot({ path: path.join(SHOTS, 'studio-email-phone.png'), fullPage: true });
  });
});
