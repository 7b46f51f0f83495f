// The dashboard in a real browser (Debian's chromium driven by playwright-core) against the real
// app listening on a free port: first-run setup, sign-out and sign-in (with the keyboard), a key
// generated, used against /v1 over HTTP, revoked in the page and then refused, studio settings,
// sign-out. Screenshots of every page go to test-results/screenshots/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { freePort } from '../support/process-helpers.ts';
import { resetMails, type ResetMail } from '../support/reset-mail.ts';
import {
  assertFitsPhone,
  inPage,
  launchChromium,
  screenshot,
  skipWithoutChromium as skip,
  watchConsole,
} from '../support/e2e-browser.ts';

const OWNER = { studio: 'Harbour Light', email: 'owner@harbour.example', password: 'a long studio password' };
const PHONE = { width: 375, height: 812 };

let ctx: TestContext;
let base: string;
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let page: Page;
let phone: Page;
let key = '';
/** What the browser's console said was wrong, on any page of either browser, since the last check. */
const consoleErrors: string[] = [];

const shot = (p: Page, name: string): Promise<void> => screenshot(p, `${p === phone ? 'mobile' : 'desktop'}-${name}`);

async function api(method: string, url: string, apiKey: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('the dashboard in a browser', { skip }, () => {
  before(async () => {
    // PUBLIC_URL is where the server really listens: the reset email's link is followed as sent.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await desktop.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    // 375 px: the narrowest phone in common use (iPhone SE, mini).
    mobile = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    page = await desktop.newPage();
    phone = await mobile.newPage();
    watchConsole(page, consoleErrors);
    watchConsole(phone, consoleErrors);
  });

  // Every page of every test: a fresh browser's first visit included (the favicon).
  afterEach(() => {
    const seen = consoleErrors.splice(0);
    assert.deepEqual(seen, [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('a fresh install offers the one-time setup, which creates the account and signs in', async () => {
    await phone.goto(`${base}/dashboard`);
    assert.equal(new URL(phone.url()).pathname, '/dashboard/setup');
    await shot(phone, 'setup');

    await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/setup');
    await shot(page, 'setup');
    await page.getByLabel('Studio name').fill(OWNER.studio);
    await page.getByLabel('Your email').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByLabel('Repeat the password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Create studio account' }).click();
    await page.waitForURL(`${base}/dashboard?notice=welcome`);
    await page.getByText('Your studio is set up and you are signed in.').waitFor();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Overview');

    // The form is gone for everyone else.
    await phone.goto(`${base}/dashboard/setup`);
    assert.equal(new URL(phone.url()).pathname, '/dashboard/sign-in');
  });

  test('sign out, a wrong password is refused, then sign in with the keyboard alone', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in?notice=signed-out`);
    await page.getByText('You have signed out.').waitFor();
    await shot(page, 'sign-in');

    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('do not match an account').waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');

    // Keyboard: the email field has focus on a fresh page; Tab goes to the password; Enter submits.
    await page.goto(`${base}/dashboard/sign-in`);
    const focused = () => inPage(page, 'document.activeElement?.id || document.activeElement?.tagName');
    assert.equal(await focused(), 'f-email');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await inPage(page, 'document.activeElement?.textContent'), 'Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.type(OWNER.email);
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'f-password');
    await page.keyboard.type(OWNER.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/dashboard`);
    await shot(page, 'overview-empty');
  });

  test('generate a key: shown once with a copy button, and it works against /v1', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${base}/dashboard/settings/api`);
    await page.getByLabel('Name').fill('Website');
    await page.getByLabel('Full access').check();
    await page.getByLabel('Expires').selectOption({ label: 'In 90 days' });
    await page.getByRole('button', { name: 'Generate key' }).click();
    await page.getByText('you will not see it again').waitFor();
    key = await page.getByLabel('API key', { exact: true }).inputValue();
    assert.match(key, /^lbx_[0-9A-Za-z]{40}$/);

    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await inPage(page, 'navigator.clipboard.readText()'), key);
    await shot(page, 'keys-new-key');

    // Reload, Back and Forward are safe: the key is not shown again and no second key is made.
    const keyCount = async () =>
      (await ctx.services.apiKeys.list((await ctx.services.accounts.findByEmail(OWNER.email)).id)).length;
    assert.equal(await keyCount(), 1);
    await page.reload();
    assert.ok(!(await page.content()).includes(key), 'a reload shows the key again');
    await page.getByText('shown only once').waitFor();
    assert.equal(await keyCount(), 1, 'a reload made another key');
    await shot(page, 'keys-reloaded');
    await page.goBack();
    assert.ok(!(await page.content()).includes(key), 'Back shows the key again');
    await page.goForward();
    assert.ok(!(await page.content()).includes(key), 'Forward shows the key again');
    assert.equal(await keyCount(), 1, 'Back and Forward made another key');
    assert.ok(!ctx.logs().includes(key), 'the key is in the log');

    const list = await api('GET', '/v1/listings', key);
    assert.equal(list.status, 200);
    const created = await api('POST', '/v1/listings', key, { address: '12 Quay Street', status: 'active' });
    assert.equal(created.status, 201);
    const gallery = (await created.json()) as { id: string };
    const client = await api('POST', '/v1/clients', key, { name: 'Ann Lee', email: 'ann@client.example' });
    assert.equal(client.status, 201);
    const { id: clientId } = (await client.json()) as { id: string };
    assert.equal((await api('POST', `/v1/clients/${clientId}/listings/${gallery.id}`, key)).status, 200);

    // Reloading the list never shows the key again.
    await page.goto(`${base}/dashboard/settings/api`);
    assert.ok(!(await page.content()).includes(key));
  });

  test('the overview counts what the key created', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(`${base}/dashboard`);
    assert.equal(await page.getByTestId('galleries-total').textContent(), '1');
    await page.getByText('1 active · 0 draft · 0 archived').waitFor();
    assert.equal(await page.getByTestId('clients-total').textContent(), '1');
    // The assignment's email, with its delivery status (no worker runs in this test: still queued).
    const row = page.getByRole('region', { name: 'Latest notification emails' }).getByRole('row').nth(1);
    assert.match((await row.textContent()) ?? '', /queued\s*ann@client\.example\s*12 Quay Street\s*0/);
    await shot(page, 'overview');
  });

  test('revoke the key in the page, after confirming, and the API refuses it at once', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('link', { name: 'Revoke Website' }).click();
    await page.getByRole('heading', { name: 'Revoke the key “Website”?' }).waitFor();
    await shot(page, 'revoke-confirm');
    assert.equal((await api('GET', '/v1/listings', key)).status, 200, 'not revoked until confirmed');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key was revoked.').waitFor();
    const refused = await api('GET', '/v1/listings', key);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'unauthorized');
    await shot(page, 'keys');
  });

  test('studio settings: the names clients see', async () => {
    await page.getByRole('link', { name: 'Studio settings' }).click();
    await page.getByLabel('Studio name').fill('Harbour Light Studio');
    await page.getByLabel('Sender name').fill('Harbour Light Bookings');
    await page.getByRole('button', { name: 'Save studio' }).click();
    await page.getByText('Studio settings saved.').waitFor();
    await shot(page, 'settings');
    const account = await ctx.services.accounts.findByEmail(OWNER.email);
    assert.deepEqual([account.name, account.sender_name], ['Harbour Light Studio', 'Harbour Light Bookings']);
  });

  test('on a phone: sign in, overview, a new key, settings', async () => {
    await phone.goto(`${base}/dashboard/sign-in`);
    await shot(phone, 'sign-in');
    await phone.getByLabel('Email').fill(OWNER.email);
    await phone.getByLabel('Password').fill(OWNER.password);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.waitForURL(`${base}/dashboard`);
    await shot(phone, 'overview');
    await assertFitsPhone(phone);
    await phone.getByRole('link', { name: 'API keys' }).click();
    await phone.getByLabel('Name').fill('Phone app');
    await phone.getByLabel('Read only').check();
    await phone.getByRole('button', { name: 'Generate key' }).click();
    await phone.getByText('you will not see it again').waitFor();
    await shot(phone, 'keys-new-key');
    await assertFitsPhone(phone);
    // The key's action is on screen, not behind a sideways scroll.
    const revoke = phone.getByRole('link', { name: 'Revoke Phone app' });
    const box = await revoke.boundingBox();
    assert.ok(box !== null, 'Revoke is shown');
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `Revoke at ${box.x}..${box.x + box.width}`);
    await revoke.scrollIntoViewIfNeeded();
    await shot(phone, 'keys');
    const readOnly = await phone.getByLabel('API key', { exact: true }).inputValue();
    assert.equal((await api('GET', '/v1/listings', readOnly)).status, 200);
    assert.equal((await api('POST', '/v1/listings', readOnly, { address: 'x' })).status, 403);
    await phone.getByRole('link', { name: 'Studio settings' }).click();
    await phone.getByLabel('Studio name').waitFor();
    await shot(phone, 'settings');
    await assertFitsPhone(phone);
  });

  test('sign out: the dashboard asks to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/dashboard/sign-in?notice=signed-out`);
    await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
    await page.goto(`${base}/dashboard/settings/api`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
  });

  test('forgot password: the emailed link sets a new password, once, and signs in afresh', async () => {
    await phone.goto(`${base}/dashboard`);
    assert.equal(new URL(phone.url()).pathname, '/dashboard', 'the phone is still signed in');

    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${base}/dashboard/forgot-password`);
    await shot(page, 'forgot-password');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.waitForURL(`${base}/dashboard/forgot-password/sent`);
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await shot(page, 'forgot-password-sent');

    // The email, as the file mailer wrote it to DATA_DIR/outbox (it goes out after the answer).
    let mails: ResetMail[] = [];
    for (let i = 0; i < 100 && mails.length === 0; i += 1) {
      mails = await resetMails(ctx.dataDir);
      if (mails.length === 0) await sleep(50);
    }
    assert.equal(mails.length, 1);
    const mail = mails[0]!;
    assert.equal(mail.to, OWNER.email);
    assert.match(mail.subject, /Harbour Light Studio/);
    assert.ok(mail.link.startsWith(`${base}/dashboard/reset-password?token=`), mail.link);

    await page.goto(mail.link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await shot(page, 'reset-password');
    await page.getByLabel('New password', { exact: true }).fill('a newer studio password');
    await page.getByLabel('Repeat the new password').fill('a newer studio password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.waitForURL(`${base}/dashboard?notice=password-reset`);
    await page.getByText('Your new password is set and you are signed in.').waitFor();
    await shot(page, 'overview-after-reset');

    // Every other session ended: the phone is asked to sign in again.
    await phone.goto(`${base}/dashboard`);
    assert.equal(new URL(phone.url()).pathname, '/dashboard/sign-in');
    // The link is spent.
    await phone.goto(mail.link);
    await phone.getByRole('heading', { name: 'This link is no longer valid' }).waitFor();
    await shot(phone, 'reset-link-invalid');
    await assertFitsPhone(phone);
    await phone.getByRole('link', { name: 'Ask for a new link' }).click();
    await phone.waitForURL(`${base}/dashboard/forgot-password`);
    await shot(phone, 'forgot-password');
    // Only the new password signs in.
    await phone.goto(`${base}/dashboard/sign-in`);
    await phone.getByLabel('Email').fill(OWNER.email);
    await phone.getByLabel('Password').fill(OWNER.password);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByRole('alert').getByText('do not match an account').waitFor();
    await phone.getByLabel('Password').fill('a newer studio password');
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.waitForURL(`${base}/dashboard`);
  });
});
