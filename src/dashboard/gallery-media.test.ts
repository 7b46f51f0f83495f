// A gallery's media grid in the dashboard over HTTP (app.inject), docs/api.md §27: the ticked
// items hidden, shown and deleted together (a deletion asked twice), by the owner and by a member
// of the team; each through one write of the media service, so a refusal or a failure leaves
// every ticked item as it was. One item's own page: caption, position, cover, its neighbours.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { Browser, textOf } from '../../test/support/dashboard-browser.ts';
import { jpeg, pdf } from '../../test/support/media-fixtures.ts';
import { mediaRows, storedKeys, uploaded, type MediaJson } from '../../test/support/media-helpers.ts';
import { addMember } from '../../test/support/team.ts';
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

type Fields = Readonly<Record<string, string | readonly string[]>>;

interface Studio {
  owner: TestAccount;
  browser: Browser;
  post: (url: string, fields: Fields, csrf?: string | null) => Promise<LightMyRequestResponse>;
}

async function signedIn(owner: TestAccount, email = owner.email): Promise<Studio> {
  const browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
  await browser.get('/dashboard');
  const token = browser.token();
  return {
    owner,
    browser,
    post: (url, fields, csrf = token) => browser.post(url, fields, { csrf }),
  };
}

/** A gallery with `n` photos and a PDF last; returns its id and its media in order. */
async function galleryWith(owner: TestAccount, n: number, address = '3 Dock Lane') {
  const created = await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address } });
  const id = created.json<{ id: string }>().id;
  const photos = await Promise.all(Array.from({ length: n }, (_, i) => jpeg(30 + i, 20)));
  await uploaded(ctx, owner.key, id, [
    ...photos.map((data, i) => ({ filename: `p${i + 1}.jpg`, contentType: 'image/jpeg', data })),
    { filename: 'plan.pdf', contentType: 'application/pdf', data: pdf('Plan') },
  ]);
  return { id, media: await mediaOf(owner, id) };
}

async function mediaOf(owner: TestAccount, id: string): Promise<MediaJson[]> {
  const res = await call(ctx, 'GET', `/v1/listings/${id}/media`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: MediaJson[] }>().data;
}

async function galleryOf(owner: TestAccount, id: string) {
  return (await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key })).json<{
    media_count: number;
    cover_media_id: string | null;
  }>();
}

/** The events of a type the account recorded, newest first. */
async function events(owner: TestAccount, type: string): Promise<{ id: string; hidden?: boolean }[]> {
  const res = await call(ctx, 'GET', `/v1/events?type=${type}&limit=100`, { key: owner.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: { data: { object: { id: string; hidden?: boolean } } }[] }>().data.map((e) => e.data.object);
}

/** What a refusal must leave as it was: every item, its place, caption and visibility, and the gallery. */
async function snapshot(owner: TestAccount, id: string) {
  const media = (await mediaOf(owner, id)).map((m) => [m.id, m.position, m.hidden, m.caption]);
  return { media, gallery: await galleryOf(owner, id) };
}

const bulk = (id: string) => `/dashboard/galleries/${id}/media/bulk`;

describe('the gallery page: a grid of the media, ticked to act on together', () => {
  test('the page shows a thumbnail grid with a box to tick each item and its marks', async () => {
    const owner = await createAccount(ctx, 'Grid Studio');
    const { browser } = await signedIn(owner);
    const g = await galleryWith(owner, 3);
    const [a, b] = g.media;
    assert.ok(a && b);
    await call(ctx, 'PATCH', `/v1/listings/${g.id}`, { key: owner.key, body: { cover_media_id: a.id } });
    await call(ctx, 'PATCH', `/v1/listings/${g.id}/media/${b.id}`, { key: owner.key, body: { hidden: true } });
    const page = await browser.get(`/dashboard/galleries/${g.id}`);
    assert.equal(page.statusCode, 200);
    for (const m of g.media) {
      assert.ok(page.body.includes(`name="media_id" value="${m.id}"`), `a box to tick ${m.filename}`);
      assert.ok(page.body.includes(`href="/dashboard/galleries/${g.id}/media/${m.id}"`), `a way to ${m.filename}`);
    }
    assert.match(page.body, new RegExp(`id="m-${a.id}"[^]*?mark-cover[^]*?</li>`));
    assert.match(page.body, new RegExp(`class="media-tile is-hidden" id="m-${b.id}"`));
    assert.match(page.body, /mark-document">PDF</);
    // No form per item on the grid: the caption, position and cover are on the item's page.
    assert.doesNotMatch(page.body, /name="caption"/);
    assert.doesNotMatch(page.body, /name="position"/);
    for (const action of ['hide', 'show', 'delete']) {
      assert.match(page.body, new RegExp(`name="action" value="${action}"`));
    }
  });

  test('hide and show the ticked items, as the owner and as a member; only they change', async () => {
    const owner = await createAccount(ctx, 'Hide Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 4);
    const [a, b, c, d] = g.media;
    assert.ok(a && b && c && d);

    const hidden = await studio.post(bulk(g.id), { action: 'hide', media_id: [a.id, c.id] });
    assert.equal(hidden.statusCode, 303);
    assert.equal(hidden.headers.location, `/dashboard/galleries/${g.id}?notice=media-hidden#media`);
    assert.deepEqual(
      (await mediaOf(owner, g.id)).map((m) => m.hidden),
      [true, false, true, false, false],
    );
    // One media.updated for each item that changed, with it hidden.
    const updated = await events(owner, 'media.updated');
    assert.deepEqual(updated.map((e) => e.id).sort(), [a.id, c.id].sort());
    assert.ok(updated.every((e) => e.hidden === true));
    const page = await studio.browser.get(`/dashboard/galleries/${g.id}?notice=media-hidden`);
    assert.match(textOf(page.body), /Hidden: the client no longer sees the ticked items\./);

    // A member of the team may too; an item already shown stays as it is (no event for it).
    await addMember(ctx, owner.accountId, 'assistant@hide.test', PASSWORD);
    const member = await signedIn(owner, 'assistant@hide.test');
    const shown = await member.post(bulk(g.id), { action: 'show', media_id: [a.id, b.id] });
    assert.equal(shown.headers.location, `/dashboard/galleries/${g.id}?notice=media-shown#media`);
    assert.deepEqual(
      (await mediaOf(owner, g.id)).map((m) => m.hidden),
      [false, false, true, false, false],
    );
    assert.equal((await events(owner, 'media.updated')).length, 3);
  });

  test('delete asks first, then deletes every ticked item in one go; positions close, the cover goes', async () => {
    const owner = await createAccount(ctx, 'Delete Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 4);
    const [a, b, c, d, plan] = g.media;
    assert.ok(a && b && c && d && plan);
    await call(ctx, 'PATCH', `/v1/listings/${g.id}`, { key: owner.key, body: { cover_media_id: c.id } });
    const before = await snapshot(owner, g.id);
    const gone = new Set([a.id, c.id, plan.id]);
    const keys = (await mediaRows(ctx, g.id)).filter((r) => gone.has(r.id)).map((r) => r.storage_key);
    assert.equal(keys.length, 3);
    const storedBefore = await storedKeys(ctx);
    for (const key of keys) assert.ok(storedBefore.includes(key));

    // The first press shows what is to go, and asks again; nothing is deleted yet.
    const asked = await studio.post(bulk(g.id), { action: 'delete', media_id: [a.id, c.id, plan.id] });
    assert.equal(asked.statusCode, 200);
    assert.match(textOf(asked.body), /Delete these 3 items\?/);
    for (const m of [a, c, plan]) assert.ok(asked.body.includes(`name="media_id" value="${m.id}"`));
    assert.ok(!asked.body.includes(`value="${b.id}"`));
    assert.deepEqual(await snapshot(owner, g.id), before);

    const done = await studio.post(bulk(g.id), {
      action: 'delete',
      confirm: '1',
      media_id: [a.id, c.id, plan.id],
    });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, `/dashboard/galleries/${g.id}?notice=media-deleted#media`);
    assert.deepEqual(
      (await mediaOf(owner, g.id)).map((m) => [m.id, m.position]),
      [
        [b.id, 1],
        [d.id, 2],
      ],
    );
    const after = await galleryOf(owner, g.id);
    assert.equal(after.media_count, 2);
    assert.equal(after.cover_media_id, null);
    assert.deepEqual((await events(owner, 'media.deleted')).map((e) => e.id).sort(), [a.id, c.id, plan.id].sort());
    // Their bytes went with them.
    const storedAfter = await storedKeys(ctx);
    for (const key of keys) assert.ok(!storedAfter.includes(key), `${key} is still stored`);
    for (const m of [a, c, plan]) {
      const gone = await call(ctx, 'GET', `/v1/listings/${g.id}/media/${m.id}`, { key: owner.key });
      assert.equal(gone.statusCode, 404);
    }
  });

  test('nothing ticked, an unknown action or too many items: refused in words, nothing changed', async () => {
    const owner = await createAccount(ctx, 'Refused Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 2);
    const [a] = g.media;
    assert.ok(a);
    const before = await snapshot(owner, g.id);
    const none = await studio.post(bulk(g.id), { action: 'hide' });
    assert.equal(none.headers.location, `/dashboard/galleries/${g.id}?notice=media-none-ticked#media`);
    const odd = await studio.post(bulk(g.id), { action: 'archive', media_id: [a.id] });
    assert.equal(odd.headers.location, `/dashboard/galleries/${g.id}?notice=media-bulk-refused#media`);
    const malformed = await studio.post(bulk(g.id), { action: 'hide', media_id: [a.id, 'med_../../x'] });
    assert.equal(malformed.headers.location, `/dashboard/galleries/${g.id}?notice=media-bulk-refused#media`);
    const many = Array.from({ length: 501 }, (_, i) => `med_${String(i).padStart(26, '0')}`);
    const tooMany = await studio.post(bulk(g.id), { action: 'hide', media_id: [a.id, ...many] });
    assert.equal(tooMany.headers.location, `/dashboard/galleries/${g.id}?notice=media-bulk-refused#media`);
    const page = await studio.browser.get(`/dashboard/galleries/${g.id}?notice=media-none-ticked`);
    assert.match(textOf(page.body), /Nothing was changed: tick one or more items first\./);
    assert.deepEqual(await snapshot(owner, g.id), before);
  });

  test("another gallery's or another studio's item among the ticked: 404, and none of them changes", async () => {
    const owner = await createAccount(ctx, 'Mixed Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 3);
    const other = await galleryWith(owner, 1, '5 Other Street');
    const stranger = await createAccount(ctx, 'Stranger Studio');
    const theirs = await galleryWith(stranger, 1, '8 Far Away');
    const [a, b] = g.media;
    const [otherPhoto] = other.media;
    const [theirPhoto] = theirs.media;
    assert.ok(a && b && otherPhoto && theirPhoto);
    const before = await snapshot(owner, g.id);
    const beforeOther = await snapshot(owner, other.id);
    const beforeTheirs = await snapshot(stranger, theirs.id);

    for (const foreign of [otherPhoto.id, theirPhoto.id]) {
      const tries: Fields[] = [
        { action: 'hide', media_id: [a.id, foreign, b.id] },
        { action: 'delete', media_id: [a.id, foreign] },
        { action: 'delete', confirm: '1', media_id: [a.id, b.id, foreign] },
      ];
      for (const fields of tries) {
        const res = await studio.post(bulk(g.id), fields);
        assert.equal(res.statusCode, 404, `${JSON.stringify(fields)}: ${textOf(res.body).slice(0, 120)}`);
      }
    }
    // Another studio's gallery, with its own items: the 404 page, as if there were none.
    const across = await studio.post(bulk(theirs.id), { action: 'delete', confirm: '1', media_id: [theirPhoto.id] });
    assert.equal(across.statusCode, 404);
    assert.deepEqual(await snapshot(owner, g.id), before);
    assert.deepEqual(await snapshot(owner, other.id), beforeOther);
    assert.deepEqual(await snapshot(stranger, theirs.id), beforeTheirs);
    assert.deepEqual(await events(owner, 'media.deleted'), []);
  });

  test('without the form token, from another site or signed out: nothing is done', async () => {
    const owner = await createAccount(ctx, 'Token Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 2);
    const ids = g.media.map((m) => m.id);
    const before = await snapshot(owner, g.id);
    const noToken = await studio.post(bulk(g.id), { action: 'delete', confirm: '1', media_id: ids }, null);
    assert.equal(noToken.statusCode, 403);
    const wrong = await studio.post(bulk(g.id), { action: 'hide', media_id: ids }, 'x'.repeat(43));
    assert.equal(wrong.statusCode, 403);
    const crossSite = await studio.browser.post(
      bulk(g.id),
      { action: 'delete', confirm: '1', media_id: ids },
      { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } },
    );
    assert.equal(crossSite.statusCode, 403);
    const out = new Browser(ctx.app);
    await out.get('/dashboard/sign-in');
    const signedOut = await out.post(bulk(g.id), { action: 'delete', confirm: '1', media_id: ids }, { csrf: null });
    assert.equal(signedOut.statusCode, 303);
    assert.match(String(signedOut.headers.location), /^\/dashboard\/sign-in/);
    assert.deepEqual(await snapshot(owner, g.id), before);
  });

  test('a failure in the middle of a deletion undoes all of it', async () => {
    const owner = await createAccount(ctx, 'Failing Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 3);
    const before = await snapshot(owner, g.id);
    const last = (await mediaRows(ctx, g.id)).at(-1)!;
    const cleanup = ctx.services.mediaCleanup;
    const scheduleNow = cleanup.scheduleNow.bind(cleanup);
    // Fails once the last item's bytes are to be scheduled: after the other items' rows are
    // deleted (one by one, each committed, they would be gone for good).
    cleanup.scheduleNow = async (trx, keys) => {
      if (keys.includes(last.storage_key)) throw new Error('the disk is full');
      await scheduleNow(trx, keys);
    };
    try {
      const res = await studio.post(bulk(g.id), { action: 'delete', confirm: '1', media_id: g.media.map((m) => m.id) });
      assert.equal(res.statusCode, 500);
    } finally {
      cleanup.scheduleNow = scheduleNow;
    }
    assert.deepEqual(await snapshot(owner, g.id), before);
    assert.deepEqual(await events(owner, 'media.deleted'), []);
  });
});

describe("one item's page", () => {
  test('caption, hide and move it, make it the cover; each form comes back to the item', async () => {
    const owner = await createAccount(ctx, 'Item Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 3);
    const [a, b, c, plan] = g.media;
    assert.ok(a && b && c && plan);
    const itemUrl = `/dashboard/galleries/${g.id}/media/${b.id}`;
    const page = await studio.browser.get(itemUrl);
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /2 of 4/);
    assert.ok(page.body.includes(`href="/dashboard/galleries/${g.id}/media/${a.id}" rel="prev"`));
    assert.ok(page.body.includes(`href="/dashboard/galleries/${g.id}/media/${c.id}" rel="next"`));
    assert.ok(page.body.includes(`id="cap-${b.id}"`) && page.body.includes(`id="pos-${b.id}"`));

    const saved = await studio.post(itemUrl, {
      back: 'photo',
      caption: 'The hall',
      position: '3',
      hidden: '1',
      hidden_shown: '1',
    });
    assert.equal(saved.headers.location, `${itemUrl}?notice=media-saved`);
    assert.deepEqual(
      (await mediaOf(owner, g.id)).map((m) => [m.id, m.caption, m.hidden]),
      [
        [a.id, null, false],
        [c.id, null, false],
        [b.id, 'The hall', true],
        [plan.id, null, false],
      ],
    );
    const refused = await studio.post(itemUrl, { back: 'photo', position: '9' });
    assert.equal(refused.headers.location, `${itemUrl}?notice=media-refused`);
    const cover = await studio.post(`${itemUrl}/cover`, { back: 'photo' });
    assert.equal(cover.headers.location, `${itemUrl}?notice=cover-set`);
    assert.equal((await galleryOf(owner, g.id)).cover_media_id, b.id);
    const again = await studio.browser.get(`${itemUrl}?notice=cover-set`);
    assert.match(textOf(again.body), /This photo is the gallery's cover\./);
    assert.match(textOf(again.body), /Cover set/);
    // A PDF has no cover button; the last item has no Next.
    const last = await studio.browser.get(`/dashboard/galleries/${g.id}/media/${plan.id}`);
    assert.doesNotMatch(last.body, /Make cover/);
    assert.doesNotMatch(last.body, /rel="next"/);
  });

  test("another gallery's item, or another studio's, is not found", async () => {
    const owner = await createAccount(ctx, 'Lookup Studio');
    const studio = await signedIn(owner);
    const g = await galleryWith(owner, 1);
    const other = await galleryWith(owner, 1, '2 Side Street');
    const stranger = await createAccount(ctx, 'Far Studio');
    const theirs = await galleryWith(stranger, 1);
    const mine = g.media[0]!;
    assert.equal((await studio.browser.get(`/dashboard/galleries/${other.id}/media/${mine.id}`)).statusCode, 404);
    const theirItem = theirs.media[0]!;
    assert.equal((await studio.browser.get(`/dashboard/galleries/${theirs.id}/media/${theirItem.id}`)).statusCode, 404);
    assert.equal((await studio.browser.get(`/dashboard/galleries/${g.id}/media/${theirItem.id}`)).statusCode, 404);
  });
});
