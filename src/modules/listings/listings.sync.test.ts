// Lists for integrators (docs/api.md §19) on galleries: the new filters, the four sorts, the
// gallery's updated_at (moves on every change of the object, whoever made it, never on the link
// counters), and cursors: a walk by cursor sees every gallery once, in order, while other
// requests create, change and delete galleries between and during its pages; a cursor of another
// list, filter set, sort or account, or a changed one, is 400.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertValidation } from '../../../test/support/api-assertions.ts';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { fakeClock, type FakeClock } from '../../../test/support/notification-helpers.ts';
import { pdf } from '../../../test/support/media-fixtures.ts';
import { uploaded } from '../../../test/support/media-helpers.ts';

interface Item {
  id: string;
  address: string;
  client_id: string | null;
  created_at: string;
}
interface ListPage {
  data: Item[];
  pagination: { page: number | null; limit: number; total: number; next_cursor: string | null };
}
interface Gallery extends Item {
  updated_at: string;
  mls_number: string | null;
  media_count: number;
  cover_media_id: string | null;
  client_link: { url: string; views: number } | null;
}

let ctx: TestContext;
let time: FakeClock;
before(async () => {
  time = fakeClock(Date.parse('2026-11-20T10:00:00.000Z'));
  ctx = await createTestContext({}, { clock: time.clock });
});
after(() => ctx.close());

/** Each write at its own millisecond, so created_at and updated_at order them. */
const tick = (): void => time.advance(1);

async function get<T>(me: TestAccount, url: string, query: Record<string, string> = {}): Promise<T> {
  const res = await call(ctx, 'GET', url, { key: me.key, query });
  assert.equal(res.statusCode, 200, `${url} ${JSON.stringify(query)}: ${res.body}`);
  return res.json<T>();
}

async function create(me: TestAccount, body: Record<string, unknown>): Promise<Gallery> {
  tick();
  const res = await call(ctx, 'POST', '/v1/listings', { key: me.key, body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<Gallery>();
}

async function patch(me: TestAccount, id: string, body: Record<string, unknown>): Promise<Gallery> {
  tick();
  const res = await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: me.key, body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Gallery>();
}

async function newClient(me: TestAccount, name = 'Ada'): Promise<string> {
  tick();
  const res = await call(ctx, 'POST', '/v1/clients', {
    key: me.key,
    body: { name, email: `${name.toLowerCase()}.${Math.random().toString(36).slice(2)}@example.test` },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function assign(me: TestAccount, clientId: string, listingId: string): Promise<void> {
  tick();
  const res = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, {
    key: me.key,
    query: { notify: 'false' },
  });
  assert.equal(res.statusCode, 200, res.body);
}

const ids = (page: ListPage): string[] => page.data.map((g) => g.id);

/** Every page by cursor, from the first: the ids in the order seen, and how many pages. */
async function walk(me: TestAccount, query: Record<string, string>, between?: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page: ListPage = await get<ListPage>(me, '/v1/listings', cursor === null ? query : { ...query, cursor });
    seen.push(...ids(page));
    cursor = page.pagination.next_cursor;
    if (cursor === null) return seen;
    assert.equal(page.data.length, page.pagination.limit, 'a page before the last is full');
    if (between !== undefined) await between();
  }
  assert.fail('the walk never ended');
}

describe('GET /v1/listings: docs/api.md §19 filters', () => {
  test('client_id (an id, or none), mls_number (exact, any case) and search (address or MLS number)', async () => {
    const me = await createAccount(ctx);
    const ada = await newClient(me, 'Ada');
    const bob = await newClient(me, 'Bob');
    const a = await create(me, { address: '12 Harbour Road', mls_number: 'MLS-100_7' });
    const b = await create(me, { address: '4 Hill Street', mls_number: 'mls-200' });
    const c = await create(me, { address: '9 Harbourside 100% Lane' });
    const d = await create(me, { address: 'Flat_5 Quay' });
    await assign(me, ada, a.id);
    await assign(me, ada, c.id);
    await assign(me, bob, b.id);

    const listed = async (query: Record<string, string>): Promise<string[]> => {
      const page = await get<ListPage>(me, '/v1/listings', query);
      assert.equal(page.pagination.total, page.data.length, `total of ${JSON.stringify(query)}`);
      return ids(page);
    };
    assert.deepEqual(await listed({ client_id: ada }), [c.id, a.id]);
    assert.deepEqual(await listed({ client_id: bob }), [b.id]);
    assert.deepEqual(await listed({ client_id: 'none' }), [d.id]);
    assert.deepEqual(await listed({ client_id: 'cli_unknown000000000000000' }), []);
    assert.deepEqual(await listed({ client_id: ada, status: 'draft' }), [c.id, a.id]);
    assert.deepEqual(await listed({ client_id: ada, status: 'active' }), []);

    assert.deepEqual(await listed({ mls_number: 'MLS-200' }), [b.id]);
    assert.deepEqual(await listed({ mls_number: 'mls-100_7' }), [a.id]);
    assert.deepEqual(await listed({ mls_number: 'mls-10' }), [], 'exact, not a prefix');

    assert.deepEqual(await listed({ search: 'harbour' }), [c.id, a.id]);
    assert.deepEqual(await listed({ search: 'HARBOURSIDE' }), [c.id]);
    assert.deepEqual(await listed({ search: 'mls-' }), [b.id, a.id], 'the MLS number is searched too');
    assert.deepEqual(await listed({ search: '100%' }), [c.id], '% matches itself');
    assert.deepEqual(await listed({ search: '0_7' }), [a.id], '_ matches itself');
    assert.deepEqual(await listed({ search: 't_' }), [d.id], 'a short term: _ matches itself');
    assert.deepEqual(await listed({ search: 'qu' }), [d.id]);
    assert.deepEqual(await listed({ search: 'zzz' }), []);
    assert.deepEqual(await listed({ search: 'harbour', client_id: ada, mls_number: 'mls-100_7' }), [a.id]);

    // Another account's galleries never match.
    const other = await createAccount(ctx);
    assert.deepEqual(await get<ListPage>(other, '/v1/listings', { search: 'harbour' }).then(ids), []);
    assert.deepEqual(await get<ListPage>(other, '/v1/listings', { client_id: ada }).then(ids), []);
  });

  test('created_since and updated_since: at or after, any time zone', async () => {
    const me = await createAccount(ctx);
    const first = await create(me, { address: '1 First' });
    time.advance(60_000);
    const second = await create(me, { address: '2 Second' });
    time.advance(60_000);
    const changed = await patch(me, first.id, { beds: 3 });

    const since = async (field: string, value: string) =>
      ids(await get<ListPage>(me, '/v1/listings', { [field]: value }));
    assert.deepEqual(await since('created_since', first.created_at), [second.id, first.id]);
    assert.deepEqual(await since('created_since', second.created_at), [second.id], 'at: included');
    const justAfter = new Date(Date.parse(second.created_at) + 1).toISOString();
    assert.deepEqual(await since('created_since', justAfter), []);
    // The same instant written with an offset.
    const at = new Date(Date.parse(second.created_at));
    const offset = `${at.toISOString().slice(0, 10)}T${String(at.getUTCHours() + 2).padStart(2, '0')}${at.toISOString().slice(13, 23)}+02:00`;
    assert.deepEqual(await since('created_since', offset), [second.id]);
    assert.deepEqual(await since('updated_since', changed.updated_at), [first.id]);
    assert.deepEqual(await since('updated_since', second.updated_at), [second.id, first.id]);
    const page = await get<ListPage>(me, '/v1/listings', { updated_since: changed.updated_at });
    assert.equal(page.pagination.total, 1);
  });

  test('bad values are 400 naming the parameter', async () => {
    const me = await createAccount(ctx);
    const bad: [string, string][] = [
      ['sort', 'address'],
      ['sort', '-id'],
      ['client_id', 'lst_123'],
      ['client_id', 'nobody'],
      ['client_id', ''],
      ['created_since', 'yesterday'],
      ['created_since', '2026-11-22T10:15:30'],
      ['updated_since', '2026-11-22'],
      ['updated_since', '2026-13-01T00:00:00Z'],
      ['search', 'x'.repeat(201)],
      ['mls_number', 'x'.repeat(51)],
      ['cursor', 'nonsense'],
    ];
    for (const [name, value] of bad) {
      const res = await call(ctx, 'GET', '/v1/listings', { key: me.key, query: { [name]: value } });
      assertValidation(res, name);
    }
  });
});

describe('GET /v1/listings: sort', () => {
  test('the four orders, ties broken by id in the same direction', async () => {
    const me = await createAccount(ctx);
    const made: Gallery[] = [];
    for (let i = 0; i < 4; i += 1) made.push(await create(me, { address: `${i} Sort Street` }));
    // Two at the same instant: the id breaks the tie.
    const same = [await create(me, { address: 'Tie A' })];
    same.push(
      await (async () => {
        const res = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: 'Tie B' } });
        return res.json<Gallery>();
      })(),
    );
    made.push(...same);
    // Changed in another order than created.
    for (const g of [made[2], made[0], made[3]]) Object.assign(g!, await patch(me, g!.id, { beds: 1 }));

    const by = (field: 'created_at' | 'updated_at', desc: boolean) => {
      const order = [...made]
        .sort((x, y) => (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
        .map((g) => g.id);
      return desc ? order.reverse() : order;
    };
    for (const [sort, field, desc] of [
      ['-created_at', 'created_at', true],
      ['created_at', 'created_at', false],
      ['-updated_at', 'updated_at', true],
      ['updated_at', 'updated_at', false],
    ] as const) {
      const listed = ids(await get<ListPage>(me, '/v1/listings', { sort }));
      assert.deepEqual(listed, by(field, desc), sort);
      // The same order by cursor, two at a time.
      assert.deepEqual(await walk(me, { sort, limit: '2' }), by(field, desc), `${sort} by cursor`);
    }
    assert.deepEqual(ids(await get<ListPage>(me, '/v1/listings')), by('created_at', true), 'the default');
  });
});

describe("a gallery's updated_at", () => {
  test('moves on every change of the gallery object, whatever made it; never on the link counters', async () => {
    const me = await createAccount(ctx);
    const g = await create(me, { address: '7 Change Road' });
    let last = g.updated_at;
    const moved = async (what: string): Promise<Gallery> => {
      const now = await get<Gallery>(me, `/v1/listings/${g.id}`);
      assert.ok(now.updated_at > last, `${what}: updated_at ${now.updated_at} after ${last}`);
      last = now.updated_at;
      return now;
    };

    await patch(me, g.id, { status: 'active' });
    await moved('status');
    tick();
    const [media] = await uploaded(ctx, me.key, g.id, [{ filename: 'a.pdf', data: pdf('one') }]);
    assert.equal((await moved('media upload (media_count)')).media_count, 1);
    tick();
    const [second] = await uploaded(ctx, me.key, g.id, [{ filename: 'b.pdf', data: pdf('two') }]);
    await moved('a second upload');
    const client = await newClient(me);
    await assign(me, client, g.id);
    const assigned = await moved('assignment');
    assert.ok(assigned.client_link !== null);

    // The client opens the gallery: the counters move, updated_at does not.
    const path = new URL(assigned.client_link.url).pathname;
    const view = await ctx.app.inject({ method: 'GET', url: path });
    assert.equal(view.statusCode, 200);
    const viewed = await get<Gallery>(me, `/v1/listings/${g.id}`);
    assert.equal(viewed.client_link?.views, 1);
    assert.equal(viewed.updated_at, last, 'a view is not a change of the gallery');

    tick();
    const rotated = await call(ctx, 'POST', `/v1/listings/${g.id}/client_link`, { key: me.key });
    assert.equal(rotated.statusCode, 200, rotated.body);
    await moved('link replaced');
    tick();
    const removed = await call(ctx, 'DELETE', `/v1/listings/${g.id}/media/${media!.id}`, { key: me.key });
    assert.equal(removed.statusCode, 204);
    assert.equal((await moved('media deleted')).media_count, 1);
    tick();
    const unassigned = await call(ctx, 'DELETE', `/v1/clients/${client}/listings/${g.id}`, { key: me.key });
    assert.equal(unassigned.statusCode, 204);
    await moved('unassignment');
    await assign(me, client, g.id);
    await moved('assigned again');
    tick();
    const deleted = await call(ctx, 'DELETE', `/v1/clients/${client}`, { key: me.key });
    assert.equal(deleted.statusCode, 204);
    assert.equal((await moved('its client deleted')).client_id, null);
    assert.ok(second !== undefined);

    // updated_since finds it after each change, and sort=updated_at puts it last.
    const other = await create(me, { address: 'Later' });
    await patch(me, g.id, { beds: 2 });
    const page = await get<ListPage>(me, '/v1/listings', { sort: 'updated_at', updated_since: other.updated_at });
    assert.deepEqual(ids(page), [other.id, g.id]);
  });
});

describe('GET /v1/listings: cursors', () => {
  test('a walk by cursor equals the walk by page; next_cursor is in every page, null at the end', async () => {
    const me = await createAccount(ctx);
    const made: string[] = [];
    for (let i = 0; i < 23; i += 1) made.push((await create(me, { address: `${i} Walk` })).id);
    const newestFirst = [...made].reverse();

    const first = await get<ListPage>(me, '/v1/listings', { limit: '5' });
    assert.equal(first.pagination.page, 1);
    assert.equal(typeof first.pagination.next_cursor, 'string');
    assert.equal(first.pagination.total, 23);
    const byCursor = await get<ListPage>(me, '/v1/listings', { limit: '5', cursor: first.pagination.next_cursor! });
    assert.equal(byCursor.pagination.page, null);
    assert.equal(byCursor.pagination.total, 23, 'total counts every match');
    assert.deepEqual(ids(byCursor), newestFirst.slice(5, 10));
    // In page mode too, the cursor continues after the page.
    const page3 = await get<ListPage>(me, '/v1/listings', { limit: '5', page: '3' });
    const after3 = await get<ListPage>(me, '/v1/listings', { limit: '5', cursor: page3.pagination.next_cursor! });
    assert.deepEqual(ids(after3), newestFirst.slice(15, 20));
    const lastPage = await get<ListPage>(me, '/v1/listings', { limit: '5', page: '5' });
    assert.equal(lastPage.pagination.next_cursor, null);
    const exact = await get<ListPage>(me, '/v1/listings', { limit: '23' });
    assert.equal(exact.pagination.next_cursor, null, 'nothing follows a page that ends the list');

    assert.deepEqual(await walk(me, { limit: '4' }), newestFirst);
    assert.deepEqual(await walk(me, { limit: '100' }), newestFirst);
    assert.deepEqual(await walk(me, { limit: '1', status: 'draft' }), newestFirst);
  });

  test('refused (400 naming cursor): with page, another list, filter, sort or account, changed', async () => {
    const me = await createAccount(ctx);
    for (let i = 0; i < 3; i += 1) await create(me, { address: `${i} Refuse`, mls_number: 'M1' });
    const cursorOf = async (url: string, query: Record<string, string>): Promise<string> => {
      const page = await get<ListPage>(me, url, { ...query, limit: '1' });
      assert.equal(typeof page.pagination.next_cursor, 'string');
      return page.pagination.next_cursor!;
    };
    const cursor = await cursorOf('/v1/listings', { status: 'draft' });
    const refused = async (key: string, url: string, query: Record<string, string>, why: string) => {
      const res = await call(ctx, 'GET', url, { key, query: { limit: '1', ...query } });
      assertValidation(res, 'cursor');
      assert.ok(why);
    };
    // It works as made.
    assert.equal((await get<ListPage>(me, '/v1/listings', { status: 'draft', limit: '1', cursor })).data.length, 1);
    await refused(me.key, '/v1/listings', { status: 'draft', cursor, page: '1' }, 'with page');
    await refused(me.key, '/v1/listings', { cursor }, 'another filter set (none)');
    await refused(me.key, '/v1/listings', { status: 'active', cursor }, 'another filter value');
    await refused(me.key, '/v1/listings', { status: 'draft', mls_number: 'm1', cursor }, 'a filter added');
    await refused(me.key, '/v1/listings', { status: 'draft', sort: 'created_at', cursor }, 'another sort');
    const other = await createAccount(ctx);
    await refused(other.key, '/v1/listings', { status: 'draft', cursor }, 'another account');
    await refused(me.key, '/v1/clients', { cursor }, 'another list');
    await refused(me.key, '/v1/notifications', { cursor }, 'another list');
    // Changed: any character of the position or of the signature.
    const [body, mac] = cursor.split('.') as [string, string];
    const position = JSON.parse(Buffer.from(body, 'base64url').toString()) as [string, string];
    const forged = Buffer.from(JSON.stringify(['9999-01-01T00:00:00.000Z', position[1]])).toString('base64url');
    await refused(me.key, '/v1/listings', { status: 'draft', cursor: `${forged}.${mac}` }, 'position changed');
    const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
    await refused(me.key, '/v1/listings', { status: 'draft', cursor: `${body}.${flipped}` }, 'signature changed');
    await refused(me.key, '/v1/listings', { status: 'draft', cursor: body }, 'no signature');
    // The same filters in another order or spelling are the same list.
    const mlsCursor = await cursorOf('/v1/listings', { mls_number: 'M1', sort: '-created_at' });
    assert.equal(
      (await get<ListPage>(me, '/v1/listings', { mls_number: 'm1', limit: '1', cursor: mlsCursor })).data.length,
      1,
    );
  });

  for (const sort of ['-created_at', 'created_at', '-updated_at', 'updated_at'] as const) {
    test(`a walk (sort=${sort}) while other requests create, change and delete galleries`, async () => {
      const me = await createAccount(ctx);
      const stable: Gallery[] = [];
      const changing: string[] = [];
      const doomed: string[] = [];
      for (let i = 0; i < 30; i += 1) {
        const g = await create(me, { address: `${i} Stable` });
        if (i % 5 === 1) changing.push(g.id);
        else if (i % 5 === 3) doomed.push(g.id);
        else stable.push(g);
      }
      const field = sort.endsWith('updated_at') ? 'updated_at' : 'created_at';
      const desc = sort.startsWith('-');
      const expected = [...stable]
        .sort((x, y) => (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.id < y.id ? -1 : 1))
        .map((g) => g.id);
      if (desc) expected.reverse();

      let n = 0;
      const created: string[] = [];
      // Between pages and during them (at once, on other connections where the pool has them).
      const churn = async (): Promise<void> => {
        n += 1;
        const work: Promise<unknown>[] = [create(me, { address: `New ${n}` }).then((g) => created.push(g.id))];
        const c = changing[n % changing.length];
        if (c !== undefined) work.push(patch(me, c, { beds: n }));
        const d = doomed.shift();
        if (d !== undefined) {
          work.push(
            call(ctx, 'DELETE', `/v1/listings/${d}`, { key: me.key }).then((r) => assert.equal(r.statusCode, 204)),
          );
        }
        // A change that leaves the sort field of a created_at walk alone.
        if (field === 'created_at') {
          const s = stable[n % stable.length];
          if (s !== undefined) work.push(patch(me, s.id, { sqft: n }));
        }
        await Promise.all(work);
      };
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 200; pages += 1) {
        const query: Record<string, string> = { sort, limit: '3', ...(cursor === null ? {} : { cursor }) };
        const [page] = await Promise.all([get<ListPage>(me, '/v1/listings', query), churn()]);
        seen.push(...ids(page));
        cursor = page.pagination.next_cursor;
        if (cursor === null) break;
      }
      assert.equal(cursor, null, 'the walk ended');
      // Every gallery that existed for the whole walk and kept its sort field: exactly once, in order.
      const stableSeen = seen.filter((id) => expected.includes(id));
      assert.deepEqual(stableSeen, expected);
      // Nothing seen twice, whatever happened to it (a changed updated_at may move a gallery
      // behind the walk, which the contract allows to be seen again; not within created_at).
      if (field === 'created_at') assert.equal(new Set(seen).size, seen.length, 'no repeats');
      assert.ok(created.length > 0 && doomed.length === 0, 'the churn ran');
    });
  }
});
