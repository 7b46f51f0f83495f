// A client's page gives them a gallery (docs/api.md §27) over HTTP (app.inject): one of the studio's
// unassigned galleries, or a new one made for them (its address) in the same write; a draft gallery
// is emailed only once confirmed (here, from the gallery's page and by Resend), on a page that
// needs no JavaScript. Forms carry the session's token, are checked by the /v1 routes' schemas, and
// reach only the signed-in account's clients and galleries, for the owner and a member alike.
// Links are shown as one readonly field with a Copy button and, when protected, the password mark.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, inputValue, textOf } from '../../test/support/dashboard-browser.ts';
import { addMember } from '../../test/support/team.ts';
import { newClient, newGallery, notificationRows } from '../../test/support/notification-helpers.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

const PASSWORD = 'correct horse battery';
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

interface GalleryJson {
  id: string;
  address: string;
  status: string;
  client_id: string | null;
  client_link: { url: string; password_protected: boolean } | null;
}

let members = 0;

/** Signed in (the owner, or a member of the team); `post` sends a form with the session's token. */
async function signedIn(name: string, as: 'owner' | 'member' = 'owner') {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  let email = owner.email;
  if (as === 'member') {
    members += 1;
    email = `assistant${members}@team.test`;
    await addMember(ctx, owner.accountId, email, PASSWORD);
  }
  assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
  await browser.get('/dashboard');
  const token = browser.token();
  const post = (url: string, fields: Record<string, string>) => browser.post(url, fields, { csrf: token });
  return { owner, browser, post, token };
}

const gallery = async (owner: TestAccount, id: string): Promise<GalleryJson> =>
  (await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key })).json<GalleryJson>();

const galleriesOf = async (owner: TestAccount): Promise<GalleryJson[]> =>
  (await call(ctx, 'GET', '/v1/listings', { key: owner.key })).json<{ data: GalleryJson[] }>().data;

/** The hidden inputs of the confirmation's first form (the one that sends the email). */
function confirmFields(page: string): Record<string, string> {
  const form = /<form method="post"[\s\S]*?<\/form>/.exec(page.slice(page.indexOf('<main')))?.[0] ?? '';
  return Object.fromEntries(
    [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

describe("a client's page gives them a gallery", () => {
  test('an existing gallery: offered when unassigned, assigned with or without the email', async () => {
    const { owner, browser, post } = await signedIn('Give Studio');
    const client = await newClient(ctx, owner, { name: 'Ann Lee', email: 'ann@give.test' });
    const active = await newGallery(ctx, owner, { address: '12 Quay Street', status: 'active' });
    const quiet = await newGallery(ctx, owner, { address: '3 Mill Lane', status: 'active' });
    const other = await newClient(ctx, owner, { name: 'Bo Chen', email: 'bo@give.test' });
    const taken = await newGallery(ctx, owner, { address: '9 Taken Row', status: 'active' });
    await call(ctx, 'POST', `/v1/clients/${other.id}/listings/${taken.id}`, {
      key: owner.key,
      query: { notify: 'false' },
    });

    const page = await browser.get(`/dashboard/clients/${client.id}`);
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    assert.match(text, /Give Ann Lee a gallery An existing gallery Gallery/);
    assert.match(page.body, new RegExp(`<option value="${active.id}"\\s*>\\s*12 Quay Street \\(active\\)`));
    assert.ok(!page.body.includes(`value="${taken.id}"`), "another client's gallery is not offered");

    const sent = await post(`/dashboard/clients/${client.id}/galleries`, {
      listing_id: active.id,
      notify: '1',
    });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(
      sent.headers.location,
      `/dashboard/clients/${client.id}?notice=gallery-given-emailed#client-galleries`,
    );
    assert.equal((await gallery(owner, active.id)).client_id, client.id);
    const rows = await notificationRows(ctx, active.id);
    assert.deepEqual(
      rows.map((r) => [r.client_id, r.to_email]),
      [[client.id, 'ann@give.test']],
    );

    const silent = await post(`/dashboard/clients/${client.id}/galleries`, { listing_id: quiet.id });
    assert.equal(silent.headers.location, `/dashboard/clients/${client.id}?notice=gallery-given#client-galleries`);
    assert.equal((await gallery(owner, quiet.id)).client_id, client.id);
    assert.equal((await notificationRows(ctx, quiet.id)).length, 0, 'no email unless asked');
    const after = textOf((await browser.follow(silent)).body);
    assert.match(after, /Gallery assigned\./);
    assert.match(after, /Galleries \(2\)/);
  });

  test('a new gallery: made and assigned in one step, checked by POST /v1/listings’s schema', async () => {
    const { owner, browser, post } = await signedIn('New For Client Studio');
    const client = await newClient(ctx, owner, { name: 'Cy Dorn', email: 'cy@new.test' });
    await browser.get(`/dashboard/clients/${client.id}`);
    const url = `/dashboard/clients/${client.id}/galleries/new`;

    const empty = await post(url, { address: '  ', status: 'draft' });
    assert.equal(empty.statusCode, 400);
    assert.match(textOf(empty.body), /Please fix this and try again: Address: Enter the address/);
    assert.match(empty.body, /id="f-address"[^>]*aria-invalid="true"/);
    const long = await post(url, { address: 'x'.repeat(501), status: 'draft' });
    assert.equal(long.statusCode, 400);
    assert.match(textOf(long.body), /Address: Use at most 500 characters/);
    const twoLines = await post(url, { address: '1 A Road\n2 B Road', status: 'active' });
    assert.match(textOf(twoLines.body), /Address: Use one line/);
    assert.equal(inputValue(twoLines.body, 'f-address'), '1 A Road\n2 B Road', 'what was typed is kept');
    const status = await post(url, { address: '1 A Road', status: 'sold' });
    assert.equal(status.statusCode, 400);
    assert.match(textOf(status.body), /Status: Choose draft or active/);
    assert.deepEqual(await galleriesOf(owner), [], 'nothing refused was made');

    const made = await post(url, { address: ' 7 Harbour View ', status: 'active' });
    assert.equal(made.statusCode, 303, made.body);
    const id = /\/dashboard\/galleries\/(lst_[^?]+)\?notice=created-for-client$/.exec(made.headers.location ?? '')?.[1];
    assert.ok(id !== undefined, made.headers.location);
    const got = await gallery(owner, id);
    assert.deepEqual([got.address, got.status, got.client_id], ['7 Harbour View', 'active', client.id]);
    assert.ok(got.client_link !== null, 'the client has the link');
    assert.equal((await notificationRows(ctx, id)).length, 0, 'no email unless asked');
    assert.match(textOf((await browser.follow(made)).body), /Gallery created and assigned to the client\./);

    // The events of one write: the gallery created and assigned, as the API's two calls would say.
    const events = (await call(ctx, 'GET', '/v1/events', { key: owner.key, query: { limit: '10' } })).json<{
      data: { type: string; data: { object: { id: string } } }[];
    }>();
    const types = events.data.filter((e) => e.data.object.id === id).map((e) => e.type);
    assert.deepEqual(types.sort(), ['listing.assigned', 'listing.created']);
  });

  test('a draft is emailed only once confirmed, on a page that needs no script', async () => {
    const { owner, browser, post, token } = await signedIn('Draft Studio');
    const client = await newClient(ctx, owner, { name: 'Di Ross', email: 'di@draft.test' });
    const draft = await newGallery(ctx, owner, { address: '5 Draft Close' });
    await browser.get(`/dashboard/clients/${client.id}`);

    // An existing draft, with the email: the confirmation, and nothing done yet.
    const asked = await post(`/dashboard/clients/${client.id}/galleries`, {
      listing_id: draft.id,
      notify: '1',
    });
    assert.equal(asked.statusCode, 200);
    const text = textOf(asked.body);
    assert.match(text, /Email “5 Draft Close” while it is a draft\?/);
    assert.match(text, /This gallery is still a draft Di Ross gets an email/);
    assert.match(text, /Email Di Ross anyway Assign without an email Cancel/);
    assert.match(asked.body, /<div class="draft-warning" role="alert">/);
    assert.equal((await gallery(owner, draft.id)).client_id, null, 'not assigned before the answer');
    assert.equal((await notificationRows(ctx, draft.id)).length, 0);
    const fields = confirmFields(asked.body);
    assert.deepEqual(fields, { _csrf: token, listing_id: draft.id, notify: '1', confirm_draft: '1' });

    const confirmed = await browser.post(`/dashboard/clients/${client.id}/galleries`, fields, { csrf: null });
    assert.equal(confirmed.statusCode, 303, confirmed.body);
    assert.match(confirmed.headers.location ?? '', /notice=gallery-given-emailed/);
    assert.equal((await gallery(owner, draft.id)).client_id, client.id);
    assert.equal((await notificationRows(ctx, draft.id)).length, 1);

    // A new draft with the email: asked too; "Assign without an email" makes it, sending nothing.
    await browser.get(`/dashboard/clients/${client.id}`);
    const newDraft = await post(`/dashboard/clients/${client.id}/galleries/new`, {
      address: '6 Draft Close',
      status: 'draft',
      notify: '1',
    });
    assert.equal(newDraft.statusCode, 200);
    assert.match(textOf(newDraft.body), /Email “6 Draft Close” while it is a draft\?/);
    assert.equal((await galleriesOf(owner)).length, 1, 'nothing made before the answer');
    const second = [...newDraft.body.matchAll(/<form method="post"[\s\S]*?<\/form>/g)][2]?.[0] ?? '';
    assert.match(second, /Assign without an email/);
    assert.doesNotMatch(second, /name="notify"|name="confirm_draft"/);
    const without = await post(`/dashboard/clients/${client.id}/galleries/new`, {
      address: '6 Draft Close',
      status: 'draft',
    });
    const id = /(lst_[^?]+)\?notice=created-for-client$/.exec(without.headers.location ?? '')?.[1] ?? '';
    assert.equal((await gallery(owner, id)).client_id, client.id);
    assert.equal((await notificationRows(ctx, id)).length, 0);
  });

  test("another account's client or gallery is the 404 page, and nothing is written", async () => {
    const { owner, browser, post } = await signedIn('Mine Studio');
    const mine = await newClient(ctx, owner, { name: 'Mine', email: 'mine@own.test' });
    const other = await createAccount(ctx, 'Theirs Studio');
    const theirClient = await newClient(ctx, other, { name: 'Theirs', email: 'theirs@own.test' });
    const theirGallery = await newGallery(ctx, other, { address: '1 Their Road', status: 'active' });
    await browser.get(`/dashboard/clients/${mine.id}`);

    const theirListing = await post(`/dashboard/clients/${mine.id}/galleries`, {
      listing_id: theirGallery.id,
      notify: '1',
    });
    assert.equal(theirListing.statusCode, 404);
    assert.equal((await gallery(other, theirGallery.id)).client_id, null);
    const toTheirClient = await post(`/dashboard/clients/${theirClient.id}/galleries/new`, {
      address: '2 Sneaky Road',
      status: 'active',
    });
    assert.equal(toTheirClient.statusCode, 404);
    assert.deepEqual(await galleriesOf(owner), []);
    assert.deepEqual(
      (await galleriesOf(other)).map((g) => g.address),
      ['1 Their Road'],
    );
    const mineGallery = await newGallery(ctx, owner, { address: '3 Own Road', status: 'active' });
    const theirs = await post(`/dashboard/clients/${theirClient.id}/galleries`, { listing_id: mineGallery.id });
    assert.equal(theirs.statusCode, 404);
    assert.equal((await gallery(owner, mineGallery.id)).client_id, null);

    // The service alone refuses it too, in its write: no gallery, no count, no event left behind.
    const before = await ctx.services.counts.counts(owner.accountId);
    await assert.rejects(
      ctx.services.clients.createListingFor(owner.accountId, theirClient.id, { address: '4 Service Road' }),
      { code: 'not_found' },
    );
    assert.deepEqual(await ctx.services.counts.counts(owner.accountId), before);
    assert.deepEqual(
      (await galleriesOf(owner)).map((g) => g.address),
      ['3 Own Road'],
    );

    const none = await post(`/dashboard/clients/${mine.id}/galleries`, { listing_id: '' });
    assert.equal(none.statusCode, 400);
    assert.match(textOf(none.body), /Gallery: Choose a gallery/);
    const unknown = await post(`/dashboard/clients/${mine.id}/galleries`, { listing_id: 'lst_nothing' });
    assert.equal(unknown.statusCode, 404);
  });

  test('a form without the session’s token, or from another site, is refused', async () => {
    const { owner, browser, token } = await signedIn('Token Studio');
    const client = await newClient(ctx, owner, { name: 'Tok', email: 'tok@token.test' });
    const g = await newGallery(ctx, owner, { address: '4 Token Road', status: 'active' });
    await browser.get(`/dashboard/clients/${client.id}`);
    const noToken = await browser.post(
      `/dashboard/clients/${client.id}/galleries`,
      { listing_id: g.id },
      { csrf: null },
    );
    assert.equal(noToken.statusCode, 403);
    const wrong = await browser.post(
      `/dashboard/clients/${client.id}/galleries/new`,
      { address: '5 Token Road', status: 'active' },
      { csrf: 'x'.repeat(43) },
    );
    assert.equal(wrong.statusCode, 403);
    const crossSite = await browser.post(
      `/dashboard/clients/${client.id}/galleries/new`,
      { address: '5 Token Road', status: 'active' },
      { csrf: token, headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.test' } },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await gallery(owner, g.id)).client_id, null);
    assert.deepEqual(
      (await galleriesOf(owner)).map((x) => x.address),
      ['4 Token Road'],
    );
  });

  test('a member of the team gives galleries too; signed out, nothing is done', async () => {
    const { owner, browser, post, token } = await signedIn('Team Give Studio', 'member');
    const client = await newClient(ctx, owner, { name: 'Eve Fox', email: 'eve@team.test' });
    await browser.get(`/dashboard/clients/${client.id}`);
    const made = await post(`/dashboard/clients/${client.id}/galleries/new`, {
      address: '8 Member Mews',
      status: 'active',
    });
    assert.equal(made.statusCode, 303, made.body);
    const [only] = await galleriesOf(owner);
    assert.equal(only?.client_id, client.id);

    await post('/dashboard/sign-out', {});
    const signedOut = await browser.post(
      `/dashboard/clients/${client.id}/galleries/new`,
      { address: '9 Gone Mews', status: 'active' },
      { csrf: token },
    );
    assert.equal(signedOut.statusCode, 303);
    assert.equal(signedOut.headers.location, '/dashboard/sign-in?notice=session-ended');
    assert.equal((await galleriesOf(owner)).length, 1);
  });
});

describe('a draft gallery is emailed only once confirmed, wherever the email is asked for', () => {
  test("from the gallery's page: assigning with the email asks first", async () => {
    const { owner, browser, post } = await signedIn('Gallery Draft Studio');
    const g = await newGallery(ctx, owner, { address: '10 Draft Street' });
    const page = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.match(textOf(page.body), /This gallery is a draft: if the client is emailed now, you are asked to confirm/);
    // A form that would be refused anyway is refused first, without asking.
    const typo = await post(`/dashboard/galleries/${g.id}/assign`, {
      client_id: '',
      name: 'Fay Gold',
      email: 'fay-at-draft.test',
      notify: '1',
    });
    assert.equal(typo.headers.location, `/dashboard/galleries/${g.id}?notice=assign-refused#client`);
    const asked = await post(`/dashboard/galleries/${g.id}/assign`, {
      client_id: '',
      name: 'Fay Gold',
      email: 'fay@draft.test',
      notify: '1',
    });
    assert.equal(asked.statusCode, 200);
    assert.match(textOf(asked.body), /Email “10 Draft Street” while it is a draft\? .* Email Fay Gold anyway/);
    assert.equal((await gallery(owner, g.id)).client_id, null);
    const confirmed = await browser.post(`/dashboard/galleries/${g.id}/assign`, confirmFields(asked.body), {
      csrf: null,
    });
    assert.equal(confirmed.headers.location, `/dashboard/galleries/${g.id}?notice=assigned-emailed#client`);
    assert.equal((await notificationRows(ctx, g.id)).length, 1);

    // Without the email a draft is assigned at once, as before.
    const quiet = await newGallery(ctx, owner, { address: '11 Draft Street' });
    await browser.get(`/dashboard/galleries/${quiet.id}`);
    const res = await post(`/dashboard/galleries/${quiet.id}/assign`, {
      client_id: '',
      name: 'Fay Gold',
      email: 'fay@draft.test',
    });
    assert.equal(res.headers.location, `/dashboard/galleries/${quiet.id}?notice=assigned-existing#client`);
  });

  test('Resend of a draft asks first; of an active gallery it sends at once', async () => {
    const { owner, browser, post } = await signedIn('Resend Draft Studio');
    const client = await newClient(ctx, owner, { name: 'Gus Hay', email: 'gus@draft.test' });
    const g = await newGallery(ctx, owner, { address: '12 Draft Street' });
    await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${g.id}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    await browser.get('/dashboard');
    const url = `/dashboard/clients/${client.id}/galleries/${g.id}/resend`;
    const asked = await post(url, { back: 'gallery' });
    assert.equal(asked.statusCode, 200);
    assert.match(textOf(asked.body), /Email Gus Hay anyway Cancel$/);
    assert.match(asked.body, new RegExp(`href="/dashboard/galleries/${g.id}#client">Cancel`));
    assert.equal((await notificationRows(ctx, g.id)).length, 0);
    const sent = await browser.post(url, confirmFields(asked.body), { csrf: null });
    assert.equal(sent.headers.location, `/dashboard/galleries/${g.id}?notice=email-resent#client`);
    assert.equal((await notificationRows(ctx, g.id)).length, 1);

    await call(ctx, 'PATCH', `/v1/listings/${g.id}`, { key: owner.key, body: { status: 'active' } });
    await browser.get('/dashboard');
    const at = await post(url, {});
    assert.equal(at.headers.location, '/dashboard?notice=email-resent');
    assert.equal((await notificationRows(ctx, g.id)).length, 2);

    const other = await createAccount(ctx, 'Other Resend Studio');
    const theirs = await newGallery(ctx, other, { address: '13 Their Street' });
    assert.equal((await post(`/dashboard/clients/${client.id}/galleries/${theirs.id}/resend`, {})).statusCode, 404);
  });
});

describe('links as the dashboard shows them', () => {
  test('one readonly field with a Copy button, and the password mark when the link asks for one', async () => {
    const { owner, browser } = await signedIn('Links Studio');
    const client = await newClient(ctx, owner, { name: 'Hal Ives', email: 'hal@links.test' });
    const g = await newGallery(ctx, owner, { address: '14 Link Lane', status: 'active' });
    await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${g.id}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    const { url } = (await gallery(owner, g.id)).client_link ?? { url: '' };

    const plain = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.equal(inputValue(plain.body, 'client-link'), url);
    assert.match(plain.body, /<input\s+id="client-link"\s+type="text"\s+readonly\s/);
    assert.match(plain.body, /data-copy-target="client-link"/);
    assert.doesNotMatch(textOf(plain.body), /Password protected/);
    const overview = await browser.get('/dashboard');
    assert.equal(inputValue(overview.body, `link-url-${g.id}`), url);
    assert.match(textOf(overview.body), /Client link Copy Client link for 14 Link Lane/);

    const set = await call(ctx, 'PATCH', `/v1/listings/${g.id}/client_link`, {
      key: owner.key,
      body: { password: 'a secret phrase' },
    });
    assert.equal(set.statusCode, 200, set.body);
    const locked = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.match(textOf(locked.body), /Client link Password protected/);
    assert.match(locked.body, /<span class="link-lock"\s+id="client-link-lock"><svg[^>]*aria-hidden="true"/);
    assert.match(locked.body, /id="client-link"[^>]*aria-describedby="client-link-lock"/);
    const lockedOverview = await browser.get('/dashboard');
    assert.match(textOf(lockedOverview.body), /14 Link Lane Client link Password protected/);
  });
});
