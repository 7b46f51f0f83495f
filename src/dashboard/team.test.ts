// docs/api.md §27 over HTTP (app.inject): the owner invites by email, the person joins with the
// link (valid 7 days, once) as a member who does galleries and clients but not keys, webhooks or
// the team; removing them signs them out at once. Two-factor sign-in: set up with a code, 10
// recovery codes each usable once, a code asked at sign-in (never the same one twice), the
// sign-in limits on codes, and the owner's and the operator's reset.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clockOf } from '../lib/clock.ts';
import { totpAt } from '../modules/accounts/totp.ts';
import { ACCOUNT_LIMIT } from '../modules/accounts/sign-in.service.ts';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { invitationMails } from '../../test/support/team.ts';
import { resetMails } from '../../test/support/reset-mail.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts';

const PASSWORD = 'correct horse battery';
const MEMBER_PASSWORD = 'the assistant password';
let now = Date.parse('2026-11-28T10:00:07.000Z');
let ctx: TestContext;
let studio: TestAccount;

before(async () => {
  ctx = await createTestContext({}, { clock: clockOf(() => now) });
  studio = await createAccount(ctx, 'Harbour Light');
});
after(() => ctx.close());

async function ownerBrowser(): Promise<Browser> {
  const browser = new Browser(ctx.app);
  const res = await browser.signIn(studio.email, PASSWORD);
  assert.equal(res.headers.location, '/dashboard');
  return browser;
}

/** Invites `email` through the team page; resolves to the link emailed. */
async function invite(owner: Browser, email: string): Promise<string> {
  await owner.get('/dashboard/settings/team');
  const sent = await owner.post('/dashboard/settings/team', { email });
  assert.equal(sent.statusCode, 303, textOf(sent.body));
  assert.equal(sent.headers.location, '/dashboard/settings/team?notice=invitation-sent');
  const mail = (await invitationMails(ctx.dataDir)).filter((m) => m.to === email).at(-1);
  assert.ok(mail !== undefined, 'the invitation was emailed');
  assert.match(mail.subject, /invited to Harbour Light/);
  assert.match(mail.text, /within 7 days/);
  return new URL(mail.link).pathname + new URL(mail.link).search;
}

async function join(link: string, email: string): Promise<Browser> {
  const browser = new Browser(ctx.app);
  const form = await browser.get(link);
  assert.equal(form.statusCode, 200);
  assert.match(textOf(form.body), new RegExp(`as ${email.replace('.', '\\.')}`));
  const token = new URL(link, 'http://x').searchParams.get('token') ?? '';
  const joined = await browser.post('/dashboard/invitations/accept', {
    token,
    password: MEMBER_PASSWORD,
    password_confirm: MEMBER_PASSWORD,
  });
  assert.equal(joined.headers.location, '/dashboard?notice=joined');
  return browser;
}

describe('the team', () => {
  test('an invited assistant joins as a member: galleries and clients, not keys, webhooks or the team', async () => {
    const owner = await ownerBrowser();
    const link = await invite(owner, 'assistant@harbour.test');
    const team = await owner.get('/dashboard/settings/team');
    assert.match(textOf(team.body), /Open invitations assistant@harbour\.test/);

    const assistant = await join(link, 'assistant@harbour.test');
    const overview = await assistant.get('/dashboard?notice=joined');
    assert.match(textOf(overview.body), /Welcome to the team/);
    assert.doesNotMatch(textOf(overview.body), /API keys|Webhooks|Team|Studio settings/);
    for (const path of ['/dashboard/settings/api', '/dashboard/settings/webhooks', '/dashboard/settings/team']) {
      const refused = await assistant.get(path);
      assert.equal(refused.statusCode, 403, path);
      assert.match(textOf(refused.body), /That page is the studio owner's/);
    }
    // The link worked once; the team page lists the member, and no invitation any more.
    assert.equal((await new Browser(ctx.app).get(link)).statusCode, 410);
    const after = textOf((await owner.get('/dashboard/settings/team')).body);
    assert.match(after, /assistant@harbour\.test Member/);
    assert.match(after, /No open invitations/);
    // The studio's settings show the team too.
    const settings = textOf((await owner.get('/dashboard/settings/studio')).body);
    assert.match(settings, /Team .*assistant@harbour\.test Member/);
    // And the member signs in with their own email and password.
    const again = await new Browser(ctx.app).signIn('assistant@harbour.test', MEMBER_PASSWORD);
    assert.equal(again.headers.location, '/dashboard');
  });

  test('an invitation link stops working after 7 days, and when withdrawn', async () => {
    const owner = await ownerBrowser();
    const late = await invite(owner, 'late@harbour.test');
    now += 7 * 86_400_000 + 1000;
    assert.equal((await new Browser(ctx.app).get(late)).statusCode, 410);
    const owner2 = await ownerBrowser();
    const withdrawn = await invite(owner2, 'withdrawn@harbour.test');
    const page = await owner2.get('/dashboard/settings/team');
    const id = /team\/invitations\/(inv_[0-9A-Z]+)\/revoke/.exec(page.body)?.[1] ?? '';
    const res = await owner2.post(`/dashboard/settings/team/invitations/${id}/revoke`, {});
    assert.equal(res.headers.location, '/dashboard/settings/team?notice=invitation-revoked');
    assert.equal((await new Browser(ctx.app).get(withdrawn)).statusCode, 410);
  });

  test('an email that already signs in to a team cannot be invited', async () => {
    const owner = await ownerBrowser();
    await owner.get('/dashboard/settings/team');
    const res = await owner.post('/dashboard/settings/team', { email: studio.email.toUpperCase() });
    assert.equal(res.statusCode, 400);
    assert.match(textOf(res.body), /already signs in to a Lightbox team/);
  });

  test('removing a member ends their sessions at once', async () => {
    const owner = await ownerBrowser();
    const member = await join(await invite(owner, 'leaving@harbour.test'), 'leaving@harbour.test');
    assert.equal((await member.get('/dashboard')).statusCode, 200);
    const { users } = await ctx.services.team.list(studio.accountId);
    const leaving = users.find((u) => u.email === 'leaving@harbour.test');
    assert.ok(leaving !== undefined);
    const confirm = await owner.get(`/dashboard/settings/team/${leaving.id}/remove`);
    assert.match(textOf(confirm.body), /Remove leaving@harbour\.test\?/);
    const removed = await owner.post(`/dashboard/settings/team/${leaving.id}/remove`, {});
    assert.equal(removed.headers.location, '/dashboard/settings/team?notice=member-removed');
    const next = await member.get('/dashboard');
    assert.equal(next.statusCode, 303);
    assert.equal(next.headers.location, '/dashboard/sign-in');
    const refused = await new Browser(ctx.app).signIn('leaving@harbour.test', MEMBER_PASSWORD);
    assert.equal(refused.statusCode, 400);
    // The owner cannot be removed (nor is any other account's member found).
    assert.equal((await owner.get(`/dashboard/settings/team/${studio.userId}/remove`)).statusCode, 404);
  });
});

/** The reset link emailed to `to` (sent after the form's answer: it may take a moment). */
async function waitForResetLink(to: string): Promise<string> {
  for (let i = 0; i < 100; i += 1) {
    const mail = (await resetMails(ctx.dataDir)).find((m) => m.to === to);
    if (mail !== undefined) return new URL(mail.link).pathname + new URL(mail.link).search;
    await sleep(20);
  }
  throw new Error(`no reset link emailed to ${to}`);
}

describe('two-factor sign-in', () => {
  let email = '';
  let secret = '';
  let codes: string[] = [];

  async function passwordStep(address?: string): Promise<Browser> {
    const browser = new Browser(ctx.app, address);
    const res = await browser.signIn(email, MEMBER_PASSWORD);
    assert.equal(res.headers.location, '/dashboard/sign-in/code', textOf(res.body));
    const form = await browser.get('/dashboard/sign-in/code');
    assert.equal(form.statusCode, 200);
    return browser;
  }

  /** The code of the next step: the one just used (by the set-up, say) is never accepted again. */
  const nextCode = (): string => totpAt(secret, now + 30_000);

  before(async () => {
    const owner = await ownerBrowser();
    email = 'twofactor@harbour.test';
    const member = await join(await invite(owner, email), email);
    const setup = await member.get('/dashboard/account/two-factor');
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /<svg[^>]+class="qr"[^>]+role="img"/);
    secret = (/<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(setup.body)?.[1] ?? '').replace(/ /g, '');
    assert.equal(secret.length, 32);
    // Kept sealed: the row alone does not give the secret away.
    const row = await ctx.deps.db.kysely
      .selectFrom('users')
      .select('totp_secret')
      .where('email_normalized', '=', email)
      .executeTakeFirstOrThrow();
    assert.ok(row.totp_secret?.startsWith('v1.') === true && !row.totp_secret.includes(secret));
    const wrong = await member.post('/dashboard/account/two-factor', { code: '000000' });
    assert.equal(wrong.statusCode, 400);
    const on = await member.post('/dashboard/account/two-factor', { code: totpAt(secret, now) });
    assert.equal(on.statusCode, 200);
    codes = [...on.body.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map((m) => m[1] ?? '');
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    // Shown once: the page of one's sign-in says how many are left, never which.
    const you = await member.get('/dashboard/account');
    assert.match(textOf(you.body), /10 of 10 recovery codes left/);
    for (const code of codes) assert.ok(!you.body.includes(code));
    const stored = await ctx.deps.db.kysely.selectFrom('recovery_codes').select('code_hash').execute();
    for (const code of codes) assert.ok(!stored.some((r) => r.code_hash.includes(code)));
  });

  test('sign-in asks for a code; the right one signs in, the same one again does not', async () => {
    const browser = await passwordStep();
    // Only the password: no session yet.
    assert.equal((await browser.get('/dashboard')).headers.location, '/dashboard/sign-in');
    await browser.get('/dashboard/sign-in/code');
    const wrong = await browser.post('/dashboard/sign-in/code', { code: '123456' });
    assert.equal(wrong.statusCode, 400);
    const code = nextCode();
    const done = await browser.post('/dashboard/sign-in/code', { code });
    assert.equal(done.headers.location, '/dashboard');
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
    const replay = await passwordStep();
    const again = await replay.post('/dashboard/sign-in/code', { code });
    assert.equal(again.statusCode, 400, 'a code is accepted once');
  });

  test('a recovery code signs in once', async () => {
    now += 60_000;
    const first = await passwordStep();
    const used = await first.post('/dashboard/sign-in/code', { code: codes[0]?.toUpperCase() ?? '' });
    assert.equal(used.headers.location, '/dashboard');
    assert.match(textOf((await first.get('/dashboard/account')).body), /9 of 10 recovery codes left/);
    const second = await passwordStep();
    assert.equal((await second.post('/dashboard/sign-in/code', { code: codes[0] ?? '' })).statusCode, 400);
  });

  test('code attempts count against the sign-in limits; a right password does not forgive them', async () => {
    now += 60 * 60_000;
    let browser = await passwordStep('198.51.100.7');
    for (let i = 0; i < ACCOUNT_LIMIT - 1; i += 1) {
      assert.equal((await browser.post('/dashboard/sign-in/code', { code: `00000${i}` })).statusCode, 400);
    }
    // The password again (it is right) does not reset the count of wrong codes.
    browser = await passwordStep('198.51.100.8');
    assert.equal((await browser.post('/dashboard/sign-in/code', { code: '999999' })).statusCode, 400);
    const right = await browser.post('/dashboard/sign-in/code', { code: nextCode() });
    assert.equal(right.statusCode, 429, 'past the limit even a right code waits');
    assert.ok(Number(right.headers['retry-after']) > 0);
    const password = await new Browser(ctx.app, '198.51.100.9').signIn(email, MEMBER_PASSWORD);
    assert.equal(password.statusCode, 429, 'and so does the password');
  });

  test('a reset link sets the password but does not sign a two-factor person in', async () => {
    now += 16 * 60_000;
    const forgot = new Browser(ctx.app);
    await forgot.get('/dashboard/forgot-password');
    await forgot.post('/dashboard/forgot-password', { email });
    const link = await waitForResetLink(email);
    const browser = new Browser(ctx.app);
    await browser.get(link);
    const done = await browser.post('/dashboard/reset-password', {
      token: new URL(link, 'http://x').searchParams.get('token') ?? '',
      password: MEMBER_PASSWORD,
      password_confirm: MEMBER_PASSWORD,
    });
    assert.equal(done.headers.location, '/dashboard/sign-in?notice=password-reset-sign-in');
    assert.equal((await browser.get('/dashboard')).headers.location, '/dashboard/sign-in');
    // The password works, and the code is still asked for.
    await passwordStep();
  });

  test('a pending sign-in ends after 10 minutes', async () => {
    now += 16 * 60_000; // past the limits of the test before
    const browser = await passwordStep();
    now += 10 * 60_000 + 1000;
    const late = await browser.post('/dashboard/sign-in/code', { code: nextCode() });
    assert.equal(late.headers.location, '/dashboard/sign-in?notice=sign-in-again');
  });

  test("the owner turns a member's two-factor off: their sessions end, the password alone signs in", async () => {
    now += 60_000;
    const member = await passwordStep();
    assert.equal((await member.post('/dashboard/sign-in/code', { code: nextCode() })).headers.location, '/dashboard');
    const owner = await ownerBrowser();
    const team = await owner.get('/dashboard/settings/team');
    const id = /team\/(usr_[0-9A-Z]+)\/reset-2fa/.exec(team.body)?.[1] ?? '';
    const res = await owner.post(`/dashboard/settings/team/${id}/reset-2fa`, {});
    assert.equal(res.headers.location, '/dashboard/settings/team?notice=two-factor-reset');
    assert.equal((await member.get('/dashboard')).headers.location, '/dashboard/sign-in');
    const plain = await new Browser(ctx.app).signIn(email, MEMBER_PASSWORD);
    assert.equal(plain.headers.location, '/dashboard');
    assert.equal(
      await ctx.deps.db.kysely.selectFrom('recovery_codes').select('code_hash').executeTakeFirst(),
      undefined,
    );
  });

  test("the operator turns the owner's two-factor off by email (lightbox accounts reset-2fa)", async () => {
    now += 60_000;
    const owner = await ownerBrowser();
    const setup = await owner.get('/dashboard/account/two-factor');
    const ownerSecret = (/<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(setup.body)?.[1] ?? '').replace(
      / /g,
      '',
    );
    assert.equal(
      (await owner.post('/dashboard/account/two-factor', { code: totpAt(ownerSecret, now) })).statusCode,
      200,
    );
    const asked = await new Browser(ctx.app).signIn(studio.email, PASSWORD);
    assert.equal(asked.headers.location, '/dashboard/sign-in/code');
    const done = await ctx.services.twoFactor.resetByEmail(studio.email.toUpperCase());
    assert.ok(done.sessionsEnded >= 1);
    assert.equal((await owner.get('/dashboard')).headers.location, '/dashboard/sign-in');
    const plain = await new Browser(ctx.app).signIn(studio.email, PASSWORD);
    assert.equal(plain.headers.location, '/dashboard');
  });
});

describe('turning one’s own two-factor off', () => {
  test('needs a right code (or a recovery code); a wrong one changes nothing', async () => {
    now += 20 * 60_000;
    const owner = await ownerBrowser();
    const setup = await owner.get('/dashboard/account/two-factor');
    const secret = (/<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(setup.body)?.[1] ?? '').replace(/ /g, '');
    assert.equal((await owner.post('/dashboard/account/two-factor', { code: totpAt(secret, now) })).statusCode, 200);
    await owner.get('/dashboard/account');
    const wrong = await owner.post('/dashboard/account/two-factor/disable', { code: '000000' });
    assert.equal(wrong.statusCode, 400);
    assert.match(textOf(wrong.body), /That code is not right/);
    assert.match(textOf((await owner.get('/dashboard/account')).body), /On Signing in asks for a code/);
    const off = await owner.post('/dashboard/account/two-factor/disable', { code: totpAt(secret, now + 30_000) });
    assert.equal(off.headers.location, '/dashboard/account?notice=two-factor-off');
    assert.match(
      textOf((await owner.get('/dashboard/account?notice=two-factor-off')).body),
      /Two-factor sign-in is off/,
    );
    const plain = await new Browser(ctx.app).signIn(studio.email, PASSWORD);
    assert.equal(plain.headers.location, '/dashboard');
  });
});

describe('setting two-factor up', () => {
  test('wrong set-up codes count against the sign-in limits: past them even the right code waits', async () => {
    now += 60 * 60_000;
    const owner = await ownerBrowser();
    const email = 'setup-limit@harbour.test';
    const member = await join(await invite(owner, email), email);
    const setup = await member.get('/dashboard/account/two-factor');
    const secret = (/<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(setup.body)?.[1] ?? '').replace(/ /g, '');
    assert.equal(secret.length, 32);
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) {
      const wrong = await member.post('/dashboard/account/two-factor', { code: `00000${i}` });
      assert.equal(wrong.statusCode, 400, `wrong code ${i + 1}`);
    }
    const right = await member.post('/dashboard/account/two-factor', { code: totpAt(secret, now) });
    assert.equal(right.statusCode, 429, 'past the limit even a right code waits');
    assert.ok(Number(right.headers['retry-after']) > 0);
    assert.match(textOf(right.body), /Set up two-factor sign-in/);
    assert.match(textOf((await member.get('/dashboard/account')).body), /Off Your password alone signs you in/);
    // Once the window has passed, the right code turns it on.
    now += 60 * 60_000;
    const on = await member.post('/dashboard/account/two-factor', { code: totpAt(secret, now) });
    assert.equal(on.statusCode, 200, textOf(on.body));
    assert.match(textOf(on.body), /recovery codes/i);
  });
});
