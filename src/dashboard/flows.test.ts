// What a studio owner does in the dashboard, over HTTP (app.inject), checked against the API
// and the database: keys, studio settings, password, sign-out, and the overview's figures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, inputValue, textOf } from '../../test/support/dashboard-browser.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { ACCOUNT_LIMIT } from '../modules/accounts/sign-in.service.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

async function signedIn(name = 'Flow Studio'): Promise<{ owner: TestAccount; browser: Browser }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  const res = await browser.signIn(owner.email, PASSWORD);
  assert.equal(res.statusCode, 303, res.body);
  return { owner, browser };
}

// A browser drops one line break right after <textarea> (the HTML parsing rules), so this does too.
const keyOnPage = (body: string): string | undefined =>
  /<textarea\b[^>]*\sid="new-key-value"[^>]*>\n?([^<]*)<\/textarea>/.exec(body)?.[1];

describe('API keys', () => {
  test('a generated key is shown once, works at once, and stops working at once when revoked', async () => {
    const { owner, browser } = await signedIn();
    await browser.get('/dashboard/settings/api');
    const posted = await browser.post('/dashboard/settings/api', { name: 'Website', scope: 'full', expires: '' });
    // Post-redirect-get: the form's answer is a redirect, so a reload never sends the form again.
    assert.equal(posted.statusCode, 303);
    assert.equal(posted.headers.location, '/dashboard/settings/api?notice=key-created');
    assert.equal(keyOnPage(posted.body), undefined);
    const res = await browser.follow(posted);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const key = keyOnPage(res.body);
    assert.ok(key !== undefined, 'the key is on the page');
    assert.match(key, /^lbx_[0-9A-Za-z]{40}$/);
    assert.match(textOf(res.body), /you will not see it again/);
    assert.match(res.body, /data-copy-target="new-key-value"/);

    assert.equal((await call(ctx, 'GET', '/v1/listings', { key })).statusCode, 200);
    const created = await call(ctx, 'POST', '/v1/listings', { key, body: { address: '1 Dashboard Road' } });
    assert.equal(created.statusCode, 201);

    // Listed with its prefix, never again in full.
    const list = await browser.get('/dashboard/settings/api');
    assert.ok(!list.body.includes(key));
    const apiKey = (await ctx.services.apiKeys.list(owner.accountId)).find((k) => k.name === 'Website');
    assert.ok(apiKey !== undefined);
    assert.ok(key.startsWith(apiKey.prefix));
    assert.ok(list.body.includes(`<code>${apiKey.prefix}…</code>`));
    assert.match(textOf(list.body), /Website .* Full access/);

    const confirm = await browser.get(`/dashboard/settings/api/${apiKey.id}/revoke`);
    assert.equal(confirm.statusCode, 200);
    assert.match(textOf(confirm.body), /Revoke the key “Website”\?/);
    assert.equal((await call(ctx, 'GET', '/v1/listings', { key })).statusCode, 200, 'asking does not revoke');

    const revoked = await browser.post(`/dashboard/settings/api/${apiKey.id}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers.location, '/dashboard/settings/api?notice=key-revoked');
    const refused = await call(ctx, 'GET', '/v1/listings', { key });
    assert.equal(refused.statusCode, 401);
    const after = await browser.get('/dashboard/settings/api?notice=key-revoked');
    assert.match(textOf(after.body), /The key was revoked/);
    assert.ok(!after.body.includes(apiKey.prefix));
  });

  test('the new key is shown on the one page after the form, then never: reload makes no second key', async () => {
    const { owner, browser } = await signedIn();
    const laptop = new Browser(ctx.app);
    await laptop.signIn(owner.email, PASSWORD);
    const count = async () => (await ctx.services.apiKeys.list(owner.accountId)).length;
    const before = await count();
    await browser.get('/dashboard/settings/api');
    const posted = await browser.post('/dashboard/settings/api', { name: 'Once', scope: 'full', expires: '' });
    assert.equal(posted.statusCode, 303);
    const location = String(posted.headers.location);

    // Held for this session only, and not readable in the database: another session of the same
    // account, even at the very URL, does not get it.
    const elsewhere = await laptop.get(location);
    assert.equal(keyOnPage(elsewhere.body), undefined);
    const shown = await browser.get(location);
    const key = keyOnPage(shown.body);
    assert.ok(key !== undefined, 'the key is on the page after the redirect');
    assert.equal(shown.headers['cache-control'], 'no-store');

    // Reload: the same URL again. No key, a word about why, and no second key made.
    const reloaded = await browser.get(location);
    assert.equal(reloaded.statusCode, 200);
    assert.equal(keyOnPage(reloaded.body), undefined);
    assert.ok(!reloaded.body.includes(key));
    assert.match(textOf(reloaded.body), /shown only once/);
    assert.equal(await count(), before + 1);
    assert.ok(!(await browser.get('/dashboard/settings/api')).body.includes(key));
    assert.ok(!ctx.logs().includes(key), 'the key is never logged');
  });

  test('while it waits for its page, the new key is stored only encrypted for the session', async () => {
    const { browser } = await signedIn();
    await browser.get('/dashboard/settings/api');
    const posted = await browser.post('/dashboard/settings/api', { name: 'Sealed', scope: 'full', expires: '' });
    const rows = await ctx.deps.db.kysely.selectFrom('sessions').selectAll().execute();
    const held = rows.filter((r) => r.one_time !== null);
    assert.equal(held.length, 1, 'held in the one session');
    const key = keyOnPage((await browser.follow(posted)).body);
    assert.ok(key !== undefined);
    assert.ok(!JSON.stringify(held).includes(key), 'the key is stored as it is');
    assert.ok(!JSON.stringify(held).includes(key.slice(4, 20)), 'part of the key is stored as it is');
    const after = await ctx.deps.db.kysely.selectFrom('sessions').select('one_time').execute();
    assert.ok(
      after.every((r) => r.one_time === null),
      'gone once shown',
    );
  });

  test('scope and expiry are what the form chose', async () => {
    const { owner, browser } = await signedIn();
    await browser.get('/dashboard/settings/api');
    const res = await browser.follow(
      await browser.post('/dashboard/settings/api', { name: 'Reader', scope: 'read_only', expires: '30' }),
    );
    const key = keyOnPage(res.body);
    assert.ok(key !== undefined);
    assert.equal((await call(ctx, 'GET', '/v1/listings', { key })).statusCode, 200);
    assert.equal((await call(ctx, 'POST', '/v1/listings', { key, body: { address: 'x' } })).statusCode, 403);
    const stored = (await ctx.services.apiKeys.list(owner.accountId)).find((k) => k.name === 'Reader');
    assert.equal(stored?.scope, 'read_only');
    const days = (Date.parse(stored.expires_at ?? '') - Date.parse(stored.created_at)) / 86_400_000;
    assert.equal(days, 30);
  });

  test('a form with no name or an unknown scope or expiry is shown again with the reasons', async () => {
    const { owner, browser } = await signedIn();
    const before = (await ctx.services.apiKeys.list(owner.accountId)).length;
    await browser.get('/dashboard/settings/api');
    const res = await browser.post('/dashboard/settings/api', { name: '   ', scope: 'admin', expires: '9999' });
    assert.equal(res.statusCode, 400);
    const text = textOf(res.body);
    assert.match(text, /Give the key a name/);
    assert.match(text, /Choose full access or read only/);
    assert.match(text, /Choose one of the options/);
    assert.equal(keyOnPage(res.body), undefined);
    assert.equal((await ctx.services.apiKeys.list(owner.accountId)).length, before);
  });

  test("another account's key is not found, to look at or to revoke", async () => {
    const { browser } = await signedIn();
    const stranger = await createAccount(ctx, 'Stranger Studio');
    const page = await browser.get(`/dashboard/settings/api/${stranger.keyId}/revoke`);
    assert.equal(page.statusCode, 404);
    await browser.get('/dashboard/settings/api');
    const res = await browser.post(`/dashboard/settings/api/${stranger.keyId}/revoke`, {});
    assert.equal(res.statusCode, 404);
    assert.equal((await call(ctx, 'GET', '/v1/listings', { key: stranger.key })).statusCode, 200);
    for (const id of ['nonsense', 'key_%00', `${stranger.keyId}x`]) {
      assert.equal((await browser.get(`/dashboard/settings/api/${id}/revoke`)).statusCode, 404, id);
    }
  });
});

describe('studio settings', () => {
  test('the studio and sender names are saved; an empty sender name means the studio name', async () => {
    const { owner, browser } = await signedIn('Old Name');
    await browser.get('/dashboard/settings/studio');
    const res = await browser.post('/dashboard/settings/studio', {
      name: '  Harbour Light  ',
      sender_name: 'Bookings',
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/settings/studio?notice=studio-saved');
    let account = await ctx.services.accounts.get(owner.accountId);
    assert.deepEqual([account.name, account.sender_name], ['Harbour Light', 'Bookings']);
    const page = await browser.get('/dashboard/settings/studio?notice=studio-saved');
    assert.match(textOf(page.body), /Studio settings saved/);
    assert.equal(inputValue(page.body, 'f-sender_name'), 'Bookings');

    await browser.post('/dashboard/settings/studio', { name: 'Harbour Light', sender_name: '   ' });
    account = await ctx.services.accounts.get(owner.accountId);
    assert.equal(account.sender_name, null);

    await browser.get('/dashboard/settings/studio');
    const refused = await browser.post('/dashboard/settings/studio', { name: '', sender_name: 'x' });
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /Enter a studio name of 1 to 200 characters/);
    assert.equal((await ctx.services.accounts.get(owner.accountId)).name, 'Harbour Light');
  });

  test('the currency (docs/api.md §29): USD at first, any ISO 4217 code, anything else refused', async () => {
    const { owner, browser } = await signedIn();
    let page = await browser.get('/dashboard/settings/studio');
    assert.equal(inputValue(page.body, 'f-currency'), 'USD');
    const res = await browser.post('/dashboard/settings/studio', { name: 'Studio', sender_name: '', currency: 'eur' });
    assert.equal(res.statusCode, 303);
    assert.equal((await ctx.services.accounts.get(owner.accountId)).currency, 'EUR');
    page = await browser.get('/dashboard/settings/studio');
    assert.equal(inputValue(page.body, 'f-currency'), 'EUR');
    const refused = await browser.post('/dashboard/settings/studio', {
      name: 'Studio',
      sender_name: '',
      currency: 'EU',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /must be an ISO 4217 currency code/);
    assert.equal((await ctx.services.accounts.get(owner.accountId)).currency, 'EUR');
  });

  test('a password change signs out every other session and keeps this one', async () => {
    const { owner, browser } = await signedIn();
    const laptop = new Browser(ctx.app);
    await laptop.signIn(owner.email, PASSWORD);
    assert.equal((await laptop.get('/dashboard')).statusCode, 200);

    await browser.get('/dashboard/settings/studio');
    const wrong = await browser.post('/dashboard/settings/password', {
      current_password: 'not my password',
      new_password: 'a new long password',
      new_password_confirm: 'a new long password',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(textOf(wrong.body), /is not your current password/);
    assert.equal((await laptop.get('/dashboard')).statusCode, 200, 'a refused change ends nothing');

    await browser.get('/dashboard/settings/studio');
    const oldCookie = browser.cookieHeader();
    const ok = await browser.post('/dashboard/settings/password', {
      current_password: PASSWORD,
      new_password: 'a new long password',
      new_password_confirm: 'a new long password',
    });
    assert.equal(ok.statusCode, 303);
    assert.equal(ok.headers.location, '/dashboard/settings/studio?notice=password-changed');
    assert.equal((await browser.get('/dashboard/settings/studio')).statusCode, 200, 'still signed in here');
    assert.equal((await laptop.get('/dashboard')).statusCode, 303, 'signed out elsewhere');
    const replay = await ctx.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: oldCookie } });
    assert.equal(replay.statusCode, 303, 'the old session token is dead');

    assert.equal((await new Browser(ctx.app).signIn(owner.email, PASSWORD)).statusCode, 400);
    assert.equal((await new Browser(ctx.app).signIn(owner.email, 'a new long password')).statusCode, 303);
  });
});

describe('password change throttling', () => {
  test('wrong current passwords count against the sign-in limits: past them, the 429 page', async () => {
    const { owner, browser } = await signedIn('Throttled Studio');
    const change = async (current: string) => {
      await browser.get('/dashboard/settings/studio');
      return browser.post('/dashboard/settings/password', {
        current_password: current,
        new_password: 'a new long password',
        new_password_confirm: 'a new long password',
      });
    };
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) assert.equal((await change(`guess ${i} password`)).statusCode, 400);
    // Even the right password is refused now: the limit says nothing about which guess was right.
    const refused = await change(PASSWORD);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(textOf(refused.body), /Too many sign-in attempts\. Try again in 15 minutes\./);
    // The same budget as the sign-in form's, for this account.
    assert.equal((await new Browser(ctx.app).signIn(owner.email, PASSWORD)).statusCode, 429);
  });
});

describe('sign-out', () => {
  test('ends the session on the server, clears the cookie, and the dashboard asks to sign in again', async () => {
    const { browser } = await signedIn();
    const token = browser.cookies.get('lbx_session');
    await browser.get('/dashboard');
    const res = await browser.post('/dashboard/sign-out', {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/sign-in?notice=signed-out');
    assert.ok(res.cookies.some((c) => c.name === 'lbx_session' && c.value === ''));
    assert.equal(await ctx.services.sessions.authenticate(token), null);
    const again = await browser.get('/dashboard');
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/dashboard/sign-in');
    const replay = await ctx.app.inject({
      method: 'GET',
      url: '/dashboard',
      headers: { cookie: `lbx_session=${token}` },
    });
    assert.equal(replay.statusCode, 303);
  });
});

describe('overview', () => {
  test('shows the counts of this account only, and its latest emails with their delivery status', async () => {
    const { owner, browser } = await signedIn('Counting Studio');
    const other = await createAccount(ctx, 'Noise Studio');
    const make = async (account: TestAccount, status: string) => {
      const res = await call(ctx, 'POST', '/v1/listings', {
        key: account.key,
        body: { address: `${status} house`, status },
      });
      return res.json<{ id: string }>().id;
    };
    const active = await make(owner, 'active');
    await make(owner, 'active');
    await make(owner, 'draft');
    await make(other, 'archived');
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: owner.key,
      body: { name: 'Ada <b>Client</b>', email: 'ada@client.test' },
    });
    const clientId = client.json<{ id: string }>().id;
    assert.equal(
      (await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${active}`, { key: owner.key })).statusCode,
      200,
    );

    const page = await browser.get('/dashboard');
    const text = textOf(page.body);
    assert.match(page.body, /data-testid="galleries-total">3</);
    assert.match(text, /2 active · 1 draft · 0 archived/);
    assert.match(page.body, /data-testid="clients-total">1</);
    assert.match(page.body, /data-testid="media-total">0</);
    assert.match(text, /queued ada@client\.test active house 0/);
    assert.ok(!page.body.includes('Noise Studio'));
  });
});

describe('the email card', () => {
  test('its parts add up to its total: a cancelled email is counted and shown', async () => {
    const { owner, browser } = await signedIn('Cancelling Studio');
    const gallery = async (address: string) =>
      (await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address } })).json<{ id: string }>().id;
    const kept = await gallery('1 Kept Lane');
    const dropped = await gallery('2 Dropped Lane');
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: owner.key,
      body: { name: 'Cal Client', email: 'cal@client.test' },
    });
    const clientId = client.json<{ id: string }>().id;
    for (const id of [kept, dropped]) {
      assert.equal(
        (await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${id}`, { key: owner.key })).statusCode,
        200,
      );
    }
    // Unassigned before it was sent: its email is cancelled, and still one of the account's emails.
    const unassign = await call(ctx, 'DELETE', `/v1/clients/${clientId}/listings/${dropped}`, { key: owner.key });
    assert.equal(unassign.statusCode, 204);

    const page = await browser.get('/dashboard');
    const total = Number(/data-testid="emails-total">(\d+)</.exec(page.body)?.[1]);
    assert.equal(total, 2);
    const card = /<dt>Emails<\/dt>([\s\S]*?)<\/dd>/.exec(page.body)?.[1] ?? '';
    const parts = [...textOf(card).matchAll(/(\d+) (sent|queued|failed|cancelled)/g)].map((m) => [m[2], Number(m[1])]);
    assert.deepEqual(parts, [
      ['sent', 0],
      ['queued', 1],
      ['failed', 0],
      ['cancelled', 1],
    ]);
    assert.equal(
      parts.reduce((sum, [, n]) => sum + Number(n), 0),
      total,
      'the parts add up to the total',
    );
  });
});
