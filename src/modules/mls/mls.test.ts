// docs/api.md §31's MLS profiles: CRUD with defaults and caps, events, paging, test mode apart, a
// gallery's mls_profile_id, and what deleting a profile a gallery uses does (the gallery is left
// with none).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  testModeOf,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';

interface ProfileJson {
  id: string;
  name: string;
  max_long_edge: number;
  min_long_edge: number;
  max_bytes: number;
  max_photos: number;
  forbid_text: boolean;
  forbid_qr_codes: boolean;
  forbid_people: boolean;
  first_photo_exterior: boolean;
  disclose_staging: boolean;
  created_at: string;
  updated_at: string;
}

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

async function eventsOf(key: string, type: string): Promise<{ data: { object: { id: string } } }[]> {
  const res = await call(ctx, 'GET', '/v1/events', { key, query: { type } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: { data: { object: { id: string } } }[] }>().data;
}

async function profile(me: TestAccount, body: Record<string, unknown> = {}): Promise<ProfileJson> {
  const res = await call(ctx, 'POST', '/v1/mls_profiles', { key: me.key, body: { name: 'Bright MLS', ...body } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<ProfileJson>();
}

async function gallery(me: TestAccount): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '9 Elm Street' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

describe('/v1/mls_profiles', () => {
  test('create with the defaults, read, change and delete, each with its event', async () => {
    const me = await createAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/mls_profiles', { key: me.key, body: { name: '  Bright MLS ' } });
    assert.equal(created.statusCode, 201, created.body);
    const made = created.json<ProfileJson>();
    assert.equal(created.headers.location, `/v1/mls_profiles/${made.id}`);
    assert.match(made.id, /^mlp_/);
    assert.deepEqual(
      { ...made, id: '', created_at: '', updated_at: '' },
      {
        id: '',
        name: 'Bright MLS',
        max_long_edge: 2048,
        min_long_edge: 1024,
        max_bytes: 10_000_000,
        max_photos: 50,
        forbid_text: true,
        forbid_qr_codes: true,
        forbid_people: true,
        first_photo_exterior: true,
        disclose_staging: true,
        created_at: '',
        updated_at: '',
      },
    );
    assert.deepEqual((await call(ctx, 'GET', `/v1/mls_profiles/${made.id}`, { key: me.key })).json(), made);

    const patched = await call(ctx, 'PATCH', `/v1/mls_profiles/${made.id}`, {
      key: me.key,
      body: { max_bytes: 3_000_000, forbid_people: false },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<ProfileJson>().max_bytes, 3_000_000);
    assert.equal(patched.json<ProfileJson>().forbid_people, false);
    assert.equal(patched.json<ProfileJson>().forbid_text, true);

    const list = await call(ctx, 'GET', '/v1/mls_profiles', { key: me.key });
    assert.deepEqual(list.json<{ data: ProfileJson[] }>().data, [patched.json()]);

    assert.equal((await call(ctx, 'DELETE', `/v1/mls_profiles/${made.id}`, { key: me.key })).statusCode, 204);
    expectError(await call(ctx, 'GET', `/v1/mls_profiles/${made.id}`, { key: me.key }), 404, 'not_found');
    expectError(await call(ctx, 'DELETE', `/v1/mls_profiles/${made.id}`, { key: me.key }), 404, 'not_found');

    const [createdEvent] = await eventsOf(me.key, 'mls_profile.created');
    assert.equal(createdEvent?.data.object.id, made.id);
    const [updatedEvent] = await eventsOf(me.key, 'mls_profile.updated');
    assert.equal((updatedEvent?.data.object as ProfileJson | undefined)?.max_bytes, 3_000_000);
    const [deletedEvent] = await eventsOf(me.key, 'mls_profile.deleted');
    assert.deepEqual(deletedEvent?.data.object, { id: made.id });
  });

  test('sizes are positive whole numbers within caps, and the minimum long edge is not over the maximum', async () => {
    const me = await createAccount(ctx);
    for (const [field, value] of [
      ['max_long_edge', 0],
      ['max_long_edge', 2048.5],
      ['max_long_edge', 100_000],
      ['min_long_edge', -1],
      ['max_bytes', 0],
      ['max_bytes', 1e12],
      ['max_photos', 0],
      ['max_photos', '50'],
      ['forbid_text', 'yes'],
    ] as const) {
      const res = await call(ctx, 'POST', '/v1/mls_profiles', { key: me.key, body: { name: 'X', [field]: value } });
      assert.deepEqual(
        [...new Set(detailFields(expectError(res, 400, 'validation_error')))],
        [field],
        `${field}=${value}`,
      );
    }
    const crossed = await call(ctx, 'POST', '/v1/mls_profiles', {
      key: me.key,
      body: { name: 'X', max_long_edge: 1000, min_long_edge: 1200 },
    });
    assert.deepEqual(detailFields(expectError(crossed, 400, 'validation_error')), ['min_long_edge']);
    // Against the stored maximum: PATCH checks the profile as it would be.
    const made = await profile(me, { max_long_edge: 1600, min_long_edge: 800 });
    const raised = await call(ctx, 'PATCH', `/v1/mls_profiles/${made.id}`, {
      key: me.key,
      body: { min_long_edge: 1601 },
    });
    assert.deepEqual(detailFields(expectError(raised, 400, 'validation_error')), ['min_long_edge']);
    const equal = await call(ctx, 'PATCH', `/v1/mls_profiles/${made.id}`, {
      key: me.key,
      body: { min_long_edge: 1600 },
    });
    assert.equal(equal.statusCode, 200, equal.body);
    const empty = await call(ctx, 'PATCH', `/v1/mls_profiles/${made.id}`, { key: me.key, body: {} });
    expectError(empty, 400, 'validation_error');
  });

  test('pages by cursor, newest first; another account and test mode see none of them', async () => {
    const me = await createAccount(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await profile(me, { name: `P${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor === null ? {} : { cursor }) };
      const res = await call(ctx, 'GET', '/v1/mls_profiles', { key: me.key, query });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ data: ProfileJson[]; pagination: { total: number; next_cursor: string | null } }>();
      assert.equal(body.pagination.total, 5);
      seen.push(...body.data.map((p) => p.id));
      cursor = body.pagination.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(seen, ids.toReversed());

    const other = await createAccount(ctx);
    expectError(await call(ctx, 'GET', `/v1/mls_profiles/${ids[0]}`, { key: other.key }), 404, 'not_found');
    expectError(await call(ctx, 'PATCH', `/v1/mls_profiles/${ids[0]}`, { key: other.key, body: { name: 'Mine' } }), 404, 'not_found'); // prettier-ignore
    expectError(await call(ctx, 'DELETE', `/v1/mls_profiles/${ids[0]}`, { key: other.key }), 404, 'not_found');
    const testMode = await testModeOf(ctx, me);
    expectError(await call(ctx, 'GET', `/v1/mls_profiles/${ids[0]}`, { key: testMode.key }), 404, 'not_found');
    assert.equal(
      (await call(ctx, 'GET', '/v1/mls_profiles', { key: testMode.key })).json<{ data: [] }>().data.length,
      0,
    );
  });
});

describe("a gallery's mls_profile_id", () => {
  test('is null at first, set and cleared by PATCH; an unknown or foreign profile is refused', async () => {
    const me = await createAccount(ctx);
    const id = await gallery(me);
    const read = await call(ctx, 'GET', `/v1/listings/${id}`, { key: me.key });
    assert.equal(read.json<{ mls_profile_id: string | null }>().mls_profile_id, null);
    const mine = await profile(me);
    const set = await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body: { mls_profile_id: mine.id } });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json<{ mls_profile_id: string }>().mls_profile_id, mine.id);

    const other = await createAccount(ctx);
    const theirs = await profile(other);
    const testMode = await testModeOf(ctx, me);
    const inTestMode = await profile(testMode);
    for (const foreign of [theirs.id, inTestMode.id, 'mlp_0000000000000000000000ZZZZ', 'nope']) {
      const res = await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body: { mls_profile_id: foreign } });
      assert.deepEqual(detailFields(expectError(res, 400, 'validation_error')), ['mls_profile_id'], foreign);
    }
    const cleared = await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body: { mls_profile_id: null } });
    assert.equal(cleared.json<{ mls_profile_id: string | null }>().mls_profile_id, null);
  });

  test("deleting a profile a gallery uses leaves the gallery with none, announced as the gallery's change", async () => {
    const me = await createAccount(ctx);
    const used = await profile(me);
    const kept = await profile(me, { name: 'Kept' });
    const [a, b, c] = [await gallery(me), await gallery(me), await gallery(me)];
    for (const [id, p] of [
      [a, used],
      [b, used],
      [c, kept],
    ] as const) {
      await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body: { mls_profile_id: p.id } });
    }
    const before = (await eventsOf(me.key, 'listing.updated')).length;
    assert.equal((await call(ctx, 'DELETE', `/v1/mls_profiles/${used.id}`, { key: me.key })).statusCode, 204);
    for (const [id, expected] of [
      [a, null],
      [b, null],
      [c, kept.id],
    ] as const) {
      const res = await call(ctx, 'GET', `/v1/listings/${id}`, { key: me.key });
      assert.equal(res.json<{ mls_profile_id: string | null }>().mls_profile_id, expected);
    }
    const updates = await eventsOf(me.key, 'listing.updated');
    assert.equal(updates.length - before, 2);
    assert.deepEqual(
      updates
        .slice(0, 2)
        .map((e) => e.data.object.id)
        .sort(),
      [a, b].sort(),
    );
  });
});
