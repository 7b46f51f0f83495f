// "Forgot password?" over HTTP (app.inject): the same answer for any email, the email sent after
// the answer, the link's pages (form, one "no longer valid" page), sessions ended and a fresh one
// started, the throttle, CSRF, and neither the link nor the token in the log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clockOf } from '../lib/clock.ts';
import { ACCOUNT_LIMIT } from '../modules/accounts/sign-in.service.ts';
import { RESET_VALID_MS } from '../modules/accounts/password-reset.service.ts';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts';
import { resetMails, type ResetMail } from '../../test/support/reset-mail.ts';
import { startSmtpServer } from '../../test/support/smtp-server.ts';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a new long password';
let ctx: TestContext;
let now = Date.parse('2026-11-22T10:00:00.000Z');

before(async () => {
  ctx = await createTestContext({}, { clock: clockOf(() => now) });
});
after(async () => {
  await ctx.close();
});

/** The reset emails in the outbox, once `count` of them are there (they are sent after the answer). */
async function mailsWhenThere(count: number): Promise<ResetMail[]> {
  for (let i = 0; i < 100; i += 1) {
    const mails = await resetMails(ctx.dataDir);
    if (mails.length >= count) return mails;
    await sleep(20);
  }
  return resetMails(ctx.dataDir);
}

async function askForLink(browser: Browser, email: string) {
  await browser.get('/dashboard/forgot-password');
  return browser.post('/dashboard/forgot-password', { email });
}

/** A new account, and the token of a link emailed to it. */
async function linkFor(): Promise<{ owner: TestAccount; token: string; link: string }> {
  now += 15 * 60_000;
  const owner = await createAccount(ctx, 'Reset Studio');
  await rm(path.join(ctx.dataDir, 'outbox'), { recursive: true, force: true });
  assert.equal((await askForLink(new Browser(ctx.app), owner.email)).statusCode, 303);
  const [mail] = await mailsWhenThere(1);
  assert.ok(mail !== undefined);
  return { owner, token: mail.token, link: mail.link };
}

const pathOf = (link: string): string => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

describe('asking for a link', () => {
  test('the sign-in page offers it; the form asks for the email', async () => {
    const browser = new Browser(ctx.app);
    await createAccount(ctx);
    const signIn = await browser.get('/dashboard/sign-in');
    assert.match(signIn.body, /<a href="\/dashboard\/forgot-password">Forgot your password\?<\/a>/);
    const form = await browser.get('/dashboard/forgot-password');
    assert.equal(form.statusCode, 200);
    assert.equal(form.headers['cache-control'], 'no-store');
    assert.match(form.body, /<form method="post" action="\/dashboard\/forgot-password"/);
    assert.match(form.body, /<input\s+id="f-email"\s+name="email"\s+type="email"/);
  });

  test('a known and an unknown email get the very same answer; only the account gets an email', async () => {
    now += 15 * 60_000;
    const owner = await createAccount(ctx, 'Harbour Light');
    await rm(path.join(ctx.dataDir, 'outbox'), { recursive: true, force: true });
    const answers = [];
    for (const email of [owner.email, 'nobody@nowhere.test']) {
      const browser = new Browser(ctx.app);
      const posted = await askForLink(browser, email);
      const page = await browser.follow(posted);
      answers.push({
        status: posted.statusCode,
        location: posted.headers.location,
        cookies: posted.cookies.map((c) => c.name),
        body: posted.body,
        page: page.body,
        pageStatus: page.statusCode,
      });
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal(answers[0]?.status, 303);
    assert.equal(answers[0].location, '/dashboard/forgot-password/sent');
    assert.match(
      textOf(answers[0].page),
      /If an account uses that email, a link to choose a new password is on its way/,
    );

    const mails = await mailsWhenThere(1);
    await sleep(100); // and no second one on its way
    assert.deepEqual(
      (await resetMails(ctx.dataDir)).map((m) => m.to),
      [owner.email],
    );
    assert.equal(mails[0]?.subject, 'Reset your Lightbox password for Harbour Light');
    assert.match(mails[0].link, /^http:\/\/127\.0\.0\.1:3000\/dashboard\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
  });

  test('not an email: the form again, and nothing is counted or sent', async () => {
    const browser = new Browser(ctx.app);
    const res = await askForLink(browser, 'not an email');
    assert.equal(res.statusCode, 400);
    assert.match(textOf(res.body), /Enter an email address like name@example\.com/);
  });

  test(`throttled like sign-in: after ${ACCOUNT_LIMIT} links for one email, 429, known or not alike`, async () => {
    for (const email of [(await createAccount(ctx)).email, 'ghost@nowhere.test']) {
      now += 15 * 60_000;
      for (let i = 0; i < ACCOUNT_LIMIT; i += 1) {
        assert.equal((await askForLink(new Browser(ctx.app), email)).statusCode, 303);
      }
      const refused = await askForLink(new Browser(ctx.app), email);
      assert.equal(refused.statusCode, 429, email);
      assert.equal(refused.headers['retry-after'], String(15 * 60));
      assert.match(textOf(refused.body), /Too many reset links asked for\. Try again in 15 minutes\./);
    }
  });

  test('the form needs its token, from this site; a refused post sends nothing', async () => {
    now += 15 * 60_000;
    const owner = await createAccount(ctx);
    // The earlier tests' emails are written after their answers: some may still be arriving.
    await rm(path.join(ctx.dataDir, 'outbox'), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    const browser = new Browser(ctx.app);
    await browser.get('/dashboard/forgot-password');
    const noToken = await browser.post('/dashboard/forgot-password', { email: owner.email }, { csrf: null });
    assert.equal(noToken.statusCode, 403);
    await browser.get('/dashboard/forgot-password');
    const foreign = await browser.post(
      '/dashboard/forgot-password',
      { email: owner.email },
      { headers: { origin: 'https://evil.example' } },
    );
    assert.equal(foreign.statusCode, 403);
    await sleep(100);
    assert.deepEqual(
      (await resetMails(ctx.dataDir)).filter((mail) => mail.to === owner.email),
      [],
    );
  });
});

describe('the link', () => {
  test('opens a form for the account; a new password ends every session and signs this browser in', async () => {
    const { owner, token, link } = await linkFor();
    const laptop = new Browser(ctx.app);
    assert.equal((await laptop.signIn(owner.email, PASSWORD)).statusCode, 303);

    const browser = new Browser(ctx.app);
    const form = await browser.get(pathOf(link));
    assert.equal(form.statusCode, 200);
    assert.equal(form.headers['cache-control'], 'no-store');
    assert.match(textOf(form.body), new RegExp(`Choose a new password For ${owner.email.replace(/\./g, '\\.')}`));

    const mismatch = await browser.post('/dashboard/reset-password', {
      token,
      password: NEW_PASSWORD,
      password_confirm: 'something else entirely',
    });
    assert.equal(mismatch.statusCode, 400);
    assert.match(textOf(mismatch.body), /The two passwords are not the same/);
    const short = await browser.post('/dashboard/reset-password', {
      token,
      password: 'short',
      password_confirm: 'short',
    });
    assert.equal(short.statusCode, 400);
    assert.match(textOf(short.body), /Use at least 10 characters/);
    assert.equal((await laptop.get('/dashboard')).statusCode, 200, 'a refused form changes nothing');

    const done = await browser.post('/dashboard/reset-password', {
      token,
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/dashboard?notice=password-reset');
    assert.ok(
      done.cookies.some((c) => c.name === 'lbx_session' && c.value !== ''),
      'signed in afresh',
    );
    const overview = await browser.follow(done);
    assert.equal(overview.statusCode, 200);
    assert.match(textOf(overview.body), /Your new password is set and you are signed in/);
    assert.equal((await laptop.get('/dashboard')).statusCode, 303, 'every other session ended');
    assert.equal((await new Browser(ctx.app).signIn(owner.email, PASSWORD)).statusCode, 400);
    assert.equal((await new Browser(ctx.app).signIn(owner.email, NEW_PASSWORD)).statusCode, 303);
  });

  test('used, expired or unknown: one plain "no longer valid" page, and nothing changes', async () => {
    const used = await linkFor();
    const browser = new Browser(ctx.app);
    await browser.get(pathOf(used.link));
    await browser.post('/dashboard/reset-password', {
      token: used.token,
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    const expired = await linkFor();
    const unknown = `${expired.link.slice(0, -1)}${expired.link.endsWith('A') ? 'B' : 'A'}`;
    now += RESET_VALID_MS;

    const pages: string[] = [];
    for (const url of [
      used.link,
      expired.link,
      unknown,
      '/dashboard/reset-password',
      '/dashboard/reset-password?token=',
    ]) {
      const res = await new Browser(ctx.app).get(url.startsWith('/') ? url : pathOf(url));
      assert.equal(res.statusCode, 410, url);
      pages.push(res.body);
    }
    assert.ok(pages.every((p) => p === pages[0]));
    assert.match(textOf(pages[0] ?? ''), /This link is no longer valid/);
    assert.match(pages[0] ?? '', /href="\/dashboard\/forgot-password"/);

    // Posting the form of an expired link (opened in time) changes nothing either.
    const late = new Browser(ctx.app);
    await late.get('/dashboard/forgot-password');
    const res = await late.post('/dashboard/reset-password', {
      token: expired.token,
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    assert.equal(res.statusCode, 410);
    assert.equal((await new Browser(ctx.app).signIn(expired.owner.email, PASSWORD)).statusCode, 303);
  });

  test('the form needs its token: a forged post resets nothing and leaves the link valid', async () => {
    const { owner, token, link } = await linkFor();
    const browser = new Browser(ctx.app);
    await browser.get(pathOf(link));
    const forged = await browser.post(
      '/dashboard/reset-password',
      { token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD },
      { csrf: 'A'.repeat(43) },
    );
    assert.equal(forged.statusCode, 403);
    assert.equal((await new Browser(ctx.app).get(pathOf(link))).statusCode, 200, 'the link still works');
    assert.equal((await new Browser(ctx.app).signIn(owner.email, PASSWORD)).statusCode, 303);
  });

  test('neither the token nor the link is ever written to the log', async () => {
    const { token, link } = await linkFor();
    const browser = new Browser(ctx.app);
    await browser.get(pathOf(link));
    await browser.post('/dashboard/reset-password', { token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD });
    await new Browser(ctx.app).get(pathOf(link));
    assert.ok(!ctx.logs().includes(token), 'the token is in the log');
    assert.match(ctx.logs(), /"url":"\/dashboard\/reset-password\?token=\[redacted\]"/);
    assert.match(ctx.logs(), /password reset link emailed/);
  });
});

describe('the email', () => {
  test('goes out after the answer: a send that never finishes does not hold the answer back', async () => {
    let release = (): void => undefined;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const sent: string[] = [];
    const slow = await createTestContext(
      {},
      {
        mailer: {
          kind: 'smtp',
          send: async (message) => {
            sent.push(message.to);
            await stuck;
            return { detail: '250 ok' };
          },
          close: () => undefined,
        },
      },
    );
    try {
      const owner = await createAccount(slow);
      // Awaited in the handler, the send would hold the answer until the test gave up.
      const res = await Promise.race([askForLink(new Browser(slow.app), owner.email), sleep(10_000)]);
      assert.equal(res?.statusCode, 303, 'no answer while the email was being sent');
      for (let i = 0; i < 50 && sent.length === 0; i += 1) await sleep(10);
      assert.deepEqual(sent, [owner.email], 'the send started once the answer was out');
    } finally {
      release();
      await slow.close();
    }
  });

  test('a refused send is logged, without the token', async () => {
    const smtp = await startSmtpServer('451');
    const failing = await createTestContext({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
    try {
      const owner = await createAccount(failing);
      assert.equal((await askForLink(new Browser(failing.app), owner.email)).statusCode, 303);
      for (let i = 0; i < 200 && !failing.logs().includes('not sent'); i += 1) await sleep(20);
      assert.match(failing.logs(), /"reason":"451[^"]*","msg":"password reset email not sent"/);
      const attempted = smtp.deferred[0]?.email.text ?? '';
      const token = /token=([A-Za-z0-9_-]{43})/.exec(attempted)?.[1];
      assert.ok(token !== undefined, 'the server saw the link');
      assert.ok(!failing.logs().includes(token), 'the token is in the log');
    } finally {
      await failing.close();
      await smtp.close();
    }
  });
});
