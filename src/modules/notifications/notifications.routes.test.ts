// GET /v1/notifications and GET /v1/notifications/:id (docs/api.md §8, with §1, §2 and §4):
// fields, paging and order, the status filter, one notification, account scoping, and the
// history kept after a client is deleted. No mail server is needed: delivery outcomes are set
// by a worker on the .eml outbox, or written into the rows directly.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ISO_MS, assertPagination } from '../../../test/support/api-assertions.ts';
import {
  call,
  createAccount,
  createTestContext,
  type Response,
  type TestAccount,
  type TestContext,
  expectError,
} from '../../../test/support/test-app.ts';
import {
  assign,
  newClient,
  newGallery,
  notificationRows,
  setDue,
  workerOf,
} from '../../../test/support/notification-helpers.ts';
import { recomputeCounts } from '../../mechanisms/counts/counts.service.ts';

const FIELDS = [
  'attempts',
  'client_id',
  'created_at',
  'id',
  'last_error',
  'listing_id',
  'sent_at',
  'share_link_id',
  'status',
  'to',
];

interface NotificationJson {
  id: string;
  client_id: string;
  share_link_id: string | null;
  listing_id: string;
  to: string;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}
interface Page {
  data: NotificationJson[];
  pagination: { page: number; limit: number; total: number };
}
let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext();
  me = await createAccount(ctx, 'Listing Studio');
});
after(() => ctx.close());

const get = (url: string, as: TestAccount = me): Promise<Response> => call(ctx, 'GET', url, { key: as.key });
const page = async (url: string, as: TestAccount = me): Promise<Page> => {
  const res = await get(url, as);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Page>();
};

const assertError = expectError;

/** `n` assignments in a new account; returns the account and its notifications, oldest first. */
async function accountWith(n: number, name = 'Paged Studio') {
  const account = await createAccount(ctx, name);
  const galleries: string[] = [];
  const clients: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const gallery = await newGallery(ctx, account, { address: `${i + 1} Page Street` });
    const client = await newClient(ctx, account);
    await assign(ctx, account, client.id, gallery.id);
    galleries.push(gallery.id);
    clients.push(client.id);
  }
  const rows = (await notificationRows(ctx)).filter((r) => r.account_id === account.accountId);
  return { account, rows, galleries, clients };
}

describe('GET /v1/notifications', () => {
  test('every field, in the shape docs/api.md §8 names; a queued one has no attempts, error or sent_at yet', async () => {
    const { account, rows, galleries, clients } = await accountWith(1, 'Fields Studio');
    const body = await page('/v1/notifications', account);
    assertPagination(body.pagination, { page: 1, limit: 20, total: 1 });
    const [n] = body.data;
    assert.ok(n !== undefined);
    assert.deepEqual(Object.keys(n).sort(), FIELDS);
    assert.match(n.id, /^ntf_[0-9A-Za-z]+$/);
    assert.ok(n.id.length <= 40);
    assert.equal(n.id, rows[0]?.id);
    assert.equal(n.client_id, clients[0]);
    assert.equal(n.share_link_id, null, 'an assignment email carries no share link');
    assert.equal(n.listing_id, galleries[0]);
    assert.equal(n.to, rows[0]?.to_email);
    assert.equal(n.status, 'queued');
    assert.equal(n.attempts, 0);
    assert.equal(n.last_error, null);
    assert.match(n.created_at, ISO_MS);
    assert.equal(n.sent_at, null);
    // Nothing internal leaks: no Message-ID, account or scheduling columns.
    assert.ok(!JSON.stringify(body).includes('message_id') && !JSON.stringify(body).includes(account.accountId));
  });

  test('pages newest first (created_at, then id), stable across pages, with the true total', async () => {
    const { account, rows } = await accountWith(5);
    const expected = [...rows]
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
      .map((r) => r.id);
    const seen: string[] = [];
    for (const p of [1, 2, 3]) {
      const body = await page(`/v1/notifications?limit=2&page=${p}`, account);
      assertPagination(body.pagination, { page: p, limit: 2, total: 5 });
      seen.push(...body.data.map((n) => n.id));
    }
    assert.deepEqual(seen, expected);
    const past = await page('/v1/notifications?limit=2&page=4', account);
    assert.deepEqual(past, {
      data: [],
      pagination: { page: 4, limit: 2, total: 5, total_exact: true, next_cursor: null },
    });
    assert.equal((await page('/v1/notifications?limit=100', account)).data.length, 5);
  });

  test('page and limit are validated: 400 validation_error naming the parameter', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=x', 'page'],
    ]) {
      const error = assertError(await get(`/v1/notifications?${query}`), 400, 'validation_error');
      assert.ok(
        (error.details ?? []).some((d) => d.field === field),
        `${query}: ${JSON.stringify(error.details)}`,
      );
    }
  });

  test('status filters (queued, sent, failed, cancelled) with its own total; an unknown status is 400', async () => {
    const { account, rows } = await accountWith(5, 'Filter Studio');
    // Two sent by the worker (the .eml outbox), one failed, one cancelled, one left queued.
    const db = ctx.deps.db.kysely;
    const [a, b, c, d] = rows.map((r) => r.id);
    await setDue(
      ctx,
      '9999-01-01T00:00:00.000Z',
      rows.map((r) => r.id).filter((id) => id !== a && id !== b),
    );
    await workerOf(ctx).drain();
    await db
      .updateTable('notifications')
      .set({ status: 'failed', attempts: 1, last_error: '550 5.1.1 Mailbox unavailable' })
      .where('id', '=', c!)
      .execute();
    await db.updateTable('notifications').set({ status: 'cancelled' }).where('id', '=', d!).execute();
    // Written directly, as a bulk load would, so the maintained counts are rewritten from the rows.
    await recomputeCounts(ctx.deps.db);

    const expect: Record<string, string[]> = {
      sent: [a!, b!],
      failed: [c!],
      cancelled: [d!],
      queued: [rows[4]!.id],
    };
    for (const [status, ids] of Object.entries(expect)) {
      const body = await page(`/v1/notifications?status=${status}`, account);
      assert.equal(body.pagination.total, ids.length, status);
      assert.deepEqual(body.data.map((n) => n.id).sort(), [...ids].sort(), status);
      assert.ok(body.data.every((n) => n.status === status));
    }
    const sent = (await page('/v1/notifications?status=sent', account)).data[0];
    assert.equal(sent?.attempts, 1);
    assert.match(sent?.sent_at ?? '', ISO_MS);
    const failed = (await page('/v1/notifications?status=failed', account)).data[0];
    assert.equal(failed?.last_error, '550 5.1.1 Mailbox unavailable');
    assert.equal(failed.sent_at, null);
    // Paging applies within the filter.
    const second = await page('/v1/notifications?status=sent&limit=1&page=2', account);
    assertPagination(second.pagination, { page: 2, limit: 1, total: 2 });
    assert.equal(second.data.length, 1);

    for (const status of ['delivered', 'Sent', '', 'queued,sent']) {
      const error = assertError(await get(`/v1/notifications?status=${status}`, account), 400, 'validation_error');
      assert.ok(
        (error.details ?? []).some((d) => d.field === 'status'),
        JSON.stringify(error.details),
      );
    }
  });

  test("lists only the caller's own notifications", async () => {
    const { account, rows } = await accountWith(2, 'Own Studio');
    const stranger = await accountWith(1, 'Stranger Studio');
    const mine = (await page('/v1/notifications?limit=100', account)).data.map((n) => n.id);
    assert.deepEqual(mine.sort(), rows.map((r) => r.id).sort());
    const theirs = (await page('/v1/notifications?limit=100', stranger.account)).data.map((n) => n.id);
    assert.deepEqual(theirs, [stranger.rows[0]?.id]);
  });

  test('notifications stay listed after their client is deleted: unsent as cancelled, sent as sent', async () => {
    const account = await createAccount(ctx, 'Forgetful Studio');
    const client = await newClient(ctx, account);
    const [g1, g2] = [await newGallery(ctx, account), await newGallery(ctx, account)];
    await assign(ctx, account, client.id, g1.id);
    await workerOf(ctx).drain();
    await assign(ctx, account, client.id, g2.id);
    assert.equal((await call(ctx, 'DELETE', `/v1/clients/${client.id}`, { key: account.key })).statusCode, 204);
    assert.equal((await get(`/v1/clients/${client.id}`, account)).statusCode, 404);

    const body = await page('/v1/notifications', account);
    assert.equal(body.pagination.total, 2);
    const byGallery = new Map(body.data.map((n) => [n.listing_id, n]));
    assert.equal(byGallery.get(g1.id)?.status, 'sent');
    assert.equal(byGallery.get(g2.id)?.status, 'cancelled');
    for (const n of body.data) {
      assert.equal(n.client_id, client.id, 'the deleted client is still named');
      assert.equal(n.to, client.email);
      const one = await get(`/v1/notifications/${n.id}`, account);
      assert.equal(one.statusCode, 200);
    }
  });
});

describe('GET /v1/notifications/:id', () => {
  test('200: the same object the list shows', async () => {
    const { account } = await accountWith(2, 'Single Studio');
    for (const listed of (await page('/v1/notifications', account)).data) {
      const res = await get(`/v1/notifications/${listed.id}`, account);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), listed);
    }
  });

  test("404 not_found for an unknown id, a malformed one, and another account's, all alike", async () => {
    const { rows } = await accountWith(1, 'Hidden Studio');
    const theirs = rows[0]!.id;
    const answers = [
      await get(`/v1/notifications/${theirs}`),
      await get('/v1/notifications/ntf_0000000000000000000000ZZZZ'),
      await get('/v1/notifications/not-an-id'),
      await get(`/v1/notifications/${theirs.replace('ntf_', 'lst_')}`),
      await get(`/v1/notifications/${'ntf_'.padEnd(60, 'x')}`),
    ];
    const bodies = answers.map((res) => {
      const error = assertError(res, 404, 'not_found');
      return { code: error.code, message: error.message };
    });
    for (const body of bodies.slice(1)) assert.deepEqual(body, bodies[0]);
    assert.ok(!answers[0]!.body.includes(theirs.slice(4)), 'the error does not echo the id');
  });
});
