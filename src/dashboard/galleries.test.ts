// Galleries in the dashboard over HTTP (app.inject), docs/api.md §27: the list (search, status,
// sort, cursor), create and edit, the upload form (multipart, token first), caption, hide,
// position, order, cover, delete, assign (chosen or new client), resend, link settings, property
// pages and activity; each through the API's services, for the signed-in account only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { Browser, textOf, type PostOptions } from '../../test/support/dashboard-browser.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { jpeg, multipart, pdf, type Part } from '../../test/support/media-fixtures.ts';
import { makeVariantsNow } from '../../test/support/media-helpers.ts';
import { notificationRows } from '../../test/support/notification-helpers.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

type Post = (url: string, fields: Record<string, string>, options?: PostOptions) => Promise<LightMyRequestResponse>;

/** A signed-in browser, and a post with its session's form token (the page before a redirect had it). */
async function signedIn(name: string): Promise<{ owner: TestAccount; browser: Browser; post: Post }> {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  const res = await browser.signIn(owner.email, PASSWORD);
  assert.equal(res.statusCode, 303, res.body);
  await browser.get('/dashboard');
  const token = browser.token();
  const post: Post = (url, fields, options = {}) => browser.post(url, fields, { csrf: token, ...options });
  return { owner, browser, post };
}

/** Posts the upload form as a browser does: the token first, then the files. */
async function uploadForm(browser: Browser, galleryId: string, files: Part[], token: string | null = browser.token()) {
  const parts: Part[] = [...(token === null ? [] : [{ field: '_csrf', data: token }]), ...files];
  const body = multipart(parts);
  return ctx.app.inject({
    method: 'POST',
    url: `/dashboard/galleries/${galleryId}/media`,
    remoteAddress: browser.address,
    headers: {
      cookie: browser.cookieHeader(),
      'content-type': body.contentType,
      origin: 'http://localhost',
      'sec-fetch-site': 'same-origin',
    },
    payload: body.body,
  });
}

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the answer's shape, as each call reads it
async function api<T>(
  owner: TestAccount,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const r = await call(ctx, method, url, { key: owner.key, ...(body === undefined ? {} : { body }) });
  return { status: r.statusCode, json: r.json<T>() };
}

interface GalleryJson {
  id: string;
  address: string;
  status: string;
  beds: number | null;
  description: string | null;
  updated_at: string;
  media_count: number;
  cover_media_id: string | null;
  client_id: string | null;
  client_link: { url: string; views: number; password_protected: boolean; downloads_enabled: boolean } | null;
  property_page: { url: string; views: number } | null;
}
interface MediaJson {
  id: string;
  position: number;
  caption: string | null;
  hidden: boolean;
  filename: string;
}

describe('galleries in the dashboard', () => {
  test('create with the form: refused fields say why; a valid one opens its page', async () => {
    const { owner, browser, post } = await signedIn('Create Studio');
    assert.equal((await browser.get('/dashboard/galleries/new')).statusCode, 200);
    const refused = await post('/dashboard/galleries', { address: '  ', status: 'draft', beds: '-1' });
    assert.equal(refused.statusCode, 400);
    assert.match(textOf(refused.body), /Address: Enter the address/);
    assert.match(textOf(refused.body), /Beds: Enter a number from 0 to 1,000/);

    const created = await post('/dashboard/galleries', {
      address: ' 12 Quay Street ',
      status: 'active',
      beds: '3',
      baths: '1.5',
      sqft: '1,200',
      mls_number: 'ML-1',
      description: 'Sea views',
    });
    assert.equal(created.statusCode, 303);
    const id = /\/dashboard\/galleries\/(lst_[^?]+)\?notice=gallery-created/.exec(created.headers.location ?? '')?.[1];
    assert.ok(id !== undefined, created.headers.location);
    const got = await api<GalleryJson>(owner, 'GET', `/v1/listings/${id}`);
    assert.equal(got.json.address, '12 Quay Street');
    assert.equal(got.json.status, 'active');
    assert.equal(got.json.beds, 3);
    const page = await browser.follow(created);
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /Gallery created\./);
    assert.match(textOf(page.body), /12 Quay Street active/);

    // Saving the details unchanged writes nothing; a change is one update.
    const before = got.json.updated_at;
    const fields = {
      address: '12 Quay Street',
      status: 'active',
      beds: '3',
      baths: '1.5',
      sqft: '1200',
      mls_number: 'ML-1',
      description: 'Sea views',
    };
    assert.equal((await post(`/dashboard/galleries/${id}`, fields)).statusCode, 303);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${id}`)).json.updated_at, before);
    await browser.get(`/dashboard/galleries/${id}`);
    const saved = await post(`/dashboard/galleries/${id}`, { ...fields, status: 'archived', description: '' });
    assert.equal(saved.statusCode, 303);
    const after = (await api<GalleryJson>(owner, 'GET', `/v1/listings/${id}`)).json;
    assert.equal(after.status, 'archived');
    assert.equal(after.description, null);
  });

  test('the list: search, status filter, sort and cursor pages; only this account', async () => {
    const { owner, browser } = await signedIn('List Studio');
    const other = await createAccount(ctx, 'Other Studio');
    await api(other, 'POST', '/v1/listings', { address: '1 Elsewhere Road' });
    for (let i = 1; i <= 27; i += 1) {
      await api(owner, 'POST', '/v1/listings', {
        address: `${i} Harbour Row`,
        status: i % 3 === 0 ? 'active' : 'draft',
      });
    }
    const first = await browser.get('/dashboard/galleries');
    assert.equal(first.statusCode, 200);
    const text = textOf(first.body);
    assert.match(text, /27 galleries/);
    assert.ok(!text.includes('Elsewhere'));
    assert.ok(text.indexOf('27 Harbour Row') < text.indexOf('26 Harbour Row'), 'newest first');
    const next = /href="(\/dashboard\/galleries\?cursor=[^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next !== undefined, 'a next page link');
    const second = textOf((await browser.get(next)).body);
    assert.match(second, /2 Harbour Row/);
    assert.match(second, /1 Harbour Row/);
    assert.ok(!second.includes('27 Harbour Row'));
    assert.ok(!/Next page/.test(second));

    const active = textOf((await browser.get('/dashboard/galleries?status=active&sort=created_at')).body);
    assert.match(active, /9 galleries/);
    assert.ok(active.indexOf('3 Harbour Row') < active.indexOf('6 Harbour Row'), 'oldest first');
    assert.ok(!/(^| )1 Harbour Row/.test(active));
    const found = textOf((await browser.get('/dashboard/galleries?search=21+harbour')).body);
    assert.match(found, /1 gallery/);
    assert.match(found, /21 Harbour Row/);
    // A cursor that is not one: the first page, saying so.
    const stale = await browser.get('/dashboard/galleries?cursor=nonsense');
    assert.equal(stale.statusCode, 200);
    assert.match(textOf(stale.body), /no longer available/);
  });

  test('a search past the count of 1,000 says "1,000+", not a number it did not count', async () => {
    const { owner, browser } = await signedIn('Big Studio');
    for (let i = 0; i < 1001; i += 1) {
      await ctx.services.listings.create(owner.accountId, { address: `${i + 1} Quay Street` });
    }
    const text = textOf((await browser.get('/dashboard/galleries?search=quay')).body);
    assert.match(text, /1,000\+ galleries/);
    const one = textOf((await browser.get('/dashboard/galleries?search=1001+quay')).body);
    assert.match(one, /(^|\D)1 gallery\b/);
  });

  test('upload without JavaScript: the token first; all or nothing; another account’s gallery is 404', async () => {
    const { owner, browser } = await signedIn('Upload Studio');
    const g = (await api<GalleryJson>(owner, 'POST', '/v1/listings', { address: '5 Mill Lane' })).json;
    await browser.get(`/dashboard/galleries/${g.id}`);
    const photo = await jpeg(64, 48);
    const ok = await uploadForm(browser, g.id, [
      { filename: 'front.jpg', contentType: 'image/jpeg', data: photo },
      { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf() },
    ]);
    assert.equal(ok.statusCode, 303, ok.body);
    assert.equal(ok.headers.location, `/dashboard/galleries/${g.id}?notice=uploaded#media`);
    const media = (await api<{ data: MediaJson[] }>(owner, 'GET', `/v1/listings/${g.id}/media`)).json.data;
    assert.deepEqual(
      media.map((m) => m.filename),
      ['front.jpg', 'plan.pdf'],
    );

    // A file that is not a photo, video or PDF: nothing of the request is kept.
    const refused = await uploadForm(browser, g.id, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: photo },
      { filename: 'notes.txt', contentType: 'text/plain', data: 'hello' },
    ]);
    assert.equal(refused.statusCode, 303);
    assert.match(refused.headers.location ?? '', /notice=upload-refused/);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.media_count, 2);
    const empty = await uploadForm(browser, g.id, [{ filename: '', data: '' }]);
    assert.match(empty.headers.location ?? '', /notice=upload-empty/);

    // No token, a wrong one: refused before any file is read.
    assert.equal((await uploadForm(browser, g.id, [{ filename: 'x.jpg', data: photo }], null)).statusCode, 403);
    assert.equal((await uploadForm(browser, g.id, [{ filename: 'x.jpg', data: photo }], 'wrong')).statusCode, 403);
    const other = await createAccount(ctx, 'Not Yours');
    const theirs = (await api<GalleryJson>(other, 'POST', '/v1/listings', { address: '9 Their Street' })).json;
    assert.equal((await uploadForm(browser, theirs.id, [{ filename: 'x.jpg', data: photo }])).statusCode, 404);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.media_count, 2);

    // The page's script: the token in a header, JSON back.
    const body = multipart([{ filename: 'back.jpg', contentType: 'image/jpeg', data: photo }]);
    const viaScript = await ctx.app.inject({
      method: 'POST',
      url: `/dashboard/galleries/${g.id}/media`,
      remoteAddress: browser.address,
      headers: {
        cookie: browser.cookieHeader(),
        'content-type': body.contentType,
        accept: 'application/json',
        'x-csrf-token': browser.token(),
        origin: 'http://localhost',
        'sec-fetch-site': 'same-origin',
      },
      payload: body.body,
    });
    assert.equal(viaScript.statusCode, 201, viaScript.body);
    assert.equal(viaScript.json<{ uploaded: string[] }>().uploaded.length, 1);

    // Signed out: nothing is taken.
    const stranger = new Browser(ctx.app);
    await stranger.get('/dashboard/sign-in');
    const out = await uploadForm(stranger, g.id, [{ filename: 'x.jpg', data: photo }], null);
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, '/dashboard/sign-in?notice=session-ended');
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.media_count, 3);
  });

  test('caption, hide, position, order, cover, delete, and the thumbnails', async () => {
    const { owner, browser, post } = await signedIn('Media Studio');
    const g = (await api<GalleryJson>(owner, 'POST', '/v1/listings', { address: '7 Pier Road' })).json;
    await browser.get(`/dashboard/galleries/${g.id}`);
    const photos = await Promise.all([jpeg(40, 30), jpeg(41, 30), jpeg(42, 30)]);
    await uploadForm(
      browser,
      g.id,
      photos.map((data, i) => ({ filename: `p${i + 1}.jpg`, contentType: 'image/jpeg', data })),
    );
    const list = async () => (await api<{ data: MediaJson[] }>(owner, 'GET', `/v1/listings/${g.id}/media`)).json.data;
    const [a, b, c] = await list();
    assert.ok(a && b && c);

    await browser.get(`/dashboard/galleries/${g.id}`);
    const saved = await post(`/dashboard/galleries/${g.id}/media/${b.id}`, {
      caption: ' Kitchen ',
      hidden: '1',
      hidden_shown: '1',
      position: '1',
    });
    assert.equal(saved.statusCode, 303);
    assert.deepEqual(
      (await list()).map((m) => [m.filename, m.position, m.caption, m.hidden]),
      [
        ['p2.jpg', 1, 'Kitchen', true],
        ['p1.jpg', 2, null, false],
        ['p3.jpg', 3, null, false],
      ],
    );
    // Unticked: shown again; a position past the end is refused, nothing changes.
    await post(`/dashboard/galleries/${g.id}/media/${b.id}`, { caption: 'Kitchen', hidden_shown: '1' });
    assert.equal((await list())[0]?.hidden, false);
    const past = await post(`/dashboard/galleries/${g.id}/media/${b.id}`, { position: '9' });
    assert.match(past.headers.location ?? '', /notice=media-refused/);

    const order = await post(`/dashboard/galleries/${g.id}/order`, { media_ids: [c.id, a.id, b.id].join(',') });
    assert.equal(order.statusCode, 303);
    assert.deepEqual(
      (await list()).map((m) => m.filename),
      ['p3.jpg', 'p1.jpg', 'p2.jpg'],
    );
    assert.equal((await post(`/dashboard/galleries/${g.id}/order`, { media_ids: a.id })).statusCode, 400);

    assert.equal((await post(`/dashboard/galleries/${g.id}/media/${c.id}/cover`, {})).statusCode, 303);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.cover_media_id, c.id);

    // Thumbnails once made; before that, a placeholder.
    let page = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.match(page.body, /Preview being made/);
    await makeVariantsNow(ctx);
    page = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.ok(page.body.includes(`/dashboard/galleries/${g.id}/media/${a.id}/thumb`));
    const thumb = await browser.get(`/dashboard/galleries/${g.id}/media/${a.id}/thumb`);
    assert.equal(thumb.statusCode, 200);
    assert.equal(thumb.headers['content-type'], 'image/webp');

    assert.equal((await post(`/dashboard/galleries/${g.id}/media/${c.id}/delete`, {})).statusCode, 303);
    const after = (await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json;
    assert.equal(after.media_count, 2);
    assert.equal(after.cover_media_id, null);
  });

  test('assign to a new client and to a chosen one, resend, link settings, unassign', async () => {
    const { owner, browser, post } = await signedIn('Assign Studio');
    // Active: a draft is emailed only once confirmed (its own test is in clients.test.ts).
    const g = (await api<GalleryJson>(owner, 'POST', '/v1/listings', { address: '3 Dock Street', status: 'active' }))
      .json;
    await browser.get(`/dashboard/galleries/${g.id}`);
    const bad = await post(`/dashboard/galleries/${g.id}/assign`, {
      client_id: '',
      name: 'Ann',
      email: 'nope',
    });
    assert.match(bad.headers.location ?? '', /notice=assign-refused/);
    const res = await post(`/dashboard/galleries/${g.id}/assign`, {
      client_id: '',
      name: 'Ann Lee',
      email: 'ann@client.test',
      notify: '1',
    });
    assert.equal(res.headers.location, `/dashboard/galleries/${g.id}?notice=assigned-emailed#client`);
    let got = (await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json;
    assert.ok(got.client_id !== null && got.client_link !== null);
    assert.equal((await notificationRows(ctx)).filter((n) => n.listing_id === g.id).length, 1);
    const page = await browser.follow(res);
    assert.ok(page.body.includes(got.client_link.url), 'the link, to copy');
    assert.match(textOf(page.body), /Assigned to Ann Lee/);

    // The same email again is that client: not a second one, and no second email.
    const clients = async () => (await api<{ pagination: { total: number } }>(owner, 'GET', '/v1/clients')).json;
    const before = (await clients()).pagination.total;
    const dup = await post(`/dashboard/galleries/${g.id}/assign`, {
      client_id: '',
      name: 'A',
      email: 'ANN@client.test',
      notify: '1',
    });
    assert.match(dup.headers.location ?? '', /notice=assigned-existing/);
    assert.equal((await clients()).pagination.total, before);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.client_id, got.client_id);
    assert.equal((await notificationRows(ctx)).filter((n) => n.listing_id === g.id).length, 1);

    const resend = await post(`/dashboard/clients/${got.client_id}/galleries/${g.id}/resend`, {
      back: 'gallery',
    });
    assert.equal(resend.headers.location, `/dashboard/galleries/${g.id}?notice=email-resent#client`);
    assert.equal((await notificationRows(ctx)).filter((n) => n.listing_id === g.id).length, 2);

    const link = await post(`/dashboard/galleries/${g.id}/link`, {
      back: 'gallery',
      expires_on: '',
      password: 'a fine password',
    });
    assert.equal(link.headers.location, `/dashboard/galleries/${g.id}?notice=link-saved#client`);
    got = (await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json;
    assert.equal(got.client_link?.password_protected, true);
    assert.equal(got.client_link?.downloads_enabled, false);

    // Another client, chosen in the list, without an email.
    const bo = (await api<{ id: string }>(owner, 'POST', '/v1/clients', { name: 'Bo Chen', email: 'bo@client.test' }))
      .json;
    const chosen = await post(`/dashboard/galleries/${g.id}/assign`, { client_id: bo.id });
    assert.equal(chosen.headers.location, `/dashboard/galleries/${g.id}?notice=assigned#client`);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.client_id, bo.id);
    assert.equal((await notificationRows(ctx)).filter((n) => n.listing_id === g.id && n.status === 'queued').length, 0);

    assert.equal((await post(`/dashboard/galleries/${g.id}/unassign`, {})).statusCode, 303);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.client_id, null);
  });

  test('property pages: only an active gallery publishes; unpublish; activity counts the views', async () => {
    const { owner, browser, post } = await signedIn('Property Studio');
    const g = (await api<GalleryJson>(owner, 'POST', '/v1/listings', { address: '8 Beach Road' })).json;
    await browser.get(`/dashboard/galleries/${g.id}`);
    const draft = await post(`/dashboard/galleries/${g.id}/property-page`, {});
    assert.match(draft.headers.location ?? '', /notice=publish-refused/);
    await api(owner, 'PATCH', `/v1/listings/${g.id}`, { status: 'active' });
    const published = await post(`/dashboard/galleries/${g.id}/property-page`, {});
    assert.match(published.headers.location ?? '', /notice=published/);
    const got = (await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json;
    assert.ok(got.property_page !== null);
    assert.equal((await ctx.app.inject({ url: new URL(got.property_page.url).pathname })).statusCode, 200);

    await post(`/dashboard/galleries/${g.id}/assign`, { client_id: '', name: 'Cy', email: 'cy@client.test' });
    const link = (await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.client_link;
    assert.ok(link !== null);
    for (let i = 0; i < 2; i += 1) await ctx.app.inject({ url: new URL(link.url).pathname });
    const page = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.ok(page.body.includes(got.property_page.url));
    assert.match(page.body, /data-testid="link-views">2</);
    assert.match(page.body, /data-testid="property-views">1</);

    const down = await post(`/dashboard/galleries/${g.id}/property-page/delete`, {});
    assert.match(down.headers.location ?? '', /notice=unpublished/);
    assert.equal((await api<GalleryJson>(owner, 'GET', `/v1/listings/${g.id}`)).json.property_page, null);
  });

  test('delete after confirming; another account’s gallery is not found; no token, no change', async () => {
    const { owner, browser, post } = await signedIn('Delete Studio');
    const g = (await api<GalleryJson>(owner, 'POST', '/v1/listings', { address: '4 Gone Lane' })).json;
    const other = await createAccount(ctx, 'Their Studio');
    const theirs = (await api<GalleryJson>(other, 'POST', '/v1/listings', { address: '9 Kept Lane' })).json;
    assert.equal((await browser.get(`/dashboard/galleries/${theirs.id}`)).statusCode, 404);
    await browser.get('/dashboard/galleries');
    assert.equal((await post(`/dashboard/galleries/${theirs.id}/delete`, {})).statusCode, 404);
    assert.equal((await post(`/dashboard/galleries/${g.id}/delete`, {}, { csrf: null })).statusCode, 403);
    assert.equal((await browser.get(`/dashboard/galleries/${g.id}/delete`)).statusCode, 200);
    const gone = await post(`/dashboard/galleries/${g.id}/delete`, {});
    assert.equal(gone.headers.location, '/dashboard/galleries?notice=gallery-deleted');
    assert.equal((await api(owner, 'GET', `/v1/listings/${g.id}`)).status, 404);
    assert.equal((await api(other, 'GET', `/v1/listings/${theirs.id}`)).status, 200);
  });
});
