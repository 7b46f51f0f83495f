// Proofing at a share link (docs/api.md §28) in a real browser (Debian's chromium through
// playwright-core) against the app on a free port, at 390 and 1280 px wide, with and without
// JavaScript: the page says how many to choose; a mark past the maximum is refused with a message
// (the heart stays off); a comment is written by keyboard (the disclosure opens with Enter) and
// shown under its photo; a send with fewer than the minimum is refused with a message and the note
// kept; a send within the bounds is sent. The API then reads the same selection and comment. Every
// state is checked with axe-core (no serious or critical violation), fits a phone, and is
// screenshotted; any console error or CSP violation fails.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { eventually, makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { newGallery } from '../support/notification-helpers.ts';
import {
  assertAccessible,
  inPage,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

/** Screenshots: test-results/screenshots/proofing/ (git-ignored), or PROOFING_SHOTS. */
const SHOTS = process.env.PROOFING_SHOTS ?? path.join(SHARED_SHOTS, 'proofing');
const VIEWPORTS = [
  { name: 'phone', size: { width: 390, height: 844 }, mobile: true },
  { name: 'desktop', size: { width: 1280, height: 900 }, mobile: false },
] as const;

const CSP_RECORDER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  });`;

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let listingId: string;
let photoIds: string[] = [];
const consoleErrors: string[] = [];
const contexts: { name: string; phone: boolean; js: boolean; context: BrowserContext; page: Page }[] = [];

/** Per viewport, a page with JavaScript that shows a no-script page's DOM to axe-core (see look). */
const mirrors = new Map<boolean, Page>();

/**
 * axe-core in the page (evaluated over the DevTools protocol: the page's CSP is untouched), no
 * sideways scroll on a phone, and a screenshot. A page without JavaScript cannot run axe itself: its
 * very DOM is served to a mirror page of the same size that can, at the same URL.
 */
async function look(p: Page, phone: boolean, js: boolean, name: string): Promise<void> {
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  if (!js) {
    const mirror = mirrors.get(phone);
    assert.ok(mirror !== undefined);
    const html = await p.content();
    const url = p.url().split('#')[0]!;
    await mirror.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
    await mirror.goto(url);
    await mirror.unroute(url);
    p = mirror;
  }
  await assertAccessible(p, name);
  if (phone) {
    const width = Number(await inPage(p, 'document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `${name} is ${width} px wide on a 390 px phone`);
  }
}

/** Waits until `expression` is true in the page (not waitForFunction: the CSP refuses its eval). */
async function until(p: Page, expression: string): Promise<void> {
  await eventually(async () => assert.equal(await inPage(p, `String(${expression})`), 'true', expression));
}

/** Runs `action` (a form's post without the script) and waits for the page it leads to. */
async function navigates(p: Page, action: () => Promise<void>): Promise<void> {
  await Promise.all([p.waitForEvent('framenavigated', (f) => f === p.mainFrame()), action()]);
  await p.waitForLoadState('load');
}

const heart = (p: Page, id: string) => p.locator(`#photo-${id} .tile__favorite button`);

/** Taps a heart: with the script the page stays (the heart turns or the message shows); without, it reloads. */
async function tap(p: Page, js: boolean, id: string): Promise<void> {
  if (js) {
    await heart(p, id).click();
    await until(
      p,
      `document.querySelector('#photo-${id} .tile__favorite button').getAttribute('aria-busy') !== 'true'`,
    );
  } else {
    await navigates(p, () => heart(p, id).click());
  }
}

describe('proofing at a share link in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Studio');
    const listing = await newGallery(ctx, owner, {
      address: '14 Harbour Row',
      beds: 3,
      baths: 2,
      description: 'Pick the two photos for the brochure cover.',
    });
    listingId = listing.id;
    const parts = [];
    for (let i = 0; i < 4; i += 1) {
      parts.push({
        filename: `room-${i + 1}.jpg`,
        contentType: 'image/jpeg',
        data: await sceneJpeg(i % 2 === 0 ? 1200 : 800, i % 2 === 0 ? 800 : 1000, i * 60),
      });
    }
    photoIds = (await uploaded(ctx, owner.key, listingId, parts)).map((m) => m.id);
    await makeVariantsNow(ctx);
    browser = await launchChromium();
    for (const v of VIEWPORTS) {
      for (const js of [true, false]) {
        const context = await browser.newContext({
          viewport: v.size,
          isMobile: v.mobile,
          hasTouch: v.mobile,
          deviceScaleFactor: v.mobile ? 2 : 1,
          javaScriptEnabled: js,
        });
        await context.addInitScript(CSP_RECORDER);
        const page = await context.newPage();
        watchConsole(page, consoleErrors);
        contexts.push({ name: `${v.name}-${js ? 'js' : 'nojs'}`, phone: v.mobile, js, context, page });
      }
      const mirror = await browser.newContext({
        viewport: v.size,
        isMobile: v.mobile,
        hasTouch: v.mobile,
        deviceScaleFactor: v.mobile ? 2 : 1,
      });
      mirrors.set(v.mobile, await mirror.newPage());
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

  test('choose exactly two, comment on one, send: refusals explained, nothing half-saved', async () => {
    const [a, b, c] = photoIds as [string, string, string];
    for (const { name, phone, js, page } of contexts) {
      // A share link of its own for each browser, so each starts with nothing chosen.
      const created = await call(ctx, 'POST', `/v1/listings/${listingId}/share_links`, {
        key: owner.key,
        body: { label: `Agent ${name}`, selection_min: 2, selection_max: 2 },
      });
      assert.equal(created.statusCode, 201, created.body);
      const link = created.json<{ id: string; url: string }>();
      await page.goto(link.url);
      assert.match(await page.locator('.selection__rule').innerText(), /Choose 2 photos\./, name);
      await look(page, phone, js, `${name}-1-page`);

      await tap(page, js, a);
      await tap(page, js, b);
      await tap(page, js, c);
      const alert = page.locator('[data-selection-message]');
      assert.equal(await alert.isVisible(), true, `${name}: the refusal shows`);
      assert.match(
        await alert.innerText(),
        /You can choose up to 2 photos\. Unmark one before you mark another\./,
        name,
      );
      assert.equal(await heart(page, c).getAttribute('aria-pressed'), 'false', `${name}: the third stays off`);
      assert.equal(await heart(page, a).getAttribute('aria-pressed'), 'true', name);
      await page.locator('#favorites').scrollIntoViewIfNeeded();
      await look(page, phone, js, `${name}-2-refused-mark`);

      // A comment by keyboard: focus the disclosure, open it with Enter, type, save.
      const summary = page.locator(`#photo-${a} .comment summary`);
      await summary.focus();
      await page.keyboard.press('Enter');
      const box = page.locator(`#comment-${a}`);
      assert.equal(await box.isVisible(), true, `${name}: Enter opens the comment form`);
      await box.fill('Brighter, please: this one for the cover.');
      await look(page, phone, js, `${name}-3-comment-open`);
      const save = page.locator(`#photo-${a} .comment__form button`);
      if (js) {
        await save.click();
        await until(page, `document.querySelector('#photo-${a} [data-comment-text]') !== null`);
      } else {
        await navigates(page, () => save.click());
      }
      assert.match(
        await page.locator(`#photo-${a} [data-comment-text]`).innerText(),
        /Brighter, please: this one for the cover\./,
        name,
      );

      // Unmark one, then send: fewer than the minimum is refused, the note kept.
      await tap(page, js, b);
      await page.locator('#favorites-note').fill('For the brochure.');
      await navigates(page, () => page.locator('[data-favorites-send]').click());
      assert.match(
        await page.locator('[data-selection-message]').innerText(),
        /Your selection has 1 photo: choose at least 2 photos before you send it\. Nothing was sent\./,
        name,
      );
      assert.equal(await page.locator('#favorites-note').inputValue(), 'For the brochure.', `${name}: note kept`);
      await page.locator('#favorites').scrollIntoViewIfNeeded();
      await look(page, phone, js, `${name}-4-refused-send`);
      const before = await call(ctx, 'GET', `/v1/listings/${listingId}/share_links/${link.id}/favorites`, {
        key: owner.key,
      });
      assert.equal(before.json<{ submitted_at: string | null }>().submitted_at, null, `${name}: nothing sent`);

      // Two chosen: sent.
      await page.goto(link.url);
      await tap(page, js, c);
      await page.locator('#favorites-note').fill('For the brochure.');
      await navigates(page, () => page.locator('[data-favorites-send]').click());
      assert.match(await page.locator('.selection__sent').innerText(), /Sent to Harbour Light Studio/, name);
      await look(page, phone, js, `${name}-5-sent`);
      const after = await call(ctx, 'GET', `/v1/listings/${listingId}/share_links/${link.id}/favorites`, {
        key: owner.key,
      });
      const selection = after.json<{ media_ids: string[]; note: string; comments: { media_id: string }[] }>();
      assert.deepEqual(selection.media_ids, [a, c], name);
      assert.equal(selection.note, 'For the brochure.');
      assert.deepEqual(
        selection.comments.map((x) => x.media_id),
        [a],
        name,
      );
    }
  });
});
