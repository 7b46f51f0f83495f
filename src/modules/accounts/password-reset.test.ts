// "Forgot password?" on a real database, with a clock the tests move and the file mailer (the
// embedded default) writing real .eml files: what is stored, the email, expiry, single use, the
// sessions a reset ends, and the throttle.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { resetMails } from '../../../test/support/reset-mail.ts';
import { clockOf } from '../../lib/clock.ts';
import { createPasswordResetService, RESET_VALID_MS, type ResetRequest } from './password-reset.service.ts';
import { createSessionsService } from './sessions.service.ts';
import { ACCOUNT_LIMIT, ADDRESS_LIMIT, SIGN_IN_WINDOW_MS, createSignInService } from './sign-in.service.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;
let now = Date.parse('2026-11-22T10:00:00.000Z');
const clock = clockOf(() => now);
let serial = 0;
const freshAddress = () => `203.0.113.${(serial += 1)}`;

before(async () => {
  ctx = await createTestContext({ PUBLIC_URL: 'https://studio.example.com' });
});
after(async () => {
  await ctx.close();
});

const resets = () => createPasswordResetService({ ...ctx.deps, clock, writes: ctx.services.writes });
const sessions = () => createSessionsService({ db: ctx.deps.db, clock });
const signIn = (email: string, password: string) =>
  createSignInService({ db: ctx.deps.db, clock }).signIn({ email, password, address: freshAddress() });
const outbox = () => path.join(ctx.dataDir, 'outbox');

/** Asks for a link and delivers it, as the dashboard does after answering. */
async function requestLink(email: string, address = freshAddress()): Promise<ResetRequest> {
  const result = await resets().request({ email, address });
  if (result.outcome === 'accepted') await result.deliver();
  return result;
}

/** Asks for a link for the account and returns the token its email carries. */
async function linkFor(who: TestAccount): Promise<string> {
  await rm(outbox(), { recursive: true, force: true });
  assert.equal((await requestLink(who.email)).outcome, 'accepted');
  const [mail] = await resetMails(ctx.dataDir);
  assert.ok(mail !== undefined, 'an email was written');
  return mail.token;
}

const storedResets = () => ctx.deps.db.kysely.selectFrom('password_resets').selectAll().execute();

describe('asking for a link', () => {
  test('stores only the SHA-256 of a 256-bit token, and emails the single-use link', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx, 'Harbour <b>Light</b>');
    await rm(outbox(), { recursive: true, force: true });
    assert.equal((await requestLink(`  ${who.email.toUpperCase()} `)).outcome, 'accepted');
    const mails = await resetMails(ctx.dataDir);
    assert.equal(mails.length, 1);
    const mail = mails[0]!;
    assert.equal(mail.to, who.email);
    assert.equal(mail.from, 'Lightbox <no-reply@localhost>');
    assert.equal(mail.subject, 'Reset your Lightbox password for Harbour <b>Light</b>');
    assert.match(mail.link, /^https:\/\/studio\.example\.com\/dashboard\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(mail.token, 'base64url').length, 32, 'at least 128 random bits');
    assert.match(mail.text, /works once, within 30 minutes/);
    // The HTML part escapes the studio name and links the same URL.
    assert.ok(mail.html.includes('Harbour &lt;b&gt;Light&lt;/b&gt;'));
    assert.ok(mail.html.includes(`href="${mail.link}"`));

    const rows = (await storedResets()).filter((r) => r.account_id === who.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.token_hash, createHash('sha256').update(mail.token).digest('hex'));
    assert.ok(!JSON.stringify(await storedResets()).includes(mail.token), 'the token itself is stored');
    assert.equal(Date.parse(rows[0]!.expires_at) - Date.parse(rows[0]!.created_at), RESET_VALID_MS);
  });

  test('an unknown email gets the same answer, and nothing is stored or sent', async () => {
    now += SIGN_IN_WINDOW_MS;
    await rm(outbox(), { recursive: true, force: true });
    const before = (await storedResets()).length;
    const result = await resets().request({ email: 'nobody@nowhere.test', address: freshAddress() });
    assert.equal(result.outcome, 'accepted');
    assert.deepEqual(Object.keys(result), ['outcome', 'deliver']);
    assert.equal(await (result as { deliver: () => Promise<boolean> }).deliver(), false);
    assert.equal((await storedResets()).length, before);
    assert.deepEqual(await resetMails(ctx.dataDir), []);
  });
});

describe('using a link', () => {
  test('works until 30 minutes have passed, then never (on a moved clock)', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx);
    const token = await linkFor(who);
    now += RESET_VALID_MS - 1;
    assert.deepEqual(await resets().inspect(token), { email: who.email });
    now += 1;
    assert.equal(await resets().inspect(token), null);
    assert.equal(await resets().complete(token, 'a brand new password'), null);
    assert.equal((await signIn(who.email, PASSWORD)).outcome, 'signed_in', 'the password is unchanged');
  });

  test('sets the password once: every session and every other link of the account end', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx);
    const other = await createAccount(ctx);
    const mine = [await sessions().create(who.accountId), await sessions().create(who.accountId)];
    const theirs = await sessions().create(other.accountId);
    const first = await linkFor(who);
    const second = await linkFor(who);
    const otherLink = await linkFor(other);

    assert.deepEqual(await resets().complete(second, 'a brand new password'), {
      accountId: who.accountId,
      userId: who.userId,
    });
    for (const s of mine) assert.equal(await sessions().authenticate(s.token), null);
    assert.equal(await sessions().countOf(who.accountId), 0);
    assert.notEqual(await sessions().authenticate(theirs.token), null, 'another account is untouched');
    assert.equal((await signIn(who.email, PASSWORD)).outcome, 'invalid');
    assert.equal((await signIn(who.email, 'a brand new password')).outcome, 'signed_in');

    // Used: neither it nor the account's other link works again.
    assert.equal(await resets().inspect(second), null);
    assert.equal(await resets().complete(second, 'yet another password'), null);
    assert.equal(await resets().complete(first, 'yet another password'), null);
    assert.equal((await signIn(who.email, 'a brand new password')).outcome, 'signed_in');
    assert.deepEqual(await resets().inspect(otherLink), { email: other.email });
  });

  test('two uses of one link at once: exactly one sets the password', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx);
    const token = await linkFor(who);
    const results = await Promise.all([
      resets().complete(token, 'first racing password'),
      resets().complete(token, 'second racing password'),
    ]);
    assert.equal(results.filter((r) => r !== null).length, 1, JSON.stringify(results));
    const won = results[0] === null ? 'second racing password' : 'first racing password';
    assert.equal((await signIn(who.email, won)).outcome, 'signed_in');
  });

  test('a password against the rules is refused and leaves the link as it was', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx);
    const token = await linkFor(who);
    await assert.rejects(resets().complete(token, 'short'), (err: unknown) => {
      assert.deepEqual((err as { details: { field: string }[] }).details[0]?.field, 'password');
      return true;
    });
    assert.deepEqual(await resets().inspect(token), { email: who.email });
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [undefined, '', 'x', token.slice(1), altered]) {
      assert.equal(await resets().inspect(wrong), null, String(wrong));
    }
  });

  test('lifts the sign-in lock: whoever holds the link controls the email', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx);
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) await signIn(who.email, `wrong ${i} password`);
    assert.equal((await signIn(who.email, PASSWORD)).outcome, 'throttled');
    assert.notEqual(await resets().complete(await linkFor(who), 'a brand new password'), null);
    assert.equal((await signIn(who.email, 'a brand new password')).outcome, 'signed_in');
  });
});

describe('the throttle', () => {
  test(`after ${ACCOUNT_LIMIT} links for one email, refused from any address: known or not alike`, async () => {
    for (const email of [(await createAccount(ctx)).email, 'ghost@nowhere.test']) {
      now += SIGN_IN_WINDOW_MS;
      for (let i = 0; i < ACCOUNT_LIMIT; i += 1) assert.equal((await requestLink(email)).outcome, 'accepted');
      const refused = await resets().request({ email: email.toUpperCase(), address: freshAddress() });
      assert.deepEqual(refused, { outcome: 'throttled', retryAfterSeconds: SIGN_IN_WINDOW_MS / 1000 }, email);
    }
  });

  test(`after ${ADDRESS_LIMIT} links from one address, refused whatever the email`, async () => {
    now += SIGN_IN_WINDOW_MS;
    const address = '198.51.100.77';
    for (let i = 0; i < ADDRESS_LIMIT; i += 1) {
      assert.equal((await requestLink(`someone${i}@nowhere.test`, address)).outcome, 'accepted');
    }
    assert.equal((await resets().request({ email: 'new@nowhere.test', address })).outcome, 'throttled');
    now += SIGN_IN_WINDOW_MS;
    assert.equal((await resets().request({ email: 'new@nowhere.test', address })).outcome, 'accepted');
  });

  test('a budget apart from sign-in: links asked for lock nobody out, failed sign-ins block no link', async () => {
    now += SIGN_IN_WINDOW_MS;
    const who = await createAccount(ctx);
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) await requestLink(who.email);
    assert.equal((await signIn(who.email, PASSWORD)).outcome, 'signed_in');
    now += SIGN_IN_WINDOW_MS;
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) await signIn(who.email, `wrong ${i} password`);
    assert.equal((await requestLink(who.email)).outcome, 'accepted');
  });
});
