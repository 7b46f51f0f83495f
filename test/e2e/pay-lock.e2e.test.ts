// A client's gallery waiting for payment (docs/api.md §29) in a real browser (Debian's chromium
// through playwright-core, one launch) at 1280 and 390 px: the amount due, the invoice's number,
// its PDF and how to pay above the photos, which are the marked previews; no download control.
// axe-core finds no serious or critical violation, the phone needs no sideways scroll, and the
// console stays clean. With a logo set in Settings, the previews carry it instead of the name.
// Once paid, the same page is the gallery with its downloads.
// Screenshots: test-results/screenshots/pay-lock/ (git-ignored).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { linkedGallery } from '../support/gallery.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { issuedInvoice, makePreviewsNow, pay } from '../support/pay-lock.ts';
import { sceneJpeg } from '../support/photos.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  assertAccessible,
  assertFitsPhone,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'pay-lock');

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let pagePath: string;
let invoiceId: string;
const consoleErrors: string[] = [];

describe('a gallery waiting for payment in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Photography');
    const g = await linkedGallery(ctx, owner, { status: 'active' });
    pagePath = g.path;
    await uploaded(ctx, owner.key, g.listingId, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: await sceneJpeg(960, 640) },
      { filename: 'side.jpg', contentType: 'image/jpeg', data: await sceneJpeg(960, 640, 120) },
      { filename: 'garden.jpg', contentType: 'image/jpeg', data: await sceneJpeg(640, 800, 240) },
    ]);
    await makeVariantsNow(ctx);
    invoiceId = (await issuedInvoice(ctx, owner.key, g.listingId, 45_000)).id;
    await makePreviewsNow(ctx);
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('locked at 1280 and 390 px: amount due, number, PDF, how to pay, marked photos, no download', async () => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const phone = viewport.width < 500;
      const context = await browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) });
      const p = await context.newPage();
      watchConsole(p, consoleErrors);
      await p.goto(`${base}${pagePath}`);
      const notice = p.locator('.pay-lock');
      await notice.waitFor();
      assert.match(await notice.innerText(), /USD 450\.00 due/);
      assert.match(await notice.innerText(), /INV-0001/);
      assert.match(await notice.innerText(), new RegExp(owner.email.replace(/[.+]/g, '\\$&')));
      const pdfHref = await p.getByRole('link', { name: 'Invoice INV-0001 (PDF)' }).getAttribute('href');
      assert.equal(pdfHref, `${pagePath}/invoice.pdf`);
      assert.equal(await p.locator('a[download], a[href$="/download"], a[href$=".zip"]').count(), 0);
      // Every image drawn is a preview, loaded in full.
      await p.waitForFunction('[...document.images].every((i) => i.complete && i.naturalWidth > 0)');
      assert.ok((await p.locator('img').count()) >= 3);
      await assertAccessible(p, `locked ${viewport.width}`);
      if (phone) await assertFitsPhone(p);
      await p.screenshot({ path: path.join(SHOTS, `locked-${viewport.width}.png`), fullPage: !phone });
      await context.close();
    }
    assert.deepEqual(consoleErrors, []);
  });

  test("with the studio's logo (Settings): the previews are made again with it across them", async () => {
    // A two-colour mark on a transparent background, as a studio's logo usually is.
    const logo = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120"><circle cx="60" cy="60" r="50" fill="#0a7d5a"/>' +
          '<rect x="120" y="20" width="70" height="80" rx="12" fill="#f2a900"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    // Uploaded as the owner does it, on Settings > Studio (desktop), then the section seen at 390 px too.
    const settings = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const d = await settings.newPage();
    watchConsole(d, consoleErrors);
    await d.goto(`${base}/dashboard/sign-in`);
    await d.getByLabel('Email').fill(owner.email);
    await d.getByLabel('Password').fill('correct horse battery');
    await d.getByRole('button', { name: 'Sign in' }).click();
    await d.waitForURL(`${base}/dashboard`);
    await d.goto(`${base}/dashboard/settings/studio#watermark`);
    await d.getByLabel('Upload a logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
    await d.getByRole('button', { name: 'Upload logo' }).click();
    await d.waitForURL(/notice=logo-saved/);
    await d.locator('img.logo-preview').waitFor();
    await d.waitForFunction('[...document.images].every((i) => i.complete && i.naturalWidth > 0)');
    await assertAccessible(d, 'studio settings with a logo');
    await d.locator('#watermark').screenshot({ path: path.join(SHOTS, 'settings-logo-1280.png') });
    await d.setViewportSize({ width: 390, height: 844 });
    await assertFitsPhone(d);
    await d.locator('#watermark').screenshot({ path: path.join(SHOTS, 'settings-logo-390.png') });
    await settings.close();
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const phone = viewport.width < 500;
      const context = await browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) });
      const p = await context.newPage();
      watchConsole(p, consoleErrors);
      // The first visit finds the previews stale (made with the name) and has them made again.
      await p.goto(`${base}${pagePath}`);
      await makePreviewsNow(ctx);
      await p.goto(`${base}${pagePath}`);
      await p.locator('.pay-lock').waitFor();
      assert.match(await p.locator('.pay-lock').innerText(), /marked with Harbour Light Photography's logo/);
      await p.waitForFunction('[...document.images].every((i) => i.complete && i.naturalWidth > 0)');
      await p.screenshot({ path: path.join(SHOTS, `locked-logo-${viewport.width}.png`), fullPage: !phone });
      await context.close();
    }
    assert.deepEqual(consoleErrors, []);
  });

  test('paid: the same page is the gallery with its downloads', async () => {
    await pay(ctx, owner.key, invoiceId, 45_000);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    watchConsole(p, consoleErrors);
    await p.goto(`${base}${pagePath}`);
    assert.equal(await p.locator('.pay-lock').count(), 0);
    assert.ok((await p.locator('a[href$="/download.zip"]').count()) > 0);
    await p.waitForFunction('[...document.images].every((i) => i.complete && i.naturalWidth > 0)');
    await p.screenshot({ path: path.join(SHOTS, 'paid-1280.png') });
    await context.close();
    assert.deepEqual(consoleErrors, []);
  });
});
