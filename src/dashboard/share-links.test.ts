// The dashboard's share links panel on a gallery's page (docs/api.md §28): made, changed, emailed
// again, given a new URL and deleted through plain forms, each write the share links service's (the
// API reads back what the form did); a refused form comes back as typed with what to fix beside the
// field and nothing saved; another studio's gallery or link is not found.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, inputValue, textOf } from '../../test/support/dashboard-browser.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../test/support/test-app.ts';
import { visit } from '../../test/support/gallery.ts';
import { shareLinkHelpers, type ShareLinkJson } from '../../test/support/share-links.ts';

const PASSWORD = 'correct horse battery';
const DAY = 24 * 60 * 60 * 1000;
let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

/** A day as the date input sends it, `days` from today (UTC). */
const dayFromNow = (days: number): string => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

async function studio(name: string) {
  const owner = await createAccount(ctx, name);
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
  const h = shareLinkHelpers(ctx, owner);
  const links = async (listingId: string) =>
    (await call(ctx, 'GET', h.base(listingId), { key: owner.key })).json<{ data: ShareLinkJson[] }>().data;
  const emails = async (linkId: string) =>
    (await call(ctx, 'GET', '/v1/notifications', { key: owner.key }))
      .json<{ data: { share_link_id: string | null }[] }>()
      .data.filter((n) => n.share_link_id === linkId).length;
  return { owner, browser, h, links, emails };
}

test('a share link is made from the gallery page, shown with its URL, controls and counts, and emailed', async () => {
  const { browser, h, links, emails } = await studio('Share Studio');
  const g = await h.galleryWithPhotos(2);
  const page = await browser.get(`/dashboard/galleries/${g.listingId}`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h2 id="share-links-title">Share links<\/h2>/);
  assert.match(textOf(page.body), /Share links None yet/);
  assert.doesNotMatch(page.body, /<details class="edit-details" open>\s*<summary>\s*<h2 id="share-links-title"/);
  const expires = dayFromNow(30);
  const made = await browser.post(
    `/dashboard/galleries/${g.listingId}/share-links`,
    {
      label: '  Agent team ',
      email: 'agent@realty.test',
      expires_on: expires,
      password: 'a long secret',
      favorites_enabled: '1',
      selection_min: '1',
      selection_max: '2',
    },
    { csrf: browser.token() },
  );
  assert.equal(made.statusCode, 303, made.body);
  const [link] = await links(g.listingId);
  assert.ok(link !== undefined);
  assert.equal(made.headers.location, `/dashboard/galleries/${g.listingId}?notice=share-link-emailed#${link.id}`);
  assert.deepEqual(
    {
      label: link.label,
      email: link.email,
      expires_at: link.expires_at,
      password_protected: link.password_protected,
      downloads_enabled: link.downloads_enabled,
      favorites_enabled: link.favorites_enabled,
      selection_min: link.selection_min,
      selection_max: link.selection_max,
    },
    {
      label: 'Agent team',
      email: 'agent@realty.test',
      expires_at: `${expires}T23:59:59.999Z`,
      password_protected: true,
      downloads_enabled: false,
      favorites_enabled: true,
      selection_min: 1,
      selection_max: 2,
    },
  );
  assert.equal(await emails(link.id), 1, 'the email is queued');
  const shown = await browser.follow(made);
  const text = textOf(shown.body);
  assert.match(text, /Share link created; the email with its URL is on its way/);
  assert.match(shown.body, /<details class="edit-details" open>\s*<summary>\s*<h2 id="share-links-title"/);
  assert.equal(inputValue(shown.body, `shl-url-${link.id}`), link.url, 'the URL, copyable');
  assert.match(text, /Agent team Password protected/);
  assert.match(
    text,
    /expires \d+ \w+ \d{4} · downloads off · favorites on · choose 1–2 · emailed to agent@realty\.test/,
  );
  assert.match(text, /0 views · 0 downloads · 0 favorites · last viewed not yet/);

  // The visitor opens it, marks a photo, comments and sends the selection: the panel shows it all.
  const path = new URL(link.url).pathname;
  const unlocked = await h.form(`${path}/unlock`, { password: 'a long secret' });
  assert.equal(unlocked.statusCode, 303);
  const cookie = String(unlocked.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const asVisitor = (url: string, fields: Record<string, string>) => h.form(url, fields, { cookie });
  assert.equal((await visit(ctx, path, { headers: { cookie } })).statusCode, 200);
  assert.equal((await asVisitor(`${path}/favorites/${g.ids[1]}`, { on: '1' })).statusCode, 303);
  assert.equal((await asVisitor(`${path}/comments/${g.ids[1]}`, { comment: 'Brighter, <please>' })).statusCode, 303);
  assert.equal((await asVisitor(`${path}/favorites`, { note: 'Our pick' })).statusCode, 303);
  const after = textOf((await browser.get(`/dashboard/galleries/${g.listingId}`)).body);
  assert.match(after, /Share links 1 link, 1 view Open/);
  assert.match(after, /1 view · 0 downloads · 1 favorite/);
  assert.match(
    after,
    /Selection sent .* UTC ?: 1 photo, with a note: Our pick p2\.jpg Comments: p2\.jpg ?: Brighter, <please>/,
  );

  // Email again: a second email; a link without an email has no such button, and its route says so.
  const token = browser.token();
  const again = await browser.post(
    `/dashboard/galleries/${g.listingId}/share-links/${link.id}/notify`,
    {},
    { csrf: token },
  );
  assert.equal(again.statusCode, 303);
  assert.equal(
    again.headers.location,
    `/dashboard/galleries/${g.listingId}?notice=share-link-emailed-again#${link.id}`,
  );
  assert.equal(await emails(link.id), 2);
  const plain = await browser.post(
    `/dashboard/galleries/${g.listingId}/share-links`,
    { label: 'Stager' },
    { csrf: token },
  );
  assert.equal(plain.statusCode, 303, plain.body);
  assert.match(String(plain.headers.location), /notice=share-link-created#shl_/);
  const stager = (await links(g.listingId)).find((l) => l.label === 'Stager');
  assert.ok(stager !== undefined);
  assert.deepEqual(
    [stager.email, stager.downloads_enabled, stager.favorites_enabled, stager.password_protected, stager.expires_at],
    [null, false, false, false, null],
    'unticked switches are off',
  );
  assert.equal(await emails(stager.id), 0);
  const page2 = (await browser.get(`/dashboard/galleries/${g.listingId}`)).body;
  assert.ok(!page2.includes(`share-links/${stager.id}/notify`), 'no Email again without an email');
  const none = await browser.post(
    `/dashboard/galleries/${g.listingId}/share-links/${stager.id}/notify`,
    {},
    { csrf: token },
  );
  assert.equal(none.headers.location, `/dashboard/galleries/${g.listingId}?notice=share-link-no-email#${stager.id}`);
  assert.equal(await emails(stager.id), 0);
});

test('a refused form comes back as typed, with what to fix beside each field; nothing is saved', async () => {
  const { browser, h, links } = await studio('Refusing Studio');
  const g = await h.galleryWithPhotos(1);
  await browser.get(`/dashboard/galleries/${g.listingId}`);
  const token = browser.token();
  const create = (fields: Record<string, string>) =>
    browser.post(`/dashboard/galleries/${g.listingId}/share-links`, fields, { csrf: token });

  const empty = await create({ label: '  ', email: 'not an email', selection_min: 'three', password: 'short' });
  assert.equal(empty.statusCode, 400);
  const text = textOf(empty.body);
  assert.match(text, /Label: Give the link a label/);
  assert.match(text, /Email: Enter an email address like name@example\.com/);
  assert.match(text, /Fewest to choose: Enter a whole number from 1 to 10,000, or leave it empty/);
  assert.match(text, /Password: Use at least 8 characters/);
  assert.equal(inputValue(empty.body, 'f-shl-new-email'), 'not an email', 'kept as typed');
  assert.equal(inputValue(empty.body, 'f-shl-new-selection_min'), 'three');
  assert.equal(inputValue(empty.body, 'f-shl-new-password'), undefined, 'a password is never sent back');
  assert.match(empty.body, /id="f-shl-new-label"[^>]*aria-describedby="f-shl-new-label-hint f-shl-new-label-error"/);
  assert.match(empty.body, /<details class="share-link-new" open>/);

  const past = await create({ label: 'Late', expires_on: dayFromNow(-2) });
  assert.equal(past.statusCode, 400);
  assert.match(textOf(past.body), /Expires on: Choose a day after today, or leave it empty/);
  const bounds = await create({ label: 'Bounds', selection_min: '5', selection_max: '2' });
  assert.equal(bounds.statusCode, 400);
  assert.match(textOf(bounds.body), /Fewest to choose: The fewest must not be more than the most/);
  assert.equal(inputValue(bounds.body, 'f-shl-new-label'), 'Bounds');
  const garbled = await create({ label: 'Date', expires_on: '31/12/2027' });
  assert.match(textOf(garbled.body), /Expires on: Enter a day, like 2027-03-31/);
  assert.deepEqual(await links(g.listingId), [], 'nothing was made');

  // Editing: refused as typed too, the link as it was.
  assert.equal((await create({ label: 'Agent', selection_max: '3', downloads_enabled: '1' })).statusCode, 303);
  const [link] = await links(g.listingId);
  assert.ok(link !== undefined);
  const edit = (fields: Record<string, string>) =>
    browser.post(`/dashboard/galleries/${g.listingId}/share-links/${link.id}`, fields, { csrf: token });
  const refused = await edit({ label: 'Agent B', selection_min: '9', selection_max: '3' });
  assert.equal(refused.statusCode, 400);
  assert.match(textOf(refused.body), /Fewest to choose: The fewest must not be more than the most/);
  assert.equal(inputValue(refused.body, `f-${link.id}-label`), 'Agent B');
  assert.match(refused.body, /<details class="share-link-edit" open>/);
  assert.deepEqual(await links(g.listingId), [link], 'unchanged');
});

test('edit, new URL and delete (after asking) go through the service; an untouched form writes nothing', async () => {
  const { browser, h, links } = await studio('Editing Studio');
  const g = await h.galleryWithPhotos(1);
  const { link, path } = await h.shareLink(g.listingId, { password: 'first secret', selection_max: 4 });
  const page = await browser.get(`/dashboard/galleries/${g.listingId}`);
  assert.match(page.body, /Remove the password/);
  const token = browser.token();
  const post = (url: string, fields: Record<string, string> = {}) =>
    browser.post(`/dashboard/galleries/${g.listingId}/share-links/${link.id}${url}`, fields, { csrf: token });
  const asShown = {
    label: link.label,
    downloads_enabled: '1',
    favorites_enabled: '1',
    selection_max: '4',
  };
  const untouched = await post('', asShown);
  assert.equal(untouched.statusCode, 303);
  assert.equal(untouched.headers.location, `/dashboard/galleries/${g.listingId}?notice=share-link-saved#${link.id}`);
  assert.deepEqual(await h.get(g.listingId, link.id), link, 'nothing written');
  assert.equal((await h.events('share_link.updated')).length, 0);

  const saved = await post('', { label: 'Agents', remove_password: '1', favorites_enabled: '1', selection_min: '2' });
  assert.equal(saved.statusCode, 303);
  const now = await h.get(g.listingId, link.id);
  assert.deepEqual(
    [now.label, now.password_protected, now.downloads_enabled, now.selection_min, now.selection_max, now.url],
    ['Agents', false, false, 2, null, link.url],
  );
  assert.equal((await h.events('share_link.updated')).length, 1);
  assert.match(textOf((await browser.follow(saved)).body), /Share link saved\./);

  const rotated = await post('/rotate');
  assert.equal(rotated.statusCode, 303);
  assert.equal(rotated.headers.location, `/dashboard/galleries/${g.listingId}?notice=share-link-rotated#${link.id}`);
  const fresh = await h.get(g.listingId, link.id);
  assert.notEqual(fresh.url, link.url);
  assert.equal((await visit(ctx, path)).statusCode, 404, 'the old URL stops');
  assert.equal((await visit(ctx, new URL(fresh.url).pathname)).statusCode, 200);
  assert.equal(inputValue((await browser.follow(rotated)).body, `shl-url-${link.id}`), fresh.url);

  const ask = await browser.get(`/dashboard/galleries/${g.listingId}/share-links/${link.id}/delete`);
  assert.equal(ask.statusCode, 200);
  assert.match(textOf(ask.body), /Delete the share link “Agents”\?/);
  assert.deepEqual(
    (await links(g.listingId)).map((l) => l.url),
    [fresh.url],
    'asking deletes nothing',
  );
  const deleted = await browser.post(
    `/dashboard/galleries/${g.listingId}/share-links/${link.id}/delete`,
    {},
    { csrf: browser.token() },
  );
  assert.equal(deleted.statusCode, 303);
  assert.equal(deleted.headers.location, `/dashboard/galleries/${g.listingId}?notice=share-link-deleted#share-links`);
  assert.deepEqual(await links(g.listingId), []);
  assert.equal((await visit(ctx, new URL(fresh.url).pathname)).statusCode, 404);
  assert.equal((await h.events('share_link.deleted')).length, 1);
  const gone = await post('/rotate');
  assert.equal(gone.statusCode, 404, 'a deleted link is not found');
});

test("refusals: another studio's gallery or link, another gallery's link, a form without its token", async () => {
  const mine = await studio('Mine Studio');
  const theirs = await studio('Theirs Studio');
  const g = await mine.h.galleryWithPhotos(1);
  const other = await mine.h.galleryWithPhotos(1);
  const { link } = await mine.h.shareLink(g.listingId);
  const foreign = await theirs.h.galleryWithPhotos(1);
  const { link: foreignLink } = await theirs.h.shareLink(foreign.listingId);
  await mine.browser.get(`/dashboard/galleries/${g.listingId}`);
  const token = mine.browser.token();
  const post = (url: string, fields: Record<string, string> = {}, csrf: string | null = token) =>
    mine.browser.post(url, fields, { csrf });

  assert.equal((await post(`/dashboard/galleries/${foreign.listingId}/share-links`, { label: 'x' })).statusCode, 404);
  for (const [gallery, id] of [
    [foreign.listingId, foreignLink.id],
    [g.listingId, foreignLink.id],
    [other.listingId, link.id],
    [g.listingId, 'shl_nonsense'],
  ] as const) {
    const base = `/dashboard/galleries/${gallery}/share-links/${id}`;
    for (const url of [base, `${base}/notify`, `${base}/rotate`, `${base}/delete`]) {
      assert.equal((await post(url, { label: 'x' })).statusCode, 404, url);
    }
    assert.equal((await mine.browser.get(`${base}/delete`)).statusCode, 404, `${base}/delete`);
  }
  const noToken = await post(`/dashboard/galleries/${g.listingId}/share-links/${link.id}/delete`, {}, null);
  assert.equal(noToken.statusCode, 403);
  assert.equal((await post(`/dashboard/galleries/${g.listingId}/share-links`, { label: 'y' }, null)).statusCode, 403);
  assert.deepEqual(
    (await mine.links(g.listingId)).map((l) => l.id),
    [link.id],
    'nothing made or deleted',
  );
  assert.deepEqual(await theirs.h.get(foreign.listingId, foreignLink.id), foreignLink);
});
