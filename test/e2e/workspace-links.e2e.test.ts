// The workspace as a photographer finds it (docs/api.md §27), in a real browser (Debian's chromium
// through playwright-core) at 1280 and 390 px: the navigation is one row (scrolling sideways on
// the phone, every link reachable by keyboard); links are one readable line with a Copy button
// that copies (the Clipboard API), selectable without JavaScript, and marked when the link asks
// for a password; a client's page gives them an existing gallery or a new one; a draft gallery is
// emailed only after a confirmation page, which works without JavaScript. Every page is checked
// by axe-core (no serious or critical violation), fits the phone and logs no console error.
// Screenshots: test-results/screenshots/workspace-links/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  assertAccessible,
  assertFitsPhone,
  inPage,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'workspace-links');
const OWNER = {
  studio: 'Harbour Light Photography',
  email: 'owner@harbour.example',
  password: 'a long studio password',
};
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let ctx: TestContext;
let base: string;
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let plain: BrowserContext;
let page: Page;
let phone: Page;
let noScript: Page;
let accountId = '';
let clientId = '';
let assignedId = '';
const consoleErrors: string[] = [];

/** axe-core, the phone's width, a full-page screenshot (a page without script: checked with it). */
async function checkPage(p: Page, name: string): Promise<void> {
  const label = `${p === phone ? 'phone' : p === noScript ? 'noscript' : 'desktop'}-${name}`;
  if (p !== noScript) await assertAccessible(p, label);
  if (p !== page) await assertFitsPhone(p);
  await p.screenshot({ path: path.join(SHOTS, `${label}.png`), fullPage: true });
}

async function signIn(p: Page): Promise<void> {
  await p.goto(`${base}/dashboard/sign-in`);
  await p.getByLabel('Email').fill(OWNER.email);
  await p.getByLabel('Password').fill(OWNER.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${base}/dashboard`);
}

interface Box {
  top: number;
  bottom: number;
  height: number;
  left: number;
  right: number;
}

/** The main navigation's box, its links' boxes, and the viewport's width. */
async function navBoxes(p: Page): Promise<{ nav: Box; items: Box[]; width: number }> {
  return JSON.parse(
    await inPage(
      p,
      `(() => {
        const box = (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: r.height, left: r.left, right: r.right }; };
        return JSON.stringify({
          nav: box(document.querySelector('nav[aria-label="Main"]')),
          items: [...document.querySelectorAll('nav[aria-label="Main"] a')].map(box),
          width: window.innerWidth,
        });
      })()`,
    ),
  ) as { nav: Box; items: Box[]; width: number };
}

/** One row: every link on the same line, and the navigation no taller than one link and its padding. */
async function assertNavOneRow(p: Page, where: string): Promise<void> {
  const { nav, items } = await navBoxes(p);
  assert.ok(items.length >= 3, `${where}: the navigation has its links`);
  const item = items[0]!;
  for (const other of items)
    assert.equal(Math.round(other.top), Math.round(item.top), `${where}: a link on another row`);
  assert.ok(
    nav.height < item.height * 1.5,
    `${where}: the navigation is ${nav.height} px tall, a link ${item.height} px`,
  );
}

describe('the workspace as a photographer finds it', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    accountId = (
      await ctx.services.accounts.create({ name: OWNER.studio, email: OWNER.email, password: OWNER.password })
    ).id;
    const s = ctx.services;
    const client = await s.clients.create(accountId, { name: 'Ann Lee', email: 'ann@client.example' });
    clientId = client.id;
    const assigned = await s.listings.create(accountId, { address: '12 Quay Street, Harbourside', status: 'active' });
    assignedId = assigned.id;
    await s.clients.assign(accountId, clientId, assignedId, { notify: false });
    await s.listings.updateClientLink(accountId, assignedId, { password: 'harbour-2026' });
    await s.listings.publishPropertyPage(accountId, assignedId);
    await s.listings.create(accountId, { address: '3 Old Mill Lane' });
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: DESKTOP });
    await desktop.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    mobile = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    await mobile.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    plain = await browser.newContext({ viewport: PHONE, isMobile: true, javaScriptEnabled: false });
    page = await desktop.newPage();
    phone = await mobile.newPage();
    noScript = await plain.newPage();
    for (const p of [page, phone, noScript]) watchConsole(p, consoleErrors);
    await signIn(page);
    await signIn(phone);
    await signIn(noScript);
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('the navigation is one row at 1280 and 390 px, and every link is reached by keyboard', async () => {
    for (const p of [page, phone, noScript]) {
      for (const where of ['/dashboard', `/dashboard/clients/${clientId}`, '/dashboard/account']) {
        await p.goto(`${base}${where}`);
        await assertNavOneRow(p, `${p === page ? 'desktop' : p === phone ? 'phone' : 'noscript'} ${where}`);
      }
    }
    // At 1280 px the whole row fits beside the studio's name: nothing to scroll to.
    await page.goto(`${base}/dashboard`);
    const desktopNav = await navBoxes(page);
    for (const item of desktopNav.items)
      assert.ok(item.right <= desktopNav.nav.right + 0.5, 'a link cut off at 1280 px');
    // The phone's row scrolls: the page's own link ("Your sign-in", the last) is brought into view.
    await phone.goto(`${base}/dashboard/account`);
    let { items, width } = await navBoxes(phone);
    const current = items[items.length - 1]!;
    assert.ok(current.left >= 0 && current.right <= width, `the current link is in view: ${JSON.stringify(current)}`);
    await checkPage(phone, 'nav-account');
    // From the top of the overview, Tab reaches each link in turn, scrolled into view when focused.
    await phone.goto(`${base}/dashboard`);
    ({ items, width } = await navBoxes(phone));
    assert.ok(items[items.length - 1]!.right > width, 'the last link starts off screen (the row scrolls)');
    await phone.keyboard.press('Tab'); // the skip link
    await phone.keyboard.press('Tab'); // the brand
    const names: string[] = [];
    for (let i = 0; i < items.length; i += 1) {
      await phone.keyboard.press('Tab');
      names.push(await inPage(phone, 'document.activeElement.textContent.trim()'));
      const box = JSON.parse(
        await inPage(phone, 'JSON.stringify(document.activeElement.getBoundingClientRect())'),
      ) as Box;
      assert.ok(
        box.left >= -0.5 && box.right <= width + 0.5,
        `${names.at(-1)} is in view when focused: ${JSON.stringify(box)} in ${width}`,
      );
    }
    assert.deepEqual(names, [
      'Overview',
      'Galleries',
      'Clients',
      'Invoices',
      'API keys',
      'Webhooks',
      'Team',
      'Studio settings',
      'Your sign-in',
    ]);
    await checkPage(phone, 'overview');
    await page.goto(`${base}/dashboard`);
    await checkPage(page, 'overview');
  });

  test('links: one readable line, Copy copies the whole URL, and the password mark', async () => {
    const listing = await ctx.services.listings.get(accountId, assignedId);
    const url = listing.client_link!.url;
    for (const p of [page, phone]) {
      await p.goto(`${base}/dashboard/galleries/${assignedId}#client`);
      const field = p.getByLabel('Client link', { exact: true });
      assert.equal(await field.inputValue(), url);
      assert.equal(await field.getAttribute('readonly'), '');
      // One line high, whatever the token: not a wrapped wall of text.
      const { height, lineHeight } = JSON.parse(
        await inPage(
          p,
          `JSON.stringify({ height: document.getElementById('client-link').getBoundingClientRect().height,
            lineHeight: parseFloat(getComputedStyle(document.getElementById('client-link')).lineHeight) || 24 })`,
        ),
      ) as { height: number; lineHeight: number };
      assert.ok(height < lineHeight * 2.2, `the link field is ${height} px tall`);
      const mark = p.locator('#client-link-lock');
      assert.equal(await mark.isVisible(), true, 'the password mark is visible');
      assert.equal((await mark.textContent())?.trim(), 'Password protected');
      assert.equal(await p.locator('#client-link-lock svg').getAttribute('aria-hidden'), 'true');
      assert.equal(await field.getAttribute('aria-describedby'), 'client-link-lock');
      await p.getByRole('button', { name: 'Copy Client link' }).click();
      await p.locator('#client-link-status').getByText('Copied to the clipboard.').waitFor();
      assert.equal(await inPage(p, 'navigator.clipboard.readText()'), url);
      await p.getByRole('button', { name: 'Copy Property page' }).click();
      await p.locator('#property-url-status').getByText('Copied to the clipboard.').waitFor();
      assert.equal(await inPage(p, 'navigator.clipboard.readText()'), listing.property_page!.url);
      await p.locator('#client').scrollIntoViewIfNeeded();
      await checkPage(p, 'gallery-links');
    }
    // The overview's assignments: each link with its own Copy button and mark.
    for (const p of [page, phone]) {
      await p.goto(`${base}/dashboard#assignments`);
      const panel = p.locator('#assignments');
      assert.equal(await panel.getByText('Password protected').isVisible(), true);
      await panel.getByRole('button', { name: 'Copy Client link for 12 Quay Street, Harbourside' }).click();
      await panel.getByText('Copied to the clipboard.').waitFor();
      assert.equal(await inPage(p, 'navigator.clipboard.readText()'), url);
      await checkPage(p, 'overview-links');
    }
    // Without JavaScript there is no Copy button, and the whole URL is in the field to select.
    await noScript.goto(`${base}/dashboard/galleries/${assignedId}#client`);
    assert.equal(await noScript.getByLabel('Client link', { exact: true }).inputValue(), url);
    assert.equal(await noScript.getByRole('button', { name: 'Copy Client link' }).count(), 0);
    assert.equal(await noScript.locator('#client-link-lock').isVisible(), true);
    await checkPage(noScript, 'gallery-links');
  });

  test("a client's page: an existing draft after the confirmation (no script), a new gallery in one step", async () => {
    const draft = (await ctx.services.listings.list(accountId, { client_id: 'none' })).data[0]!;
    assert.equal(draft.address, '3 Old Mill Lane');
    await phone.goto(`${base}/dashboard/clients/${clientId}`);
    await checkPage(phone, 'client');
    await page.goto(`${base}/dashboard/clients/${clientId}`);
    await checkPage(page, 'client');

    // Without JavaScript: the draft, with the email, asks first; "Email Ann Lee anyway" sends it.
    await noScript.goto(`${base}/dashboard/clients/${clientId}`);
    await noScript.getByLabel('Gallery', { exact: true }).selectOption(draft.id);
    await noScript.getByRole('button', { name: 'Assign gallery' }).click();
    await noScript.getByRole('heading', { name: 'Email “3 Old Mill Lane” while it is a draft?' }).waitFor();
    assert.equal((await ctx.services.listings.get(accountId, draft.id)).client_id, null, 'nothing done yet');
    await checkPage(noScript, 'draft-confirm');
    await noScript.getByRole('button', { name: 'Email Ann Lee anyway' }).click();
    await noScript.waitForURL(/notice=gallery-given-emailed/);
    await noScript.getByText('The email with its link is on its way to the client.').waitFor();
    assert.equal((await ctx.services.listings.get(accountId, draft.id)).client_id, clientId);
    await checkPage(noScript, 'client-given');

    // With script, at 1280: a new gallery for the client, in one step; the gallery's page is next.
    await page.goto(`${base}/dashboard/clients/${clientId}#give`);
    await page.getByLabel('Address').fill('7 Harbour View');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Create and assign' }).click();
    await page.getByText('Gallery created and assigned to the client.').waitFor();
    const made = /\/dashboard\/galleries\/(lst_[^?#]+)/.exec(page.url())?.[1] ?? '';
    const created = await ctx.services.listings.get(accountId, made);
    assert.deepEqual([created.address, created.status, created.client_id], ['7 Harbour View', 'active', clientId]);
    await checkPage(page, 'gallery-created-for-client');

    // At 390 px with script: a new draft with the email asks first, on the phone too.
    await phone.goto(`${base}/dashboard/clients/${clientId}#give`);
    await phone.getByLabel('Address').fill('8 Harbour View');
    await phone.getByLabel('Email Ann Lee the link now').check();
    await phone.getByRole('button', { name: 'Create and assign' }).click();
    await phone.getByRole('heading', { name: 'Email “8 Harbour View” while it is a draft?' }).waitFor();
    await checkPage(phone, 'draft-confirm');
    await phone.getByRole('button', { name: 'Assign without an email' }).click();
    await phone.getByText('Gallery created and assigned to the client.').waitFor();
    const id = /\/dashboard\/galleries\/(lst_[^?#]+)/.exec(phone.url())?.[1] ?? '';
    assert.equal((await ctx.services.listings.get(accountId, id)).client_id, clientId);
    await page.goto(`${base}/dashboard/clients/${clientId}`);
    await page.getByText('Galleries (4)').waitFor();
    await checkPage(page, 'client-four-galleries');
  });
});
