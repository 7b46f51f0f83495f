// Settings > Webhooks in a real browser (Debian's chromium through playwright-core) against the
// app listening on a free port, at a desktop (1280x900) and a phone (390x844) size: add an
// endpoint, read its secret (once), send a test to a receiver on 127.0.0.1, see the delivery row,
// retry it, disable and delete. Screenshots go to test-results/screenshots/webhooks-*.png.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { captureLog } from '../support/notification-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  assertFitsPhone,
  inPage,
  launchChromium,
  screenshot,
  skipWithoutChromium as skip,
  watchConsole,
} from '../support/e2e-browser.ts';
import { createJobRunner, type JobRunner } from '../../src/mechanisms/queue/queue.runner.ts';
import { deliveryHandler } from '../../src/modules/webhooks/webhooks.delivery.job.ts';
import { blockedConnections, startReceiver, systemLookups, type Receiver } from '../support/loopback-receivers.ts';

const PASSWORD = 'a long studio password';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let ctx: TestContext;
let base: string;
let browser: Browser;
let page: Page;
let phone: Page;
let receiver: Receiver;
let handler: ReturnType<typeof deliveryHandler>;
let runner: JobRunner;
const consoleErrors: string[] = [];
/** What the receiver answers next, in order; then 204. */
const answers: number[] = [];

const shot = (p: Page, name: string): Promise<void> =>
  screenshot(p, `${p === phone ? 'mobile' : 'desktop'}-webhooks-${name}`);

/** Every table of the page fits its scroller (no hidden columns at this width). */
async function assertNoSidewaysScroll(p: Page): Promise<void> {
  const wide = await inPage(
    p,
    `JSON.stringify([...document.querySelectorAll('.table-wrap')]
      .filter((w) => w.scrollWidth > w.clientWidth)
      .map((w) => w.getAttribute('aria-label') + ': ' + w.scrollWidth + ' > ' + w.clientWidth))`,
  );
  assert.deepEqual(JSON.parse(wide), [], 'tables that need a sideways scroll');
}

async function signIn(p: Page, email: string): Promise<void> {
  await p.goto(`${base}/dashboard/sign-in`);
  await p.getByLabel('Email').fill(email);
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${base}/dashboard`);
}

/** Adds an endpoint in the page and returns the secret it shows. */
async function addEndpoint(p: Page, url: string, description: string, events: string[] | 'all'): Promise<string> {
  await p.getByLabel('Endpoint URL').fill(url);
  if (events === 'all') {
    await p.getByLabel('All events, including types added later').check();
  } else {
    await p.getByLabel('Only the events ticked below').check();
    for (const type of events) await p.getByLabel(type, { exact: true }).check();
  }
  await p.getByLabel('Description').fill(description);
  await p.getByRole('button', { name: 'Add endpoint' }).click();
  await p.getByText('you will not see it again').waitFor();
  return p.getByLabel('Signing secret', { exact: true }).inputValue();
}

describe('webhooks in a browser', { skip }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The receiver is on loopback, a private address: allowed in this test.
    ctx = await createTestContext({ PUBLIC_URL: base, WEBHOOK_ALLOW_PRIVATE: 'true' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    receiver = await startReceiver((_req, res) => res.writeHead(answers.shift() ?? 204).end('ok'));
    handler = deliveryHandler(ctx.deps, captureLog(), { random: () => 0.5 });
    // Driven by the test (drain), not on a timer: each delivery happens when the test says.
    runner = createJobRunner(ctx.deps, captureLog(), handler);
    browser = await launchChromium();
    const desktop = await browser.newContext({ viewport: DESKTOP });
    await desktop.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const mobile = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    page = await desktop.newPage();
    phone = await mobile.newPage();
    watchConsole(page, consoleErrors);
    watchConsole(phone, consoleErrors);
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    handler?.close();
    await receiver?.close();
    await ctx?.close();
    assert.deepEqual(systemLookups, []);
    assert.deepEqual(blockedConnections, []);
  });

  test('desktop: add an endpoint, copy its secret, send a test, see the delivery, retry it', async () => {
    const account = await ctx.services.accounts.create({
      name: 'Harbour Light',
      email: 'owner@harbour.example',
      password: PASSWORD,
    });
    await signIn(page, 'owner@harbour.example');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(`${base}/dashboard/settings/webhooks`);
    await page.getByText('No endpoints yet').waitFor();
    await shot(page, 'empty');

    // A refused URL is explained in the form, with what was typed kept.
    await page.getByLabel('Endpoint URL').fill('ftp://files.example.test/in');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').getByText('Enter a full URL starting with https://').waitFor();
    assert.equal(await page.getByLabel('Endpoint URL').inputValue(), 'ftp://files.example.test/in');
    await shot(page, 'refused');

    const secret = await addEndpoint(page, receiver.url('/hooks'), 'Booking system', ['listing.created']);
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await shot(page, 'secret');

    // Once: a reload does not show it again.
    await page.reload();
    assert.ok(!(await page.content()).includes(secret), 'a reload shows the secret again');
    await page.getByText('A signing secret is shown only once').waitFor();

    answers.push(503);
    await page.getByRole('button', { name: 'Send test event for Booking system' }).click();
    await page.getByText('A webhook.test event is on its way').waitFor();
    const rows = page.getByRole('region', { name: 'Recent deliveries to Booking system' }).getByRole('row');
    assert.match((await rows.nth(1).textContent()) ?? '', /webhook\.test\s*pending/);
    await runner.drain();
    await page.reload();
    assert.match((await rows.nth(1).textContent()) ?? '', /webhook\.test\s*pending\s*next try.*\s1\s*503/s);
    await assertNoSidewaysScroll(page);
    await shot(page, 'failed-attempt');

    // The receiver got it signed with the secret the page showed.
    const [got] = receiver.received;
    assert.ok(got !== undefined);
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as { type: string };
    assert.equal(verified.type, 'webhook.test');

    await page.getByRole('button', { name: /^Retry webhook\.test delivery/ }).click();
    await page.getByText('The delivery is being sent again now').waitFor();
    await runner.drain();
    await page.reload();
    assert.match((await rows.nth(1).textContent()) ?? '', /webhook\.test\s*succeeded\s*2\s*204/);
    await shot(page, 'delivered');
    // At desktop size the deliveries table fits its card: Retry is not behind a sideways scroll.
    await assertNoSidewaysScroll(page);
    const [delivery] = (await ctx.services.webhooks.list(account.id, {})).data;
    assert.deepEqual(delivery?.events, ['listing.created']);
    assert.ok(!ctx.logs().includes(secret), 'the secret is in the log');
  });

  test('phone: the page fits, a new endpoint shows its secret, a test is delivered, disable and delete', async () => {
    await signIn(phone, 'owner@harbour.example');
    await phone.getByRole('link', { name: 'Webhooks' }).click();
    await phone.waitForURL(`${base}/dashboard/settings/webhooks`);
    await assertFitsPhone(phone);
    await shot(phone, 'list');

    const longUrl = receiver.url(`/hooks/${'very-long-path-segment-'.repeat(4)}?studio=harbour-light&token=abc`);
    const secret = await addEndpoint(phone, longUrl, 'Phone endpoint', 'all');
    assert.match(secret, /^whsec_/);
    await assertFitsPhone(phone);
    await shot(phone, 'secret');

    await phone.getByRole('button', { name: 'Send test event for Phone endpoint' }).click();
    await phone.getByText('A webhook.test event is on its way').waitFor();
    await runner.drain();
    await phone.reload();
    const region = phone.getByRole('region', { name: 'Recent deliveries to Phone endpoint' });
    await region.getByText('succeeded').waitFor();
    await assertFitsPhone(phone);
    // The Retry button is on screen, not behind a sideways scroll.
    const retry = region.getByRole('button', { name: /^Retry/ });
    await retry.scrollIntoViewIfNeeded();
    const box = await retry.boundingBox();
    assert.ok(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width, `Retry at ${JSON.stringify(box)}`);
    await shot(phone, 'delivered');

    await phone.getByRole('button', { name: 'Disable for Phone endpoint' }).click();
    await phone.getByText('The endpoint is disabled').first().waitFor();
    assert.equal(await phone.getByRole('button', { name: 'Send test event for Phone endpoint' }).count(), 0);
    await phone.getByRole('link', { name: 'Delete for Phone endpoint' }).click();
    await phone.getByRole('heading', { name: 'Delete this webhook endpoint?' }).waitFor();
    await assertFitsPhone(phone);
    await shot(phone, 'delete-confirm');
    await phone.getByRole('button', { name: 'Delete endpoint' }).click();
    await phone.getByText('The endpoint was deleted.').waitFor();
    assert.equal(await phone.getByText('Phone endpoint').count(), 0);
    await assertFitsPhone(phone);
    await shot(phone, 'after-delete');

    // The desktop's endpoint is still there, at desktop size too.
    await page.goto(`${base}/dashboard/settings/webhooks`);
    await page.getByText('Booking system').first().waitFor();
    await assertNoSidewaysScroll(page);
    await shot(page, 'list');
  });
});
