// docs/api.md §27 in a real browser (Debian's chromium, playwright-core) at 390 px and 1280 px:
// the owner invites an assistant on the team page; the assistant follows the emailed link,
// chooses a password, sees galleries and clients but no keys, webhooks or team (and a 403 page
// if they try), sets up two-factor sign-in from the QR code, keeps the recovery codes, signs in
// with a code and then with a recovery code; the owner removes them and they are signed out at
// once. Every page is checked with axe-core (no serious or critical violation) under the strict
// CSP, and screenshotted to test-results/screenshots/team-*.png.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpAt } from '../../src/modules/accounts/totp.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { freePort } from '../support/process-helpers.ts';
import { addMember, invitationMails } from '../support/team.ts';
import {
  assertAccessible,
  assertFitsPhone,
  inPage,
  launchChromium,
  screenshot,
  skipWithoutChromium as skip,
  watchConsole,
} from '../support/e2e-browser.ts';

const PASSWORD = 'correct horse battery';
const MEMBER_PASSWORD = 'an assistant password';
const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 860 }, isMobile: false, hasTouch: false },
] as const;

let ctx: TestContext;
let base: string;
let browser: Browser;
const consoleErrors: string[] = [];

/** The page, checked (axe, and no sideways scroll on a phone) and screenshotted. */
async function look(p: Page, tag: string, name: string): Promise<void> {
  await assertAccessible(p, name);
  if (tag === 'phone') {
    await assertFitsPhone(p);
    // A mobile browser widens its layout to fit wide content: the page must fit the screen itself.
    const width = Number(await inPage(p, 'document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `${name} (${p.url()}) is ${width} px wide on a 390 px phone`);
  }
  await screenshot(p, `team-${tag}-${name}`);
}

describe('a team and two-factor sign-in in a browser', { skip }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const { name: tag, ...device } of VIEWPORTS) {
    test(`at ${device.viewport.width} px: every page of the owner and of a member passes axe-core`, async () => {
      const studio = await createAccount(ctx, `Pages ${tag}`);
      const memberEmail = `pages.${tag}@harbour.test`;
      await addMember(ctx, studio.accountId, memberEmail, MEMBER_PASSWORD);
      const context = await browser.newContext(device);
      const p = await context.newPage();
      watchConsole(p, consoleErrors);
      try {
        const pages = {
          owner: [
            ['overview', '/dashboard', 200],
            ['keys', '/dashboard/settings/api', 200],
            ['keys-test-mode', '/dashboard/settings/api?mode=test', 200],
            ['delete-test-data', '/dashboard/settings/api/test-data/delete', 200],
            ['webhooks', '/dashboard/settings/webhooks', 200],
            ['team', '/dashboard/settings/team', 200],
            ['studio', '/dashboard/settings/studio', 200],
            ['your-sign-in', '/dashboard/account', 200],
            ['two-factor-setup', '/dashboard/account/two-factor', 200],
          ],
          member: [
            ['overview', '/dashboard', 200],
            ['your-sign-in', '/dashboard/account', 200],
            ['two-factor-setup', '/dashboard/account/two-factor', 200],
            ['keys-refused', '/dashboard/settings/api', 403],
            ['webhooks-refused', '/dashboard/settings/webhooks', 403],
            ['team-refused', '/dashboard/settings/team', 403],
            ['studio-refused', '/dashboard/settings/studio', 403],
          ],
        } as const;
        for (const role of ['owner', 'member'] as const) {
          await p.goto(`${base}/dashboard/sign-in`);
          await p.getByLabel('Email').fill(role === 'owner' ? studio.email : memberEmail);
          await p.getByLabel('Password').fill(role === 'owner' ? PASSWORD : MEMBER_PASSWORD);
          await p.getByRole('button', { name: 'Sign in' }).click();
          await p.waitForURL(`${base}/dashboard`);
          for (const [name, path, status] of pages[role]) {
            const res = await p.goto(`${base}${path}`);
            assert.equal(res?.status(), status, `${role} ${path}`);
            await look(p, tag, `${role}-${name}`);
          }
          await p.getByRole('button', { name: 'Sign out' }).click();
          await p.waitForURL(`${base}/dashboard/sign-in?notice=signed-out`);
        }
      } finally {
        await context.close();
      }
    });

    test(`at ${device.viewport.width} px: invite, join, two-factor, sign in with a code and a recovery code, removal`, async () => {
      const studio: TestAccount = await createAccount(ctx, `Harbour Light ${tag}`);
      const assistantEmail = `assistant.${tag}@harbour.test`;
      const ownerContext: BrowserContext = await browser.newContext(device);
      const memberContext: BrowserContext = await browser.newContext(device);
      const owner = await ownerContext.newPage();
      const member = await memberContext.newPage();
      watchConsole(owner, consoleErrors);
      watchConsole(member, consoleErrors);
      try {
        // The owner signs in and invites the assistant from the team page.
        await owner.goto(`${base}/dashboard/sign-in`);
        await owner.getByLabel('Email').fill(studio.email);
        await owner.getByLabel('Password').fill(PASSWORD);
        await owner.getByRole('button', { name: 'Sign in' }).click();
        await owner.waitForURL(`${base}/dashboard`);
        if (tag === 'phone') await owner.goto(`${base}/dashboard/settings/team`);
        else await owner.getByRole('link', { name: 'Team' }).click();
        await owner.waitForURL(`${base}/dashboard/settings/team`);
        await look(owner, tag, 'team');
        await owner.getByLabel('Email').fill(assistantEmail);
        await owner.getByRole('button', { name: 'Send invitation' }).click();
        await owner.getByText('The invitation is on its way.').waitFor();
        await owner.getByText(assistantEmail, { exact: true }).waitFor();
        await look(owner, tag, 'team-invited');

        // The assistant follows the emailed link and chooses a password.
        const mail = (await invitationMails(ctx.dataDir)).find((m) => m.to === assistantEmail);
        assert.ok(mail !== undefined, 'the invitation was emailed');
        await member.goto(mail.link);
        await member.getByRole('heading', { name: `Join Harbour Light ${tag}` }).waitFor();
        await look(member, tag, 'accept');
        await member.getByLabel('Password', { exact: true }).fill(MEMBER_PASSWORD);
        await member.getByLabel('Repeat the password').fill(MEMBER_PASSWORD);
        await member.getByRole('button', { name: 'Join the team' }).click();
        await member.waitForURL(`${base}/dashboard?notice=joined`);
        await member.getByText('Welcome to the team').waitFor();
        await look(member, tag, 'member-overview');
        // Galleries and clients; no keys, webhooks, team or studio settings anywhere on the page.
        const nav = await inPage(
          member,
          `[...document.querySelectorAll('a')].map((a) => a.getAttribute('href')).join(' ')`,
        );
        for (const path of ['settings/api', 'settings/webhooks', 'settings/team', 'settings/studio']) {
          assert.ok(!nav.includes(`/dashboard/${path}`), `the member's page links to ${path}`);
        }
        assert.equal(await member.getByText('API keys').count(), 0);
        // The assistant's work: a gallery and a client, through the pages of everyone on the team.
        await member.goto(`${base}/dashboard/galleries/new`);
        await member.getByLabel('Address').fill(`1 Assistant Row, ${tag}`);
        await member.getByRole('button', { name: 'Create gallery' }).click();
        await member.getByText('Gallery created.').waitFor();
        await look(member, tag, 'member-gallery');
        await member.goto(`${base}/dashboard/clients/new`);
        await member.getByLabel('Name').fill('Cara Doe');
        await member.getByLabel('Email').fill(`cara.${tag}@client.example`);
        await member.getByRole('button', { name: 'Add client' }).click();
        await member.getByText('Client added.').waitFor();
        await look(member, tag, 'member-client');
        const refused = await member.goto(`${base}/dashboard/settings/api`);
        assert.equal(refused?.status(), 403);
        await member.getByRole('heading', { name: "That page is the studio owner's" }).waitFor();
        await look(member, tag, 'member-refused');

        // Two-factor set-up from the QR code the app draws.
        await member.goto(`${base}/dashboard/account`);
        await look(member, tag, 'your-sign-in');
        await member.getByRole('link', { name: 'Set up two-factor sign-in' }).click();
        await member.waitForURL(`${base}/dashboard/account/two-factor`);
        const qr = member.getByRole('img', { name: 'QR code to scan with an authenticator app' });
        const box = await qr.boundingBox();
        assert.ok(box !== null && box.width >= 160 && box.width <= device.viewport.width, `QR code ${box?.width} px`);
        await look(member, tag, 'two-factor-setup');
        const secret = ((await member.locator('code.secret').textContent()) ?? '').replace(/\s/g, '');
        await member.getByLabel('Code from the app').fill('000000');
        await member.getByRole('button', { name: 'Turn on two-factor' }).click();
        await member.getByText('That is not the code the app shows now').first().waitFor();
        await look(member, tag, 'two-factor-wrong-code');
        await member.getByLabel('Code from the app').fill(totpAt(secret, Date.now()));
        await member.getByRole('button', { name: 'Turn on two-factor' }).click();
        await member.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
        await look(member, tag, 'recovery-codes');
        const codes = (await member.locator('.recovery-codes code').allTextContents()).map((c) => c.trim());
        assert.equal(codes.length, 10);
        await member.getByRole('link', { name: 'Done' }).click();
        await member.getByText('10 of 10 recovery codes left').waitFor();

        // Sign out; signing in now asks for a code after the password.
        await member.getByRole('button', { name: 'Sign out' }).click();
        await member.waitForURL(`${base}/dashboard/sign-in?notice=signed-out`);
        await member.getByLabel('Email').fill(assistantEmail);
        await member.getByLabel('Password').fill(MEMBER_PASSWORD);
        await member.getByRole('button', { name: 'Sign in' }).click();
        await member.waitForURL(`${base}/dashboard/sign-in/code`);
        await look(member, tag, 'sign-in-code');
        await member.getByLabel('Code').fill('111111');
        await member.getByRole('button', { name: 'Sign in' }).click();
        await member.getByText('That code is not right').waitFor();
        await look(member, tag, 'sign-in-code-wrong');
        // The next step's code: the set-up's own is never accepted again.
        await member.getByLabel('Code').fill(totpAt(secret, Date.now() + 30_000));
        await member.getByRole('button', { name: 'Sign in' }).click();
        await member.waitForURL(`${base}/dashboard`);

        // And with a recovery code, typed with the keyboard alone.
        await member.getByRole('button', { name: 'Sign out' }).click();
        await member.waitForURL(`${base}/dashboard/sign-in?notice=signed-out`);
        await member.getByLabel('Email').fill(assistantEmail);
        await member.getByLabel('Password').fill(MEMBER_PASSWORD);
        await member.keyboard.press('Enter');
        await member.waitForURL(`${base}/dashboard/sign-in/code`);
        assert.equal(await inPage(member, 'document.activeElement?.id'), 'f-code');
        await member.keyboard.type(codes[3] ?? '');
        await member.keyboard.press('Enter');
        await member.waitForURL(`${base}/dashboard`);
        await member.goto(`${base}/dashboard/account`);
        await member.getByText('9 of 10 recovery codes left').waitFor();

        // The owner sees the member with two-factor on, and removes them: signed out at once.
        await owner.goto(`${base}/dashboard/settings/team`);
        const twoFactor = owner.locator('tr', { hasText: assistantEmail }).locator('td[data-label="Two-factor"]');
        assert.equal((await twoFactor.textContent())?.trim(), 'On');
        await owner.getByRole('link', { name: `Remove ${assistantEmail}` }).click();
        await owner.getByRole('heading', { name: `Remove ${assistantEmail}?` }).waitFor();
        await look(owner, tag, 'remove-member');
        await owner.getByRole('button', { name: 'Remove member' }).click();
        await owner.getByText('The member was removed and signed out everywhere.').waitFor();
        await member.reload();
        assert.equal(new URL(member.url()).pathname, '/dashboard/sign-in');
      } finally {
        await ownerContext.close();
        await memberContext.close();
      }
    });
  }
});
