// Idempotency-Key (docs/api.md §9): replay of the first response, conflicts, the header's
// rules, 24-hour expiry on a clock the test moves, uploads, faults, leases and pruning; on the
// real stack and a real database (both dialects).
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { fakeClock } from '../../../test/support/notification-helpers.ts';
import {
  call,
  createAccount,
  createKey,
  detailFields,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { createTestContext } from '../../../test/support/test-app.ts';
import { pdf } from '../../../test/support/media-fixtures.ts';
import { upload } from '../../../test/support/media-helpers.ts';
import { JSON_LEASE_MS, RECORD_TTL_MS } from './idempotency.service.ts';

const clock = fakeClock(Date.parse('2026-11-22T10:00:00.000Z'));
let ctx: TestContext;
let account: TestAccount;
let serial = 0;
const newKey = (): string => `idem-${Date.now()}-${(serial += 1)}`;

const post = (url: string, key: string | undefined, body?: unknown, who: TestAccount = account) =>
  call(ctx, 'POST', url, {
    key: who.key,
    ...(body === undefined ? {} : { body }),
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

async function galleryCount(accountId = account.accountId): Promise<number> {
  const row = await ctx.deps.db.kysely
    .selectFrom('listings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}

const records = () => ctx.deps.db.kysely.selectFrom('idempotency_keys').selectAll().execute();

before(async () => {
  ctx = await createTestContext({}, { clock: clock.clock });
  account = await createAccount(ctx);
});
after(() => ctx.close());

describe('Idempotency-Key on POST', () => {
  test('a repeat replays the first response: same status, body and Location, marked as replayed', async () => {
    const key = newKey();
    const before = await galleryCount();
    const first = await post('/v1/listings', key, { address: '1 Replay Road', beds: 2 });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post('/v1/listings', key, { beds: 2, address: '  1 Replay Road ' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(again.headers.location, first.headers.location);
    assert.match(String(again.headers['content-type']), /^application\/json/);
    assert.equal(await galleryCount(), before + 1, 'one gallery, however often it is sent');
  });

  test('without the header, every POST runs', async () => {
    const before = await galleryCount();
    await post('/v1/listings', undefined, { address: 'No Key Lane' });
    await post('/v1/listings', undefined, { address: 'No Key Lane' });
    assert.equal(await galleryCount(), before + 2);
  });

  test('the same key on another body, path or method is 409 conflict, and nothing runs', async () => {
    const key = newKey();
    assert.equal((await post('/v1/listings', key, { address: '2 First Street' })).statusCode, 201);
    const before = await galleryCount();
    const otherBody = await post('/v1/listings', key, { address: '2 First Street', beds: 1 });
    assert.match(expectError(otherBody, 409, 'conflict').message, /different request/);
    const otherPath = await post('/v1/clients', key, { name: 'Ann', email: 'ann.idem@example.test' });
    expectError(otherPath, 409, 'conflict');
    assert.equal(await galleryCount(), before);
    const clients = await call(ctx, 'GET', '/v1/clients', { key: account.key });
    assert.equal(clients.json().pagination.total, 0);
  });

  test('keys are per account: another studio may use the same key for its own request', async () => {
    const other = await createAccount(ctx, 'Other Studio');
    const key = newKey();
    const mine = await post('/v1/listings', key, { address: '3 Mine Road' });
    const theirs = await post('/v1/listings', key, { address: '3 Mine Road' }, other);
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.json().id, mine.json().id);
    assert.equal(await galleryCount(other.accountId), 1);
  });

  test('a second key of the same account shares the account’s keys', async () => {
    const second = await createKey(ctx, account.accountId);
    const key = newKey();
    const first = await post('/v1/listings', key, { address: '4 Shared Way' });
    const again = await call(ctx, 'POST', '/v1/listings', {
      key: second.key,
      body: { address: '4 Shared Way' },
      headers: { 'idempotency-key': key },
    });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
  });

  test('a handler’s 4xx is kept and replayed, with this request’s id in the replayed body', async () => {
    const email = `dup.${Date.now()}@example.test`;
    assert.equal((await post('/v1/clients', undefined, { name: 'Dup', email })).statusCode, 201);
    const key = newKey();
    const first = await post('/v1/clients', key, { name: 'Dup', email });
    const firstError = expectError(first, 409, 'conflict');
    const again = await post('/v1/clients', key, { name: 'Dup', email });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const replayed = expectError(again, 409, 'conflict');
    assert.equal(replayed.message, firstError.message);
    assert.notEqual(replayed.request_id, firstError.request_id);
  });

  test('an invalid Idempotency-Key is 400 validation_error naming the header', async () => {
    for (const bad of ['x'.repeat(256), 'naïve', 'tab\there']) {
      const res = await call(ctx, 'POST', '/v1/listings', {
        key: account.key,
        body: { address: 'Bad Key Road' },
        headers: { 'idempotency-key': bad },
      });
      const error = expectError(res, 400, 'validation_error');
      assert.deepEqual(
        error.details?.map((d) => d.field),
        ['Idempotency-Key'],
      );
    }
    const longest = await post('/v1/listings', '~'.repeat(255), { address: 'Longest Key Road' });
    assert.equal(longest.statusCode, 201);
    const spaced = await post('/v1/listings', 'a key with spaces', { address: 'Spaced Key Road' });
    assert.equal(spaced.statusCode, 201);
  });

  test('requests refused before the handler store nothing and leave the key unused', async () => {
    const key = newKey();
    const readOnly = await createKey(ctx, account.accountId, { scope: 'read_only' });
    const refused = [
      await post('/v1/listings', key, { address: '' }),
      await post('/v1/listings', key, '{"address": '),
      await call(ctx, 'POST', '/v1/listings', {
        key: readOnly.key,
        body: { address: 'x' },
        headers: { 'idempotency-key': key },
      }),
      await call(ctx, 'POST', '/v1/listings', {
        key: 'lbx_notakey000000000000000000000000000000',
        body: { address: 'x' },
        headers: { 'idempotency-key': key },
      }),
      await call(ctx, 'POST', '/v1/listings', {
        key: account.key,
        body: 'address=x',
        headers: { 'idempotency-key': key, 'content-type': 'text/plain' },
      }),
    ];
    assert.deepEqual(
      refused.map((r) => r.statusCode),
      [400, 400, 403, 401, 415],
    );
    assert.ok(!(await records()).some((r) => r.idempotency_key === key));
    assert.equal((await post('/v1/listings', key, { address: '5 Fresh Start' })).statusCode, 201);
  });

  test('other methods: an unknown key is ignored and stores nothing; a used one is 409; a bad one 400', async () => {
    const created = await post('/v1/listings', undefined, { address: '6 Patch Place' });
    const id = created.json().id as string;
    const fresh = newKey();
    for (const beds of [1, 2]) {
      const res = await call(ctx, 'PATCH', `/v1/listings/${id}`, {
        key: account.key,
        body: { beds },
        headers: { 'idempotency-key': fresh },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().beds, beds);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.ok(!(await records()).some((r) => r.idempotency_key === fresh));

    // A key a POST of this account used: the same key on another method is a conflict, nothing runs.
    const used = newKey();
    assert.equal((await post('/v1/listings', used, { address: '7 Used Key Lane' })).statusCode, 201);
    const patch = await call(ctx, 'PATCH', `/v1/listings/${id}`, {
      key: account.key,
      body: { beds: 9 },
      headers: { 'idempotency-key': used },
    });
    expectError(patch, 409, 'conflict');
    const del = await call(ctx, 'DELETE', `/v1/listings/${id}`, {
      key: account.key,
      headers: { 'idempotency-key': used },
    });
    expectError(del, 409, 'conflict');
    const get = await call(ctx, 'GET', `/v1/listings/${id}`, {
      key: account.key,
      headers: { 'idempotency-key': used },
    });
    expectError(get, 409, 'conflict');
    assert.equal(get.headers['idempotent-replayed'], undefined);
    const still = await call(ctx, 'GET', `/v1/listings/${id}`, { key: account.key });
    assert.equal(still.json().beds, 2);

    // Another account's key of the same name is not this account's.
    const other = await createAccount(ctx, 'Other Studio');
    const theirs = await post('/v1/listings', undefined, { address: '8 Their Road' }, other);
    const theirPatch = await call(ctx, 'PATCH', `/v1/listings/${theirs.json().id as string}`, {
      key: other.key,
      body: { beds: 3 },
      headers: { 'idempotency-key': used },
    });
    assert.equal(theirPatch.statusCode, 200, theirPatch.body);

    // An expired record is no conflict.
    clock.advance(RECORD_TTL_MS + 1);
    const later = await call(ctx, 'DELETE', `/v1/listings/${id}`, {
      key: account.key,
      headers: { 'idempotency-key': used },
    });
    assert.equal(later.statusCode, 204, later.body);

    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await call(ctx, method, `/v1/listings/${id}`, {
        key: account.key,
        ...(method === 'PATCH' ? { body: { beds: 1 } } : {}),
        headers: { 'idempotency-key': 'naïve' },
      });
      assert.deepEqual(detailFields(expectError(res, 400, 'validation_error')), ['Idempotency-Key'], method);
    }
  });
});

describe('faults, leases and expiry', () => {
  test('a 5xx gives the key back: a retry runs again and succeeds', async () => {
    const key = newKey();
    await sql`alter table listings rename to listings_away`.execute(ctx.deps.db.kysely);
    let failed;
    try {
      failed = await post('/v1/listings', key, { address: '7 Fault Lane' });
    } finally {
      await sql`alter table listings_away rename to listings`.execute(ctx.deps.db.kysely);
    }
    expectError(failed, 500, 'internal_error');
    assert.ok(!(await records()).some((r) => r.idempotency_key === key), 'no record is kept for a 5xx');
    const retry = await post('/v1/listings', key, { address: '7 Fault Lane' });
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
  });

  test('a request still in flight is 409; once its lease runs out (a dead node), a retry takes over', async () => {
    const key = newKey();
    const body = { address: '8 Lease Lane' };
    assert.equal((await post('/v1/listings', key, body)).statusCode, 201);
    // Make the record look like a request still running (or a node that died running it).
    const [row] = await ctx.deps.db.kysely
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', locked_until: new Date(clock.now() + JSON_LEASE_MS).toISOString() })
      .where('idempotency_key', '=', key)
      .returning(['token'])
      .execute();
    assert.ok(row !== undefined);
    const busy = await post('/v1/listings', key, body);
    expectError(busy, 409, 'conflict');
    assert.equal(busy.headers['retry-after'], '1');
    assert.match(busy.json().error.message, /in progress/);

    clock.advance(JSON_LEASE_MS + 1);
    const before = await galleryCount();
    const taken = await post('/v1/listings', key, body);
    assert.equal(taken.statusCode, 201);
    assert.equal(taken.headers['idempotent-replayed'], undefined);
    assert.equal(await galleryCount(), before + 1);
    // The first holder finishing late cannot overwrite what the new holder stored.
    const late = await ctx.services.idempotency.complete(account.accountId, key, row.token, {
      status: 500,
      headers: {},
      body: 'late',
    });
    assert.equal(late, false);
    const replay = await post('/v1/listings', key, body);
    assert.equal(replay.body, taken.body);
  });

  test('after 24 hours a record is ignored: the same key runs again', async () => {
    const key = newKey();
    const first = await post('/v1/listings', key, { address: '9 Day Street' });
    clock.advance(RECORD_TTL_MS - 1000);
    assert.equal((await post('/v1/listings', key, { address: '9 Day Street' })).headers['idempotent-replayed'], 'true');
    clock.advance(1000);
    const later = await post('/v1/listings', key, { address: '9 Day Street' });
    assert.equal(later.statusCode, 201);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.notEqual(later.json().id, first.json().id);
  });

  test('pruning deletes expired records only', async () => {
    const old = newKey();
    await post('/v1/listings', old, { address: '10 Old Road' });
    clock.advance(RECORD_TTL_MS / 2);
    const fresh = newKey();
    await post('/v1/listings', fresh, { address: '11 Fresh Road' });
    clock.advance(RECORD_TTL_MS / 2);
    const pruned = await ctx.services.idempotency.prune();
    assert.ok(pruned >= 1);
    const keys = (await records()).map((r) => r.idempotency_key);
    assert.ok(!keys.includes(old));
    assert.ok(keys.includes(fresh));
    for (const r of await records()) assert.ok(Date.parse(r.expires_at) > clock.now(), 'only live records remain');
    assert.equal(await ctx.services.idempotency.prune(), 0);
  });
});

describe('uploads', () => {
  test('a repeated upload replays the first (fingerprint: method and path), storing nothing new', async () => {
    const gallery = (await post('/v1/listings', undefined, { address: '12 Upload Road' })).json().id as string;
    const key = newKey();
    const file = [{ filename: 'a.pdf', contentType: 'application/pdf', data: pdf('first') }];
    const first = await upload(ctx, account.key, gallery, file, { 'idempotency-key': key });
    assert.equal(first.statusCode, 201, first.body);
    const again = await upload(ctx, account.key, gallery, [{ ...file[0]!, data: pdf('second') }], {
      'idempotency-key': key,
    });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const list = await call(ctx, 'GET', `/v1/listings/${gallery}/media`, { key: account.key });
    assert.equal(list.json().pagination.total, 1);
    const elsewhere = await call(ctx, 'POST', '/v1/listings', {
      key: account.key,
      body: { address: 'x' },
      headers: { 'idempotency-key': key },
    });
    expectError(elsewhere, 409, 'conflict');
  });

  test('an upload refused before its body is read closes the connection (bad key, no key, read-only key)', async () => {
    const gallery = (await post('/v1/listings', undefined, { address: '14 Unread Road' })).json().id as string;
    const file = [{ filename: 'a.pdf', contentType: 'application/pdf', data: pdf() }];
    const readOnly = await createKey(ctx, account.accountId, { scope: 'read_only' });
    const refused = [
      [await upload(ctx, account.key, gallery, file, { 'idempotency-key': 'x'.repeat(256) }), 400],
      [await upload(ctx, 'lbx_notakey000000000000000000000000000000', gallery, file), 401],
      [await upload(ctx, readOnly.key, gallery, file), 403],
    ] as const;
    for (const [res, status] of refused) {
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.headers.connection, 'close', `${status}`);
    }
  });

  test('a refused upload gives its key back, so the corrected retry runs', async () => {
    const gallery = (await post('/v1/listings', undefined, { address: '13 Refused Road' })).json().id as string;
    const key = newKey();
    const refused = await upload(ctx, account.key, gallery, [{ filename: 'a.txt', data: 'not a photo' }], {
      'idempotency-key': key,
    });
    expectError(refused, 415, 'unsupported_media_type');
    assert.ok(!(await records()).some((r) => r.idempotency_key === key));
    const retry = await upload(
      ctx,
      account.key,
      gallery,
      [{ filename: 'b.pdf', contentType: 'application/pdf', data: pdf() }],
      { 'idempotency-key': key },
    );
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
  });
});
