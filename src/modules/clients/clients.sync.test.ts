// docs/api.md §19 on every other list: clients (created_since, updated_since, sort, cursor, search by
// cursor), a client's galleries (whole without paging parameters, else paged), events
// (created_since, cursor), notifications, webhook endpoints and their deliveries (cursor), and a
// gallery's media (next_cursor null). Each list is walked by cursor while items are added to it.
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

interface ListPage {
  data: { id: string; created_at: string; updated_at?: string }[];
  pagination: { page: number | null; limit: number; total: number; next_cursor: string | null };
}

let ctx: TestContext;
let time: FakeClock;
before(async () => {
  time = fakeClock(Date.parse('2026-11-20T10:00:00.000Z'));
  ctx = await createTestContext({}, { clock: time.clock });
});
after(() => ctx.close());

async function get(me: TestAccount, url: string, query: Record<string, string> = {}): Promise<ListPage> {
  const res = await call(ctx, 'GET', url, { key: me.key, query });
  assert.equal(res.statusCode, 200, `${url} ${JSON.stringify(query)}: ${res.body}`);
  return res.json<ListPage>();
}

async function post(me: TestAccount, url: string, body?: unknown, query?: Record<string, string>) {
  time.advance(1);
  const res = await call(ctx, 'POST', url, { key: me.key, body, ...(query === undefined ? {} : { query }) });
  assert.ok(res.statusCode < 300, res.body);
  return res.json<{ id: string; created_at: string; updated_at: string }>();
}

const ids = (page: ListPage): string[] => page.data.map((x) => x.id);

/** Walks a list by cursor; `between` runs after each page. */
async function walk(
  me: TestAccount,
  url: string,
  query: Record<string, string>,
  between: () => Promise<void> = () => Promise.resolve(),
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 500; i += 1) {
    const page = await get(me, url, cursor === null ? query : { ...query, cursor });
    seen.push(...ids(page));
    cursor = page.pagination.next_cursor;
    if (cursor === null) return seen;
    await between();
  }
  assert.fail('the walk never ended');
}

// Emails are numbered, not random: a search matches the email too, and a random part could hold
// the term ("by" in a Lovelace's address once failed the short-term walk below).
let clientNumber = 0;
const newClient = (me: TestAccount, name: string) => {
  clientNumber += 1;
  return post(me, '/v1/clients', { name, email: `${name.replace(/\W/g, '')}.${clientNumber}@x.test` });
};

describe('GET /v1/clients: docs/api.md §19', () => {
  test('created_since, updated_since and the four sorts; walks by cursor, with and without search', async () => {
    const me = await createAccount(ctx);
    const made: { id: string; created_at: string; updated_at: string }[] = [];
    for (let i = 0; i < 9; i += 1) made.push(await newClient(me, `${i % 2 === 0 ? 'Byron' : 'Lovelace'} ${i}`));
    // Changed in another order than made.
    for (const c of [made[4]!, made[0]!, made[7]!]) {
      time.advance(1);
      const res = await call(ctx, 'PATCH', `/v1/clients/${c.id}`, { key: me.key, body: { company: 'Acme' } });
      assert.equal(res.statusCode, 200, res.body);
      c.updated_at = res.json<{ updated_at: string }>().updated_at;
    }
    const order = (field: 'created_at' | 'updated_at', desc: boolean, only = made) => {
      const sorted = [...only]
        .sort((x, y) => (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.id < y.id ? -1 : 1))
        .map((c) => c.id);
      return desc ? sorted.reverse() : sorted;
    };
    for (const [sort, field, desc] of [
      ['-created_at', 'created_at', true],
      ['created_at', 'created_at', false],
      ['-updated_at', 'updated_at', true],
      ['updated_at', 'updated_at', false],
    ] as const) {
      assert.deepEqual(ids(await get(me, '/v1/clients', { sort })), order(field, desc), sort);
      assert.deepEqual(await walk(me, '/v1/clients', { sort, limit: '2' }), order(field, desc), `${sort} by cursor`);
    }
    const since = made[5]!.created_at;
    const page = await get(me, '/v1/clients', { created_since: since });
    assert.deepEqual(ids(page), order('created_at', true, made.slice(5)));
    assert.equal(page.pagination.total, 4);
    const changed = await get(me, '/v1/clients', { updated_since: made[4]!.updated_at, sort: 'updated_at' });
    assert.deepEqual(ids(changed), [made[4]!.id, made[0]!.id, made[7]!.id]);
    const byron = made.filter((_c, i) => i % 2 === 0);
    assert.deepEqual(await walk(me, '/v1/clients', { search: 'byron', limit: '2' }), order('created_at', true, byron));
    assert.deepEqual(
      await walk(me, '/v1/clients', { search: 'by', sort: 'updated_at', limit: '1' }),
      order('updated_at', false, byron),
      'a short search term by cursor',
    );
    for (const [name, value] of [
      ['sort', 'name'],
      ['created_since', 'soon'],
      ['updated_since', '2026-11-22T10:00:00'],
      ['cursor', 'x.y'],
    ]) {
      assertValidation(await call(ctx, 'GET', '/v1/clients', { key: me.key, query: { [name!]: value! } }), name!);
    }
    // A search cursor does not serve another term.
    const first = await get(me, '/v1/clients', { search: 'byron', limit: '1' });
    const res = await call(ctx, 'GET', '/v1/clients', {
      key: me.key,
      query: { search: 'lovelace', limit: '1', cursor: first.pagination.next_cursor! },
    });
    assertValidation(res, 'cursor');
  });

  test("a client's galleries: whole without paging parameters, else paged by page or cursor", async () => {
    const me = await createAccount(ctx);
    const client = await newClient(me, 'Owner');
    const galleries: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const g = await post(me, '/v1/listings', { address: `${i} Owned` });
      await post(me, `/v1/clients/${client.id}/listings/${g.id}`, undefined, { notify: 'false' });
      galleries.push(g.id);
    }
    const newestFirst = [...galleries].reverse();
    const url = `/v1/clients/${client.id}/listings`;
    const whole = await get(me, url);
    assert.deepEqual(ids(whole), newestFirst);
    assert.deepEqual(whole.pagination, { page: 1, limit: 7, total: 7, total_exact: true, next_cursor: null });
    const page2 = await get(me, url, { page: '2', limit: '3' });
    assert.deepEqual(ids(page2), newestFirst.slice(3, 6));
    assert.equal(page2.pagination.total, 7);
    assert.equal(typeof page2.pagination.next_cursor, 'string');
    const limited = await get(me, url, { limit: '3' });
    assert.equal(limited.pagination.page, 1);
    assert.deepEqual(ids(limited), newestFirst.slice(0, 3));
    assert.deepEqual(await walk(me, url, { limit: '2' }), newestFirst);
    // Another client's cursor is refused.
    const other = await newClient(me, 'Other');
    const g = await post(me, '/v1/listings', { address: 'Theirs' });
    await post(me, `/v1/clients/${other.id}/listings/${g.id}`, undefined, { notify: 'false' });
    await post(
      me,
      `/v1/clients/${other.id}/listings/${(await post(me, '/v1/listings', { address: 'T2' })).id}`,
      undefined,
      {
        notify: 'false',
      },
    );
    const theirs = await get(me, `/v1/clients/${other.id}/listings`, { limit: '1' });
    assertValidation(
      await call(ctx, 'GET', url, { key: me.key, query: { cursor: theirs.pagination.next_cursor! } }),
      'cursor',
    );
    assertValidation(
      await call(ctx, 'GET', url, { key: me.key, query: { page: '1', cursor: theirs.pagination.next_cursor! } }),
      'cursor',
    );
  });
});

describe('docs/api.md §19 on events, notifications, webhook endpoints, deliveries and media', () => {
  test('events: created_since and cursor; a walk while events are recorded', async () => {
    const me = await createAccount(ctx);
    for (let i = 0; i < 6; i += 1) await post(me, '/v1/listings', { address: `${i} Event` });
    const all = await get(me, '/v1/events', { limit: '100' });
    assert.equal(all.data.length, 6);
    const since = all.data[2]!.created_at;
    const recent = await get(me, '/v1/events', { created_since: since });
    assert.deepEqual(ids(recent), ids(all).slice(0, 3));
    assert.equal(recent.pagination.total, 3);
    const typed = await get(me, '/v1/events', { created_since: since, type: 'listing.created' });
    assert.equal(typed.pagination.total, 3);
    let n = 0;
    const walked = await walk(me, '/v1/events', { limit: '2' }, async () => {
      await post(me, '/v1/listings', { address: `During ${n++}` });
    });
    assert.deepEqual(walked, ids(all), 'events recorded during the walk shift nothing');
    assertValidation(
      await call(ctx, 'GET', '/v1/events', { key: me.key, query: { created_since: 'x' } }),
      'created_since',
    );
  });

  test('notifications, webhook endpoints and deliveries walk by cursor; media has next_cursor null', async () => {
    const me = await createAccount(ctx);
    const client = await newClient(me, 'Notified');
    for (let i = 0; i < 5; i += 1) {
      const g = await post(me, '/v1/listings', { address: `${i} Notify` });
      await post(me, `/v1/clients/${client.id}/listings/${g.id}`);
    }
    const notifications = await get(me, '/v1/notifications', { limit: '100' });
    assert.equal(notifications.data.length, 5);
    assert.deepEqual(await walk(me, '/v1/notifications', { limit: '2' }), ids(notifications));
    assert.deepEqual(await walk(me, '/v1/notifications', { limit: '2', status: 'queued' }), ids(notifications));

    const endpoints: string[] = [];
    for (let i = 0; i < 5; i += 1)
      endpoints.push((await post(me, '/v1/webhook_endpoints', { url: `https://h${i}.example.test/` })).id);
    let n = 0;
    const walked = await walk(me, '/v1/webhook_endpoints', { limit: '2' }, async () => {
      await post(me, '/v1/webhook_endpoints', { url: `https://new${n++}.example.test/` });
    });
    assert.deepEqual(walked, [...endpoints].reverse());

    const endpoint = endpoints[0]!;
    for (let i = 0; i < 3; i += 1) await post(me, `/v1/webhook_endpoints/${endpoint}/test`);
    const deliveries = await get(me, `/v1/webhook_endpoints/${endpoint}/deliveries`, { limit: '100' });
    assert.equal(deliveries.data.length, 3);
    assert.deepEqual(await walk(me, `/v1/webhook_endpoints/${endpoint}/deliveries`, { limit: '1' }), ids(deliveries));
    // A cursor of one endpoint's deliveries does not serve another's.
    const one = await get(me, `/v1/webhook_endpoints/${endpoint}/deliveries`, { limit: '1' });
    assertValidation(
      await call(ctx, 'GET', `/v1/webhook_endpoints/${endpoints[1]!}/deliveries`, {
        key: me.key,
        query: { cursor: one.pagination.next_cursor! },
      }),
      'cursor',
    );

    const g = await post(me, '/v1/listings', { address: 'No media' });
    const media = await get(me, `/v1/listings/${g.id}/media`);
    assert.deepEqual(media.pagination, { page: 1, limit: 0, total: 0, total_exact: true, next_cursor: null });
  });
});
