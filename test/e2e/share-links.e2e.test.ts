// The share links panel of a gallery's dashboard page (docs/api.md §28) in a real browser (Debian's
// chromium through playwright-core, the app on a free port) at 1280 and 390 px: folded away until
// opened; a link made through its form (email, password, bounds), listed with its copyable URL (Copy
// copies it), the password mark, its controls and counts, and the selection sent at it with its
// comments; a refused form shown as typed with the errors beside the fields; edit, and delete after
// a page that asks; the panel without JavaScript. Every page is checked by axe-core (no serious or
// critical violation), fits the phone and logs no console error.
// Screenshots: test-results/screenshots/share-links/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  inPage,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
  checkPage as checkPageIn,
  signedIn,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'share-links');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let galleryId = '';
const contexts: BrowserContext[] = [];
const consoleErrors: string[] = [];

const checkPage = (p: Page, name: string, phone: boolean, js = true): Promise<void> =>
  checkPageIn(p, SHOTS, name, { phone, js });

const open = (viewport: { width: number; height: number }, js = true): Promise<Page> =>
  signedIn({ browser, base, contexts, consoleErrors }, viewport, {
    email: owner.email,
    password: PASSWORD,
    js,
    clipboard: true,
  });

const galleryUrl = () => `${base}/dashboard/galleries/${galleryId}`;
const panel = (p: Page) => p.locator('#share-links');

describe('the share links panel in a browser', { skip: skipWithoutChromium }, () => {
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
    await uploaded(ctx, owner.key, galleryId, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: await sceneJpeg(960, 640, 30) },
      { filename: 'kitchen.jpg', contentType: 'image/jpeg', data: await sceneJpeg(960, 640, 200) },
    ]);
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

  test('desktop: folded away, a link made, copied, seen with its selection, edited and deleted', async () => {
    const p = await open(DESKTOP);
    await p.goto(galleryUrl());
    const summary = panel(p).locator('summary').first();
    assert.equal(await panel(p).getByLabel('Label').first().isVisible(), false, 'folded away at first');
    await checkPage(p, 'desktop-closed', false);
    await summary.click();
    await panel(p).getByText('New share link').click();
    const form = panel(p).locator('form[action$="/share-links"]');
    await form.getByLabel('Label').fill('Agent team');
    await form.getByLabel('Email it to (optional)').fill('agent@realty.test');
    await form.getByLabel('Password (optional)').fill('a long secret');
    await form.getByLabel('Most to choose (optional)').fill('2');
    await form.getByRole('button', { name: 'Create share link' }).click();
    await p.waitForURL(/notice=share-link-emailed/);
    await p.getByRole('status').getByText('Share link created; the email with its URL is on its way.').waitFor();
    const [link] = (await ctx.services.shareLinks.list(owner.accountId, galleryId, {})).data;
    assert.ok(link !== undefined && link.password_protected && link.selection_max === 2);
    // Open after its notice; the URL one line, with the lock and its words, and Copy copies it.
    const item = panel(p).locator(`li#${link.id}`);
    await item.getByText('Password protected').waitFor();
    assert.equal(await item.locator('input.link-value').inputValue(), link.url);
    await item.getByRole('button', { name: 'Copy Agent team' }).click();
    await item.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await inPage(p, 'navigator.clipboard.readText()'), link.url);

    // A visitor unlocks it, marks a photo, comments and sends the selection.
    const visitor = await browser.newContext({ viewport: DESKTOP });
    contexts.push(visitor);
    const v = await visitor.newPage();
    watchConsole(v, consoleErrors);
    await v.goto(link.url);
    await v.getByLabel('Password').fill('a long secret');
    await v.getByRole('button', { name: /open|unlock|view/i }).click();
    await v.waitForURL(link.url);
    const media = await ctx.services.media.list(owner.accountId, galleryId);
    const kitchen = media.data.find((m) => m.filename === 'kitchen.jpg');
    assert.ok(kitchen !== undefined);
    const path0 = new URL(link.url).pathname;
    for (const [url, fields] of [
      [`${path0}/favorites/${kitchen.id}`, { on: '1' }],
      [`${path0}/comments/${kitchen.id}`, { comment: 'Brighter, please' }],
      [`${path0}/favorites`, { note: 'Our pick for the listing' }],
    ] as const) {
      const res = await v.request.post(`${base}${url}`, { form: fields, maxRedirects: 0 });
      assert.equal(res.status(), 303, url);
    }
    await p.reload();
    await item.getByText('Selection sent').waitFor();
    await item.getByText('Brighter, please').waitFor();
    assert.match(await item.locator('.share-link-counts').innerText(), /1 view · 0 downloads · 1 favorite/);
    await checkPage(p, 'desktop-link-with-selection', false);

    // Edit: the label and a minimum; saved, shown.
    await item.locator('summary').filter({ hasText: 'Edit' }).click();
    await item.getByLabel('Label').fill('Agent team (final)');
    await item.getByLabel('Fewest to choose (optional)').fill('1');
    await checkPage(p, 'desktop-editing', false);
    await item.getByRole('button', { name: 'Save' }).click();
    await p.waitForURL(/notice=share-link-saved/);
    const edited = await ctx.services.shareLinks.get(owner.accountId, galleryId, link.id);
    assert.deepEqual([edited.label, edited.selection_min, edited.selection_max], ['Agent team (final)', 1, 2]);

    // Delete asks first on a page of its own.
    await panel(p)
      .locator(`li#${link.id}`)
      .getByRole('link', { name: /Delete/ })
      .click();
    await p.getByRole('heading', { name: /Delete the share link “Agent team \(final\)”\?/ }).waitFor();
    await checkPage(p, 'desktop-delete-confirm', false);
    await p.getByRole('button', { name: 'Delete share link' }).click();
    await p.waitForURL(/notice=share-link-deleted/);
    assert.equal((await ctx.services.shareLinks.list(owner.accountId, galleryId, {})).data.length, 0);
    assert.equal((await p.request.get(link.url, { maxRedirects: 0 })).status(), 404);
  });

  test('phone: a refused form shown as typed beside its fields, then a link listed; fits the screen', async () => {
    await ctx.services.shareLinks.create(owner.accountId, galleryId, {
      label: 'Home stager with a rather long name',
      email: 'stager@homes.test',
      expires_at: new Date(Date.now() + 40 * 24 * 3600 * 1000).toISOString(),
      downloads_enabled: false,
      selection_min: 3,
      selection_max: 10,
    });
    const p = await open(PHONE);
    await p.goto(galleryUrl());
    await panel(p).locator('summary').first().click();
    await checkPage(p, 'phone-open', true);
    await panel(p).getByText('New share link').click();
    const form = panel(p).locator('form[action$="/share-links"]');
    await form.getByLabel('Email it to (optional)').fill('not an email');
    await form.getByLabel('Fewest to choose (optional)').fill('5');
    await form.getByLabel('Most to choose (optional)').fill('2');
    await form.getByRole('button', { name: 'Create share link' }).click();
    await p.getByText('Please fix these and try again:').waitFor();
    const refused = panel(p).locator('.share-link-new');
    assert.equal(await refused.getAttribute('open'), '', 'the form is open again');
    await refused.locator('#f-shl-new-label-error').getByText('Give the link a label').waitFor();
    await refused.locator('#f-shl-new-email-error').getByText('Enter an email address').waitFor();
    await refused
      .locator('#f-shl-new-selection_min-error')
      .getByText('The fewest must not be more than the most')
      .waitFor();
    assert.equal(await refused.getByLabel('Email it to (optional)').inputValue(), 'not an email');
    assert.equal(await refused.getByLabel('Most to choose (optional)').inputValue(), '2');
    await checkPage(p, 'phone-refused', true);
    await refused.getByLabel('Label').fill('Agent');
    await refused.getByLabel('Email it to (optional)').fill('');
    await refused.getByLabel('Fewest to choose (optional)').fill('');
    await refused.getByRole('button', { name: 'Create share link' }).click();
    await p.waitForURL(/notice=share-link-created/);
    assert.equal((await ctx.services.shareLinks.list(owner.accountId, galleryId, {})).data.length, 2);
    await checkPage(p, 'phone-two-links', true);
  });

  test('without JavaScript: the panel opens, New URL replaces the link, at 390 px', async () => {
    const p = await open(PHONE, false);
    await p.goto(galleryUrl());
    await panel(p).locator('summary').first().click();
    const [agent] = (await ctx.services.shareLinks.list(owner.accountId, galleryId, {})).data.filter(
      (l) => l.label === 'Agent',
    );
    assert.ok(agent !== undefined);
    const item = panel(p).locator(`li#${agent.id}`);
    await item.getByRole('button', { name: 'New URL Agent' }).click();
    await p.waitForURL(/notice=share-link-rotated/);
    const now = await ctx.services.shareLinks.get(owner.accountId, galleryId, agent.id);
    assert.notEqual(now.url, agent.url);
    assert.equal(await panel(p).locator(`li#${agent.id} input.link-value`).inputValue(), now.url);
    await checkPage(p, 'phone-nojs-rotated', true, false);
  });
});
