// The overview's latest assignments over HTTP (app.inject): each gallery's client, its link's views
// and downloads, the link itself, and Resend, which queues the email again exactly as
// POST /v1/clients/:id/listings/:listing_id/notify does, for the account's own assignments only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { assign, newClient, newGallery, notificationRows } from '../../test/support/notification-helpers.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

async function signedIn(name: string): Promise<{ owner: TestAccount; browser: Browser }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  const res = await browser.signIn(owner.email, PASSWORD);
  assert.equal(res.statusCode, 303, res.body);
  return { owner, browser };
}

/** A gallery assigned to a new client over /v1, and its link's path under /g. */
async function assigned(owner: TestAccount, address: string, client: Record<string, unknown> = {}) {
  // Active: a draft is emailed only once confirmed (see 'a draft is emailed only once confirmed').
  const gallery = await newGallery(ctx, owner, { address, status: 'active' });
  const person = await newClient(ctx, owner, client);
  await assign(ctx, owner, person.id, gallery.id);
  const got = await call(ctx, 'GET', `/v1/listings/${gallery.id}`, { key: owner.key });
  const url = got.json<{ client_link: { url: string } }>().client_link.url;
  return { gallery, client: person, url, path: new URL(url).pathname };
}

/** The rows of the assignments table, as a reader sees each. */
function assignmentRows(page: string): string[] {
  const section = /<section class="card" id="assignments"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
  return [...section.matchAll(/<tr role="row">([\s\S]*?)<\/tr>/g)].slice(1).map((m) => textOf(m[1] ?? ''));
}

const resendPath = (clientId: string, listingId: string): string =>
  `/dashboard/clients/${clientId}/galleries/${listingId}/resend`;

describe('latest assignments on the overview', () => {
  test('an account with none says so', async () => {
    const { browser } = await signedIn('Empty Studio');
    const page = await browser.get('/dashboard');
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /Latest assignments No galleries assigned yet\./);
  });

  test('newest first: the gallery, its client, when, views, downloads, last viewed, its link and Resend', async () => {
    const { owner, browser } = await signedIn('Panel Studio');
    const older = await assigned(owner, '3 Old Mill Lane', { name: 'Bo Chen', email: 'bo@client.test' });
    const newer = await assigned(owner, '12 Quay Street', { name: 'Ann Lee', email: 'ann@client.test' });
    // Two page loads of the newer link, none of the older: the counters are the link's.
    for (let i = 0; i < 2; i += 1) assert.equal((await ctx.app.inject({ url: newer.path })).statusCode, 200);

    const page = await browser.get('/dashboard');
    assert.equal(page.statusCode, 200);
    const rows = assignmentRows(page.body);
    assert.equal(rows.length, 2);
    assert.match(
      rows[0] ?? '',
      /^12 Quay Street Client link Copy Client link for 12 Quay Street Ann Lee ann@client\.test \d+ \w+ \d{4} 2 0 \d+ \w+ \d{4}, \d\d:\d\d UTC Open gallery/,
    );
    assert.match(
      rows[1] ?? '',
      /^3 Old Mill Lane Client link Copy Client link for 3 Old Mill Lane Bo Chen bo@client\.test \d+ \w+ \d{4} 0 0 not yet Open gallery/,
    );
    for (const a of [older, newer]) {
      const link = new RegExp(`<a\\s[^>]*href="${a.url}"[^>]*>`).exec(page.body)?.[0] ?? '';
      assert.match(link, /\starget="_blank"/, 'the link opens the gallery in a new tab');
      assert.match(link, /\srel="noopener noreferrer"/);
      assert.ok(page.body.includes(`action="${resendPath(a.client.id, a.gallery.id)}"`), 'Resend posts here');
    }
  });

  test('a download from the link is counted in the panel', async () => {
    const { owner, browser } = await signedIn('Download Studio');
    const a = await assigned(owner, '8 Download Road');
    // The ZIP (of no originals yet) from byte 0 is a download; the page was never opened.
    const zip = await ctx.app.inject({ url: `${a.path}/download.zip` });
    assert.equal(zip.statusCode, 200, zip.body);
    const [row] = assignmentRows((await browser.get('/dashboard')).body);
    assert.match(row ?? '', /\d{4} 0 1 not yet Open gallery/);
  });

  test('what a studio typed is shown as text, never as markup', async () => {
    const { owner, browser } = await signedIn('Escape Studio');
    await assigned(owner, '<script>alert(1)</script> Road', { name: '<b>Eve</b> "Q"' });
    const page = await browser.get('/dashboard');
    assert.doesNotMatch(page.body, /<script>alert|<b>Eve/);
    assert.match(
      assignmentRows(page.body)[0] ?? '',
      /^<script>alert\(1\)<\/script> Road Client link Copy Client link for <script>alert\(1\)<\/script> Road <b>Eve<\/b> "Q"/,
    );
  });

  test('another account never sees them', async () => {
    const { owner } = await signedIn('Private Studio');
    await assigned(owner, '1 Private Road', { name: 'Only Mine' });
    const { browser: other } = await signedIn('Other Studio');
    const page = await other.get('/dashboard');
    assert.ok(!page.body.includes('1 Private Road') && !page.body.includes('Only Mine'));
  });
});

describe('Resend', () => {
  test('queues the email again, like the API, and comes back to the overview saying so', async () => {
    const { owner, browser } = await signedIn('Resend Studio');
    const a = await assigned(owner, '4 Resend Road');
    assert.equal((await notificationRows(ctx, a.gallery.id)).length, 1, 'the assignment queued one');

    await browser.get('/dashboard');
    const res = await browser.post(resendPath(a.client.id, a.gallery.id), {});
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard?notice=email-resent');
    const rows = await notificationRows(ctx, a.gallery.id);
    assert.equal(rows.length, 2);
    assert.deepEqual(
      rows.map((r) => [r.status, r.client_id, r.to_email, r.account_id]),
      [
        ['queued', a.client.id, a.client.email, owner.accountId],
        ['queued', a.client.id, a.client.email, owner.accountId],
      ],
    );
    const back = await browser.follow(res);
    assert.match(textOf(back.body), /The gallery email is on its way to the client again/);
    // The API lists it as the newest notification of the account.
    const listed = await call(ctx, 'GET', '/v1/notifications', { key: owner.key });
    assert.equal(listed.json<{ data: { id: string }[] }>().data[0]?.id, rows[1]?.id);
  });

  test('without the form token, or from another site, nothing is sent', async () => {
    const { owner, browser } = await signedIn('Csrf Studio');
    const a = await assigned(owner, '5 Token Road');
    await browser.get('/dashboard');
    const missing = await browser.post(resendPath(a.client.id, a.gallery.id), {}, { csrf: null });
    assert.equal(missing.statusCode, 403);
    const wrong = await browser.post(resendPath(a.client.id, a.gallery.id), {}, { csrf: 'not-the-token' });
    assert.equal(wrong.statusCode, 403);
    const crossSite = await browser.post(
      resendPath(a.client.id, a.gallery.id),
      {},
      { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await notificationRows(ctx, a.gallery.id)).length, 1);
  });

  test("another account cannot resend a studio's email: the 404 page, nothing queued", async () => {
    const { owner } = await signedIn('Victim Studio');
    const a = await assigned(owner, '6 Victim Road');
    const { browser: other } = await signedIn('Intruder Studio');
    await other.get('/dashboard');
    const res = await other.post(resendPath(a.client.id, a.gallery.id), {});
    assert.equal(res.statusCode, 404);
    assert.match(textOf(res.body), /Page not found/);
    assert.equal((await notificationRows(ctx, a.gallery.id)).length, 1);
  });

  test('a gallery no longer assigned to that client, or ids of no shape, is the 404 page', async () => {
    const { owner, browser } = await signedIn('Unassigned Studio');
    const a = await assigned(owner, '7 Gone Road');
    const b = await assigned(owner, '9 Other Road');
    await browser.get('/dashboard');
    // The right client, the wrong gallery (another client's).
    assert.equal((await browser.post(resendPath(a.client.id, b.gallery.id), {})).statusCode, 404);
    const unassigned = await call(ctx, 'DELETE', `/v1/clients/${a.client.id}/listings/${a.gallery.id}`, {
      key: owner.key,
    });
    assert.equal(unassigned.statusCode, 204);
    const page = await browser.get('/dashboard');
    const rows = assignmentRows(page.body);
    assert.deepEqual(
      rows.map((r) => r.split(' Road')[0]),
      ['9 Other'],
      'an unassigned gallery leaves the panel',
    );
    assert.equal((await browser.post(resendPath(a.client.id, a.gallery.id), {})).statusCode, 404);
    assert.equal((await browser.post(resendPath('nope', 'nope'), {})).statusCode, 404);
    assert.equal((await notificationRows(ctx, a.gallery.id)).filter((r) => r.status === 'queued').length, 0);
    assert.equal((await notificationRows(ctx, b.gallery.id)).length, 1);
  });

  test('signed out, Resend sends nothing and asks to sign in', async () => {
    const { owner, browser } = await signedIn('Signed Out Studio');
    const a = await assigned(owner, '10 Session Road');
    await browser.get('/dashboard');
    const token = browser.token();
    await browser.post('/dashboard/sign-out', {});
    const res = await browser.post(resendPath(a.client.id, a.gallery.id), {}, { csrf: token });
    assert.ok(res.statusCode === 303 || res.statusCode === 403, String(res.statusCode));
    if (res.statusCode === 303) assert.match(String(res.headers.location), /^\/dashboard\/sign-in/);
    assert.equal((await notificationRows(ctx, a.gallery.id)).length, 1);
  });
});

describe('link settings in the assignments panel (docs/api.md §25)', () => {
  const linkPath = (listingId: string): string => `/dashboard/galleries/${listingId}/link`;

  test('the form sets expiry, password and downloads as PATCH client_link does, and clears them', async () => {
    const { owner, browser } = await signedIn('Link Studio');
    const a = await assigned(owner, '7 Beacon Hill');
    const page = await browser.get('/dashboard');
    assert.ok(page.body.includes(`action="${linkPath(a.gallery.id)}"`), 'the settings post here');
    assert.match(textOf(page.body), /never expires · no password · downloads on/);

    const saved = await browser.post(linkPath(a.gallery.id), {
      expires_on: '2099-03-04',
      password: 'a long password',
    });
    assert.equal(saved.statusCode, 303);
    assert.match(String(saved.headers.location), /notice=link-saved/);
    const link = (await call(ctx, 'GET', `/v1/listings/${a.gallery.id}`, { key: owner.key })).json<{
      client_link: { expires_at: string; password_protected: boolean; downloads_enabled: boolean };
    }>().client_link;
    assert.deepEqual(link.expires_at, '2099-03-04T23:59:59.999Z');
    assert.equal(link.password_protected, true);
    assert.equal(link.downloads_enabled, false, 'an unticked box is off');
    assert.equal((await ctx.app.inject({ url: a.path })).statusCode, 403, 'the link now asks for the password');
    assert.match(textOf((await browser.get('/dashboard')).body), /expires 4 \w+ 2099 · password · downloads off/);

    const cleared = await browser.post(linkPath(a.gallery.id), {
      expires_on: '',
      remove_password: '1',
      downloads_enabled: '1',
    });
    assert.equal(cleared.statusCode, 303);
    assert.equal((await ctx.app.inject({ url: a.path })).statusCode, 200);
  });

  test('refused values save nothing; another account or a missing CSRF token changes nothing', async () => {
    const { owner, browser } = await signedIn('Careful Studio');
    const a = await assigned(owner, '9 Pier Road');
    const refused: Record<string, string>[] = [
      { expires_on: '2001-01-01' },
      { expires_on: 'soon' },
      { password: 'short' },
    ];
    for (const bad of refused) {
      await browser.get('/dashboard');
      const res = await browser.post(linkPath(a.gallery.id), { ...bad, downloads_enabled: '1' });
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers.location), /notice=link-refused/);
    }
    const other = await signedIn('Intruder Studio');
    await other.browser.get('/dashboard');
    assert.equal((await other.browser.post(linkPath(a.gallery.id), { password: 'intruder password' })).statusCode, 404);
    assert.equal(
      (await browser.post(linkPath(a.gallery.id), { password: 'no csrf here' }, { csrf: null })).statusCode,
      403,
    );
    const link = (await call(ctx, 'GET', `/v1/listings/${a.gallery.id}`, { key: owner.key })).json<{
      client_link: { expires_at: null; password_protected: boolean; downloads_enabled: boolean };
    }>().client_link;
    assert.deepEqual([link.expires_at, link.password_protected, link.downloads_enabled], [null, false, true]);
  });
});
