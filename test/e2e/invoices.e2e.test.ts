// Getting paid in the dashboard (docs/api.md §29, §27) in a real browser (Debian's chromium through
// playwright-core, the app on a free port), one launch, at 1280 and 390 px: a product added through
// its form (price typed as decimal text); on a gallery's page the Invoices card, a new invoice picked
// from the catalogue with a line of one's own; the invoice's page, issued, part-paid; the invoices
// list; and the same forms without JavaScript (a refused payment shown as typed). Every page with
// script is checked by axe-core (no serious or critical violation), fits the phone and logs no
// console error. Screenshots: test-results/screenshots/invoices/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  checkPage as checkPageIn,
  signedIn,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'invoices');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let galleryId = '';
let invoiceId = '';
const contexts: BrowserContext[] = [];
const consoleErrors: string[] = [];

const checkPage = (p: Page, name: string, phone: boolean, js = true): Promise<void> =>
  checkPageIn(p, SHOTS, name, { phone, js });

const open = (viewport: { width: number; height: number }, js = true): Promise<Page> =>
  signedIn({ browser, base, contexts, consoleErrors }, viewport, { email: owner.email, password: PASSWORD, js });

describe('products and invoices in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Photography');
    await ctx.services.products.create(owner.accountId, {
      name: 'Photos, up to 25',
      description: 'Edited, MLS-ready',
      unit_amount: 25000,
    });
    await ctx.services.products.create(owner.accountId, { name: 'Floor plan', unit_amount: 9500 });
    const client = await ctx.services.clients.create(owner.accountId, { name: 'Ann Agent', email: 'ann@realty.test' });
    const listing = await ctx.services.listings.create(owner.accountId, { address: '12 Quay Street, Harbourside' });
    galleryId = listing.id;
    await ctx.services.clients.assign(owner.accountId, client.id, galleryId, { notify: false });
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

  test('desktop: a product added, an invoice made from the gallery, issued and part-paid', async () => {
    const p = await open(DESKTOP);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invoices' }).click();
    await p.getByRole('main').getByRole('link', { name: 'Products' }).click();
    await p.getByRole('link', { name: 'New product' }).click();
    await p.getByLabel('Name').fill('Drone flight');
    await p.getByLabel('Price (USD)').fill('1,50');
    await p.getByRole('button', { name: 'Add product' }).click();
    await p.getByText('Price: Enter an amount in numbers').waitFor();
    assert.equal(await p.getByLabel('Price (USD)').inputValue(), '1,50');
    await p.getByLabel('Price (USD)').fill('150');
    await p.getByRole('button', { name: 'Add product' }).click();
    await p.waitForURL(/notice=product-created/);
    await p.goto(`${base}/dashboard/products`);
    await p.getByRole('cell', { name: 'USD 150.00' }).waitFor();
    await checkPage(p, 'products-1280', false);

    await p.goto(`${base}/dashboard/galleries/${galleryId}#invoices`);
    const card = p.locator('#invoices');
    await card.getByText('New invoice').click();
    await card.getByLabel(/Photos, up to 25/).fill('1');
    await card.getByLabel(/Drone flight/).fill('1');
    await card.getByLabel('Line 1 description').fill('Twilight shoot');
    await card.getByLabel('Unit price (USD) of line 1').fill('75.5');
    await card.getByLabel('Tax rate (%)').fill('8.25');
    await p.locator('#invoices').screenshot({ path: path.join(SHOTS, 'gallery-card-1280.png') });
    await card.getByRole('button', { name: 'Create draft invoice' }).click();
    await p.waitForURL(/notice=invoice-created/);
    invoiceId = /invoices\/(ivc_[A-Za-z0-9]+)/.exec(p.url())?.[1] ?? '';
    // 250 + 150 + 75.50 = 475.50; tax 8.25 % = 39.23 (39.228… half up); total 514.73.
    await p.getByText('USD 514.73').first().waitFor();
    await p.getByRole('button', { name: 'Issue and email' }).click();
    await p.waitForURL(/notice=invoice-issued/);
    await p.getByRole('heading', { name: /Invoice INV-0001/ }).waitFor();
    await p.getByLabel('Amount (USD)').fill('200');
    await p.getByLabel('Method').selectOption('check');
    await p.getByLabel('Reference (optional)').fill('Cheque 1042');
    await p.getByRole('button', { name: 'Record payment' }).click();
    await p.waitForURL(/notice=payment-recorded/);
    await p.getByText('USD 314.73').first().waitFor();
    await checkPage(p, 'invoice-1280', false);
    const pdf = await p.request.get(`${base}/dashboard/invoices/${invoiceId}/pdf`);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');

    await p.goto(`${base}/dashboard/invoices`);
    await p.getByRole('link', { name: 'INV-0001' }).waitFor();
    await checkPage(p, 'invoices-1280', false);
    await p.goto(`${base}/dashboard/galleries/${galleryId}#invoices`);
    await checkPage(p, 'gallery-1280', false);
    await p.locator('#invoices').screenshot({ path: path.join(SHOTS, 'gallery-card-after-1280.png') });
  });

  test('phone: the products, the list, the invoice and the gallery card fit and read', async () => {
    const p = await open(PHONE);
    await p.goto(`${base}/dashboard/products`);
    await checkPage(p, 'products-390', true);
    await p.goto(`${base}/dashboard/invoices`);
    await checkPage(p, 'invoices-390', true);
    await p.goto(`${base}/dashboard/invoices/${invoiceId}`);
    await checkPage(p, 'invoice-390', true);
    await p.goto(`${base}/dashboard/galleries/${galleryId}#invoices`);
    await p.locator('#invoices').getByText('New invoice').click();
    await p.locator('#invoices').locator('#invoices-title').scrollIntoViewIfNeeded();
    await checkPage(p, 'gallery-390', true);
    await p.locator('#invoices').screenshot({ path: path.join(SHOTS, 'gallery-card-390.png') });
    const draft = await ctx.services.invoices.create(owner.accountId, {
      listing_id: galleryId,
      items: [{ description: 'Video tour', unit_amount: 30000, quantity: 1 }],
      discount: 5000,
    });
    await p.goto(`${base}/dashboard/invoices/${draft.id}`);
    await checkPage(p, 'draft-390', true);
  });

  test('without JavaScript: a refused payment comes back as typed, then the rest pays it', async () => {
    const p = await open(DESKTOP, false);
    await p.goto(`${base}/dashboard/invoices/${invoiceId}`);
    await p.getByLabel('Amount (USD)').fill('999');
    await p.getByRole('button', { name: 'Record payment' }).click();
    await p.getByText('Amount: Enter at most USD 314.73').waitFor();
    assert.equal(await p.getByLabel('Amount (USD)').inputValue(), '999');
    await checkPage(p, 'payment-refused-nojs', false, false);
    await p.getByLabel('Amount (USD)').fill('314.73');
    await p.getByRole('button', { name: 'Record payment' }).click();
    await p.waitForURL(/notice=invoice-paid/);
    assert.equal((await ctx.services.invoices.get(owner.accountId, invoiceId)).status, 'paid');
    await p.goto(`${base}/dashboard/invoices?status=paid`);
    await p.getByRole('link', { name: 'INV-0001' }).waitFor();
  });
});
