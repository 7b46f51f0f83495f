// docs/api.md §29 in a real browser (Debian's chromium driven by playwright-core) against the real
// app on a free port: the invoice email as the file mailer wrote it (.eml, parsed with postal-mime),
// its HTML at phone and desktop widths with its Pay button; a test-mode invoice's pay page, its
// button recording the card payment; and Settings > Studio's online payment section. Screenshots
// go to test-results/screenshots/ (git-ignored): invoice-email-*.png, pay-*.png, settings-stripe-*.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import PostalMime, { type Email } from 'postal-mime';
import type { Browser } from 'playwright-core';
import {
  call,
  createAccount,
  createTestContext,
  testModeOf,
  type TestAccount,
  type TestContext,
} from '../support/test-app.ts';
import { newClient, newGallery, workerOf } from '../support/notification-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  SHOTS,
  assertAccessible,
  assertFitsPhone,
  launchChromium,
  screenshot,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const PASSWORD = 'correct horse battery';
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let email: Email;
let testPayUrl: string;

async function openInvoice(me: TestAccount): Promise<{ id: string; number: string; payment_url: string | null }> {
  const gallery = await newGallery(ctx, me, { address: '12 Quay Street, Portsmouth' });
  const client = await newClient(ctx, me, { name: 'Ann Lee', email: 'ann.lee@client.example' });
  await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, {
    key: me.key,
    query: { notify: 'false' },
  });
  const draft = await call(ctx, 'POST', '/v1/invoices', {
    key: me.key,
    body: {
      listing_id: gallery.id,
      items: [
        { description: 'Photography, 25 edited photos', unit_amount: 45_000 },
        { description: 'Drone, 8 aerials', unit_amount: 15_000 },
      ],
      tax_rate_bps: 825,
      due_at: '2027-01-15T00:00:00Z',
      note: 'Thank you for your business.',
    },
  });
  assert.equal(draft.statusCode, 201, draft.body);
  const issued = await call(ctx, 'POST', `/v1/invoices/${draft.json<{ id: string }>().id}/issue`, { key: me.key });
  assert.equal(issued.statusCode, 200, issued.body);
  return issued.json();
}

describe('invoice email, pay page and Stripe settings in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
    owner = await createAccount(ctx, 'Harbour Light Studio');
    await ctx.services.stripe.configure(owner.accountId, {
      secretKey: 'sk_test_51BrowserStandInKey',
      webhookSecret: 'whsec_browserStandInSecret',
    });
    const live = await openInvoice(owner);
    assert.ok(live.payment_url?.startsWith(`${base}/pay/`));
    await workerOf(ctx).drain();
    const dir = path.join(ctx.dataDir, 'outbox');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'));
    assert.equal(files.length, 1, files.join());
    email = await PostalMime.parse(await readFile(path.join(dir, files[0]!)));
    const testInvoice = await openInvoice(await testModeOf(ctx, owner));
    testPayUrl = testInvoice.payment_url ?? '';
    assert.ok(testPayUrl.startsWith(`${base}/pay/`));
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}: the invoice email shows the amount, the Pay button and the PDF`, async () => {
      const context = await browser.newContext({ viewport: SIZES[size], javaScriptEnabled: false });
      const page = await context.newPage();
      try {
        await page.setContent(email.html ?? '', { waitUntil: 'load' });
        assert.ok(email.attachments.some((a) => a.mimeType === 'application/pdf'));
        const button = page.getByRole('link', { name: /^Pay USD 649\.50$/ });
        await button.waitFor();
        assert.match((await button.getAttribute('href')) ?? '', /\/pay\/ivc_/);
        if (size === 'phone') await assertFitsPhone(page);
        await page.screenshot({ path: path.join(SHOTS, `invoice-email-${size}.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });
  }

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}: a test-mode invoice's pay page, its button recording the payment`, async () => {
      const context = await browser.newContext(
        size === 'phone' ? { viewport: SIZES.phone, isMobile: true, hasTouch: true } : { viewport: SIZES.desktop },
      );
      const page = await context.newPage();
      const errors: string[] = [];
      watchConsole(page, errors);
      try {
        await page.goto(testPayUrl);
        await page.getByRole('heading', { name: /Invoice INV-0001/ }).waitFor();
        await page.getByText('Test mode').first().waitFor();
        await assertAccessible(page, `pay page ${size}`);
        await screenshot(page, `pay-${size}`);
        if (size === 'desktop') {
          await page.getByRole('button', { name: 'Pay USD 649.50 by card' }).click();
          await page.getByRole('heading', { name: 'Paid, thank you' }).waitFor();
          await screenshot(page, `pay-${size}-paid`);
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }

  test('Settings > Studio: the Stripe section shows the webhook URL, never the keys', async () => {
    for (const size of ['phone', 'desktop'] as const) {
      const context = await browser.newContext({ viewport: SIZES[size] });
      const page = await context.newPage();
      try {
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel('Email').fill(owner.email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${base}/dashboard`);
        await page.goto(`${base}/dashboard/settings/studio`);
        const section = page.getByRole('region', { name: 'Online payment (Stripe)' });
        await section.waitFor();
        const text = await section.innerText();
        assert.match(text, new RegExp(`${base.replace(/[.]/g, '\\.')}/stripe/webhooks/[A-Za-z0-9_-]{32}`));
        const html = await page.content();
        assert.ok(!html.includes('sk_test_51Browser') && !html.includes('whsec_browser'), 'never shown again');
        await section.screenshot({ path: path.join(SHOTS, `settings-stripe-${size}.png`) });
        if (size === 'desktop') {
          await section.getByLabel('Secret key').fill('not a key');
          await section.getByLabel('Webhook signing secret').fill('whsec_browserStandInSecret2');
          await section.getByRole('button', { name: 'Save Stripe keys' }).click();
          await page.getByText('must be a Stripe secret key').first().waitFor();
          await screenshot(page, 'settings-stripe-refused');
        }
      } finally {
        await context.close();
      }
    }
  });
});
