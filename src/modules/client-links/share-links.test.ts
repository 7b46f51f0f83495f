// docs/api.md §28 over HTTP: share links, the API (create, list, read, change, rotate, delete; at
// most 50 per gallery; validation; scoping; their events).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { fakeClock, newGallery } from '../../../test/support/notification-helpers.ts';
import { clientLink } from '../../../test/support/gallery.ts';
import { DAY, shareLinkHelpers, type ShareLinkJson } from '../../../test/support/share-links.ts';

const PUBLIC_URL = 'http://127.0.0.1:3000';

describe('share links: the API', () => {
  let ctx: TestContext;
  let owner: TestAccount;
  let h: ReturnType<typeof shareLinkHelpers>;
  const clock = fakeClock(Date.parse('2026-05-01T10:00:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ PUBLIC_URL }, { clock: clock.clock });
    owner = await createAccount(ctx, 'Harbour Light Studio');
    h = shareLinkHelpers(ctx, owner);
  });
  after(() => ctx.close());

  test('create answers 201 with Location and every field; GET, list and PATCH agree; the password is never shown', async () => {
    const listing = await newGallery(ctx, owner);
    const expires = new Date(clock.now() + 3 * DAY).toISOString();
    const res = await h.create(listing.id, {
      label: '  Buyer agent  ',
      expires_at: expires,
      password: 'open sesame',
      downloads_enabled: false,
      selection_min: 2,
      selection_max: 5,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.doesNotMatch(res.body, /open sesame|scrypt/);
    const link = res.json<ShareLinkJson>();
    assert.equal(res.headers.location, `/v1/listings/${listing.id}/share_links/${link.id}`);
    assert.match(link.id, /^shl_/);
    assert.match(link.url, /^http:\/\/127\.0\.0\.1:3000\/g\/[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(Object.keys(link).sort(), [
      'created_at',
      'downloads',
      'downloads_enabled',
      'email',
      'expires_at',
      'favorites_count',
      'favorites_enabled',
      'first_viewed_at',
      'id',
      'label',
      'last_viewed_at',
      'listing_id',
      'password_protected',
      'selection_max',
      'selection_min',
      'updated_at',
      'url',
      'views',
    ]);
    assert.deepEqual(
      { ...link, id: undefined, url: undefined },
      {
        id: undefined,
        url: undefined,
        listing_id: listing.id,
        label: 'Buyer agent',
        email: null,
        expires_at: expires,
        password_protected: true,
        downloads_enabled: false,
        favorites_enabled: true,
        selection_min: 2,
        selection_max: 5,
        views: 0,
        downloads: 0,
        favorites_count: 0,
        first_viewed_at: null,
        last_viewed_at: null,
        created_at: new Date(clock.now()).toISOString(),
        updated_at: new Date(clock.now()).toISOString(),
      },
    );
    assert.deepEqual(await h.get(listing.id, link.id), link);

    clock.advance(1000);
    const changed = await h.patch(listing.id, link.id, { label: 'Seller', password: null, favorites_enabled: false });
    assert.equal(changed.statusCode, 200, changed.body);
    const after = changed.json<ShareLinkJson>();
    assert.deepEqual(
      { l: after.label, p: after.password_protected, f: after.favorites_enabled, u: after.updated_at },
      { l: 'Seller', p: false, f: false, u: new Date(clock.now()).toISOString() },
    );
    assert.equal(after.url, link.url, 'a PATCH keeps the token');

    const second = await h.shareLink(listing.id, { label: 'Second' });
    const list = await call(ctx, 'GET', h.base(listing.id), { key: owner.key });
    assert.equal(list.statusCode, 200, list.body);
    const page = list.json<{ data: ShareLinkJson[]; pagination: { total: number; next_cursor: string | null } }>();
    assert.deepEqual(
      page.data.map((l) => l.id),
      [second.link.id, link.id],
      'newest first',
    );
    assert.equal(page.pagination.total, 2);
    assert.equal(page.pagination.next_cursor, null);
    // The client link is another kind: it never appears among the share links.
    assert.equal((await clientLink(ctx, owner.key, listing.id)) ?? null, null);
  });

  test('lists page by cursor, sort and updated_since as every list (docs/api.md §19)', async () => {
    const listing = await newGallery(ctx, owner);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      clock.advance(1000);
      ids.push((await h.shareLink(listing.id, { label: `L${i}` })).link.id);
    }
    const walk = async (query: Record<string, string>) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: Record<string, string> = { ...query, limit: '2', ...(cursor === null ? {} : { cursor }) };
        const res = await call(ctx, 'GET', h.base(listing.id), { key: owner.key, query: q });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json<{ data: ShareLinkJson[]; pagination: { next_cursor: string | null; total: number } }>();
        assert.equal(body.pagination.total, query.updated_since === undefined ? 5 : 2);
        seen.push(...body.data.map((l) => l.id));
        cursor = body.pagination.next_cursor;
      } while (cursor !== null);
      return seen;
    };
    assert.deepEqual(await walk({}), [...ids].reverse());
    assert.deepEqual(await walk({ sort: 'created_at' }), ids);
    const since = new Date(clock.now() - 1000).toISOString();
    assert.deepEqual(await walk({ sort: 'updated_at', updated_since: since }), ids.slice(3));
    expectError(
      await call(ctx, 'GET', h.base(listing.id), { key: owner.key, query: { cursor: 'nonsense' } }),
      400,
      'validation_error',
    );
  });

  test('validation: label, bounds (min <= max, 1..10,000), email only at create, unknown fields', async () => {
    const listing = await newGallery(ctx, owner);
    for (const body of [
      {},
      { label: '' },
      { label: '   ' },
      { label: 'x'.repeat(101) },
      { label: 'a', selection_min: 0 },
      { label: 'a', selection_max: 10_001 },
      { label: 'a', selection_min: 3, selection_max: 2 },
      { label: 'a', selection_min: 1.5 },
      { label: 'a', email: 'not an email' },
      { label: 'a', password: 'short' },
      { label: 'a', expires_at: new Date(clock.now() - 1000).toISOString() },
      { label: 'a', colour: 'red' },
      { label: 'a', id: 'shl_x' },
    ]) {
      expectError(await h.create(listing.id, body), 400, 'validation_error');
    }
    const { link } = await h.shareLink(listing.id, { selection_max: 4 });
    expectError(await h.patch(listing.id, link.id, { email: 'a@b.test' }), 400, 'validation_error');
    expectError(await h.patch(listing.id, link.id, {}), 400, 'validation_error');
    const over = await h.patch(listing.id, link.id, { selection_min: 5 });
    expectError(over, 400, 'validation_error');
    assert.match(over.body, /selection_min/);
    assert.equal((await h.patch(listing.id, link.id, { selection_min: 4 })).statusCode, 200);
    assert.equal((await h.get(listing.id, link.id)).selection_min, 4);
  });

  test('at most 50 per gallery: the 51st is 409; deleting one makes room', async () => {
    const listing = await newGallery(ctx, owner);
    // 45 one by one, then 7 at once: the gallery's lock orders them, so exactly 5 more are made.
    const made = [];
    for (let i = 0; i < 45; i += 1) made.push(await h.create(listing.id, { label: `Link ${i}` }));
    made.push(
      ...(await Promise.all(Array.from({ length: 7 }, (_, i) => h.create(listing.id, { label: `Race ${i}` })))),
    );
    assert.equal(made.filter((r) => r.statusCode === 201).length, 50);
    for (const r of made.filter((r) => r.statusCode !== 201)) expectError(r, 409, 'conflict');
    const one = made.find((r) => r.statusCode === 201)!.json<ShareLinkJson>();
    const del = await call(ctx, 'DELETE', `${h.base(listing.id)}/${one.id}`, { key: owner.key });
    assert.equal(del.statusCode, 204);
    assert.equal((await h.create(listing.id, { label: 'again' })).statusCode, 201);
    expectError(await h.create(listing.id, { label: 'too many' }), 409, 'conflict');
  });

  test("another account's gallery or link, a wrong id shape, another gallery's link: 404", async () => {
    const listing = await newGallery(ctx, owner);
    const { link } = await h.shareLink(listing.id);
    const other = await createAccount(ctx, 'Other');
    expectError(await call(ctx, 'GET', `${h.base(listing.id)}/${link.id}`, { key: other.key }), 404, 'not_found');
    expectError(await call(ctx, 'GET', h.base(listing.id), { key: other.key }), 404, 'not_found');
    expectError(await h.create(listing.id, { label: 'x' }, other.key), 404, 'not_found');
    expectError(await call(ctx, 'GET', `${h.base(listing.id)}/nonsense`, { key: owner.key }), 404, 'not_found');
    const second = await newGallery(ctx, owner);
    expectError(await call(ctx, 'GET', `${h.base(second.id)}/${link.id}`, { key: owner.key }), 404, 'not_found');
    expectError(await call(ctx, 'DELETE', `${h.base(second.id)}/${link.id}`, { key: owner.key }), 404, 'not_found');
    expectError(await call(ctx, 'GET', h.base('lst_nope'), { key: owner.key }), 404, 'not_found');
  });

  test('events: created, updated (a PATCH, a rotation), deleted, each with the share link object', async () => {
    const listing = await newGallery(ctx, owner);
    const { link } = await h.shareLink(listing.id, { label: 'Evented' });
    const created = (await h.events('share_link.created')).find((e) => e.data.object.id === link.id);
    assert.deepEqual(created?.data.object, link);
    const changed = (await h.patch(listing.id, link.id, { label: 'Renamed' })).json<ShareLinkJson>();
    const rotated = await call(ctx, 'POST', `${h.base(listing.id)}/${link.id}/rotate`, { key: owner.key });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const updates = (await h.events('share_link.updated')).filter((e) => e.data.object.id === link.id);
    assert.deepEqual(updates.map((e) => e.data.object).reverse(), [changed, rotated.json<ShareLinkJson>()]);
    assert.equal((await call(ctx, 'DELETE', `${h.base(listing.id)}/${link.id}`, { key: owner.key })).statusCode, 204);
    const deleted = (await h.events('share_link.deleted')).find((e) => e.data.object.id === link.id);
    assert.deepEqual(deleted?.data.object, { id: link.id });
  });
});
