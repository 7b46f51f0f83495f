// The dashboard over HTTP (app.inject): first-run setup, response headers, cookies, escaping,
// CSRF, sign-in answers, and the /v1 API left exactly as it was.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTENT_SECURITY_POLICY } from './security.ts';
import { Browser, inputValue, textOf } from '../../test/support/dashboard-browser.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

const PASSWORD = 'correct horse battery';

function assertPageHeaders(res: { headers: Record<string, unknown> }): void {
  assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
  assert.equal(res.headers['x-frame-options'], 'DENY');
  assert.equal(res.headers['referrer-policy'], 'same-origin');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['cache-control'], 'no-store');
}

describe('first run', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => {
    await ctx.close();
  });

  test('with no account, the dashboard sends the visitor to the setup form, which creates it once', async () => {
    const browser = new Browser(ctx.app);
    for (const path of ['/dashboard', '/dashboard/sign-in', '/dashboard/settings/api']) {
      const res = await browser.get(path);
      assert.equal(res.statusCode, 303, path);
      assert.equal(res.headers.location, path === '/dashboard/settings/api' ? '/dashboard/setup' : '/dashboard/setup');
    }
    const form = await browser.get('/dashboard/setup');
    assert.equal(form.statusCode, 200);
    assertPageHeaders(form);
    assert.match(form.body, /<label for="f-name">Studio name<\/label>/);
    assert.equal(inputValue(form.body, 'f-name'), '');

    const refused = await browser.post('/dashboard/setup', {
      name: 'Harbour Light',
      email: 'owner@harbour.test',
      password: PASSWORD,
      password_confirm: 'something else entirely',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /The two passwords are not the same/);
    assert.equal(await ctx.services.accounts.isSetUp(), false);

    const done = await browser.post('/dashboard/setup', {
      name: 'Harbour Light',
      email: 'owner@harbour.test',
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/dashboard?notice=welcome');
    const overview = await browser.get('/dashboard?notice=welcome');
    assert.equal(overview.statusCode, 200);
    assert.match(textOf(overview.body), /Your studio is set up and you are signed in/);

    // The form is gone: another visitor is sent to sign in, and a late POST creates nothing.
    const late = new Browser(ctx.app);
    const again = await late.get('/dashboard/setup');
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/dashboard/sign-in?notice=already-set-up');
    await late.get('/dashboard/sign-in');
    const post = await late.post('/dashboard/setup', {
      name: 'Intruder',
      email: 'intruder@evil.test',
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, '/dashboard/sign-in?notice=already-set-up');
    const emails = await ctx.deps.db.kysely.selectFrom('accounts').select('email').execute();
    assert.deepEqual(emails, [{ email: 'owner@harbour.test' }]);
  });
});

describe('two first-run setups at once', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => {
    await ctx.close();
  });

  test('make exactly one account: one browser is signed in, the other is sent to sign in', async () => {
    const browsers = [new Browser(ctx.app), new Browser(ctx.app), new Browser(ctx.app)];
    for (const b of browsers) await b.get('/dashboard/setup');
    const results = await Promise.all(
      browsers.map((b, i) =>
        b.post('/dashboard/setup', {
          name: `Studio ${i}`,
          email: `owner${i}@race.test`,
          password: PASSWORD,
          password_confirm: PASSWORD,
        }),
      ),
    );
    const locations = results.map((r) => `${r.statusCode} ${String(r.headers.location)}`).sort();
    assert.deepEqual(locations, [
      '303 /dashboard/sign-in?notice=already-set-up',
      '303 /dashboard/sign-in?notice=already-set-up',
      '303 /dashboard?notice=welcome',
    ]);
    const winner = browsers[results.findIndex((r) => r.headers.location === '/dashboard?notice=welcome')]!;
    assert.equal((await winner.get('/dashboard')).statusCode, 200);
    assert.equal((await ctx.deps.db.kysely.selectFrom('accounts').select('id').execute()).length, 1);
  });
});

describe('pages', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx, '<script>alert("studio")</script> & Co');
  });
  after(async () => {
    await ctx.close();
  });

  test('every page, error page and redirect carries the strict headers; assets are cached for good', async () => {
    const browser = new Browser(ctx.app);
    assertPageHeaders(await browser.get('/dashboard'));
    const signIn = await browser.get('/dashboard/sign-in');
    assertPageHeaders(signIn);
    assert.doesNotMatch(signIn.body, /<script>[^<]|style=|<style/, 'no inline script or style');
    const missing = await browser.get('/dashboard/no-such-page');
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
    assertPageHeaders(missing);

    const assets = [...signIn.body.matchAll(/(?:href|src)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(
      assets.map((a) => a.replace(/\.[0-9a-f]{12}\./, '.')),
      ['/dashboard/assets/favicon.svg', '/dashboard/assets/dashboard.css', '/dashboard/assets/dashboard.js'],
    );
    // The icon is linked as one (a browser would otherwise ask for /favicon.ico and log a 404).
    assert.match(
      signIn.body,
      /<link rel="icon" href="\/dashboard\/assets\/favicon\.[0-9a-f]{12}\.svg" type="image\/svg\+xml">/,
    );
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/, svg: /^image\/svg\+xml$/ };
    for (const asset of assets) {
      const res = await browser.get(asset);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(String(res.headers['content-type']), types[asset.slice(asset.lastIndexOf('.') + 1)] ?? /^$/);
      if (asset.endsWith('.svg')) assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
    assert.equal((await browser.get('/dashboard/assets/dashboard.css')).statusCode, 404, 'only versioned names');
  });

  test('the studio name and everything else from the database is escaped', async () => {
    const browser = new Browser(ctx.app);
    assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
    await ctx.services.apiKeys.create(owner.accountId, { name: '"><img src=x onerror=alert(1)>' });
    for (const path of ['/dashboard', '/dashboard/settings/api', '/dashboard/settings/studio']) {
      const res = await browser.get(path);
      assert.equal(res.statusCode, 200, path);
      assert.ok(!res.body.includes('<script>alert'), path);
      assert.ok(!res.body.includes('<img src=x'), path);
      assert.ok(res.body.includes('&lt;script&gt;alert(&quot;studio&quot;)&lt;/script&gt; &amp; Co'), path);
    }
  });

  test('cookies are HttpOnly and SameSite, kept to /dashboard over http', async () => {
    const browser = new Browser(ctx.app);
    const page = await browser.get('/dashboard/sign-in');
    const csrf = page.cookies.find((c) => c.name === 'lbx_csrf');
    assert.deepEqual(
      { path: csrf?.path, httpOnly: csrf?.httpOnly, sameSite: csrf?.sameSite, secure: csrf?.secure },
      { path: '/dashboard', httpOnly: true, sameSite: 'Strict', secure: undefined },
    );
    const signedIn = await browser.post('/dashboard/sign-in', { email: owner.email, password: PASSWORD });
    const session = signedIn.cookies.find((c) => c.name === 'lbx_session');
    assert.deepEqual(
      { path: session?.path, httpOnly: session?.httpOnly, sameSite: session?.sameSite, secure: session?.secure },
      { path: '/dashboard', httpOnly: true, sameSite: 'Lax', secure: undefined },
    );
  });

  test('with an https PUBLIC_URL the cookies are Secure and __Host- prefixed', async () => {
    const secure = await createTestContext({ PUBLIC_URL: 'https://studio.example.com' });
    try {
      const account = await createAccount(secure, 'Secure Studio');
      const browser = new Browser(secure.app);
      const page = await browser.get('/dashboard/sign-in');
      const csrf = page.cookies.find((c) => c.name === '__Host-lbx_csrf');
      assert.equal(csrf?.secure, true);
      assert.equal(csrf.path, '/');
      const res = await browser.post(
        '/dashboard/sign-in',
        { email: account.email, password: PASSWORD },
        { headers: { origin: 'https://studio.example.com', host: 'studio.example.com' } },
      );
      assert.equal(res.statusCode, 303, res.body);
      const session = res.cookies.find((c) => c.name === '__Host-lbx_session');
      assert.deepEqual(
        { path: session?.path, httpOnly: session?.httpOnly, sameSite: session?.sameSite, secure: session?.secure },
        { path: '/', httpOnly: true, sameSite: 'Lax', secure: true },
      );
      assert.ok(!res.cookies.some((c) => c.name === 'lbx_session'));
    } finally {
      await secure.close();
    }
  });

  test('a wrong password and an unknown email get the same page; too many attempts get 429', async () => {
    const browser = new Browser(ctx.app);
    const wrong = await browser.signIn(owner.email, 'not the password');
    const unknown = await browser.signIn('nobody@nowhere.test', 'not the password');
    assert.equal(wrong.statusCode, 400);
    assert.equal(unknown.statusCode, 400);
    const message = (body: string) => /<div class="notice notice-error" role="alert">([^<]*)</.exec(body)?.[1];
    assert.equal(message(wrong.body), message(unknown.body));
    assert.match(message(wrong.body) ?? '', /do not match an account/);
    // The email stays filled in; the password never comes back.
    assert.equal(inputValue(wrong.body, 'f-email'), owner.email);
    assert.ok(!wrong.body.includes('not the password'));

    for (let i = 0; i < 4; i += 1) await browser.signIn(owner.email, `wrong ${i} password`);
    const throttled = await browser.signIn(owner.email, PASSWORD);
    assert.equal(throttled.statusCode, 429);
    const retryAfter = Number(throttled.headers['retry-after']);
    assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, String(retryAfter));
    assert.match(textOf(throttled.body), /Too many sign-in attempts\. Try again in 15 minutes\./);
    assert.ok(!throttled.cookies.some((c) => c.name === 'lbx_session' && c.value !== ''));
  });

  test('a member page without a session sends the visitor to sign in', async () => {
    const res = await new Browser(ctx.app).get('/dashboard/settings/studio');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/sign-in');
    const stale = await new Browser(ctx.app).get('/dashboard', { cookie: `lbx_session=${'A'.repeat(43)}` });
    assert.equal(stale.statusCode, 303);
    assert.ok(
      stale.cookies.some((c) => c.name === 'lbx_session' && c.value === ''),
      'a dead cookie is cleared',
    );
  });
});

describe('CSRF', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let browser: Browser;
  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx, 'Careful Studio');
    browser = new Browser(ctx.app);
    assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
  });
  after(async () => {
    await ctx.close();
  });

  const keyCount = async () => (await ctx.services.apiKeys.list(owner.accountId)).length;

  test('a form post without its token, or with a wrong one, is refused (403) and changes nothing', async () => {
    await browser.get('/dashboard/settings/api');
    const good = browser.token();
    const before = await keyCount();
    const other = new Browser(ctx.app);
    await other.signIn(owner.email, PASSWORD);
    await other.get('/dashboard/settings/api');
    for (const csrf of [null, '', 'A'.repeat(43), `${good}x`, other.token()]) {
      const res = await browser.post(
        '/dashboard/settings/api',
        { name: 'sneaky', scope: 'full', expires: '' },
        { csrf },
      );
      assert.equal(res.statusCode, 403, String(csrf));
      assert.match(textOf(res.body), /That form could not be accepted/);
      assertPageHeaders(res);
    }
    assert.equal(await keyCount(), before);
    const studio = await browser.post('/dashboard/settings/studio', { name: 'Renamed' }, { csrf: null });
    assert.equal(studio.statusCode, 403);
    assert.equal((await ctx.services.accounts.get(owner.accountId)).name, 'Careful Studio');
  });

  test('a post another site made the browser send is refused even with a valid token', async () => {
    await browser.get('/dashboard/settings/api');
    const before = await keyCount();
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://sub.localhost' },
    ];
    for (const headers of foreign) {
      const res = await browser.post('/dashboard/settings/api', { name: 'x', scope: 'full', expires: '' }, { headers });
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
    }
    assert.equal(await keyCount(), before);
  });

  test('sign-out needs the token too: a forged sign-out does not end the session', async () => {
    await browser.get('/dashboard');
    const res = await browser.post('/dashboard/sign-out', {}, { csrf: 'A'.repeat(43) });
    assert.equal(res.statusCode, 403);
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
  });

  test('setup and sign-in forms need the token of their cookie', async () => {
    const fresh = new Browser(ctx.app);
    const noCookie = await fresh.post(
      '/dashboard/sign-in',
      { email: owner.email, password: PASSWORD },
      { csrf: 'A'.repeat(43) },
    );
    assert.equal(noCookie.statusCode, 403);
    await fresh.get('/dashboard/sign-in');
    const wrong = await fresh.post(
      '/dashboard/sign-in',
      { email: owner.email, password: PASSWORD },
      { csrf: 'B'.repeat(43) },
    );
    assert.equal(wrong.statusCode, 403);
    assert.ok(!fresh.cookies.has('lbx_session'));
    await fresh.get('/dashboard/sign-in');
    assert.equal((await fresh.post('/dashboard/sign-in', { email: owner.email, password: PASSWORD })).statusCode, 303);
  });
});

describe('the /v1 API is unchanged by the dashboard', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  before(async () => {
    ctx = await createTestContext();
    owner = await createAccount(ctx);
  });
  after(async () => {
    await ctx.close();
  });

  test('a form body to /v1 is still 415, and unknown routes are still JSON 404s', async () => {
    const form = await call(ctx, 'POST', '/v1/listings', {
      key: owner.key,
      body: 'address=1+Road',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 415);
    assert.equal(form.json<{ error: { code: string } }>().error.code, 'unsupported_media_type');
    const missing = await call(ctx, 'GET', '/v1/nothing-here', { key: owner.key });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json<{ error: { code: string } }>().error.code, 'not_found');
    // The API's own policy, not the dashboard's page policy.
    assert.equal(missing.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
  });

  test('the OpenAPI document does not list the dashboard', async () => {
    const doc = (await call(ctx, 'GET', '/v1/openapi.json')).json<{ paths: Record<string, unknown> }>();
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard')),
      [],
    );
  });

  test('a JSON body sent to a dashboard form is refused as HTML, not processed', async () => {
    const browser = new Browser(ctx.app);
    await browser.signIn(owner.email, PASSWORD);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/dashboard/settings/studio',
      remoteAddress: browser.address,
      headers: { cookie: browser.cookieHeader(), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'JSON name' }),
    });
    assert.equal(res.statusCode, 415);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.notEqual((await ctx.services.accounts.get(owner.accountId)).name, 'JSON name');
  });
});
