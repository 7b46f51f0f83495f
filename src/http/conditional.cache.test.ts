// The per-node cache of JSON 200 bodies, keyed by ETag (decisions/0016). A body is served again
// only while the account's version, read from the database on every request, is the one it was
// stored under. To show that the cache is in use, and that the version is all that guards it,
// these tests put a gallery's row back behind the version's back: the version is raised by the
// write's trigger and then set back by hand, a write no real path can make (test/
// conditional-writes.test.ts checks that every real path raises it). With the cache on, the
// old body comes back; with HTTP_RESPONSE_CACHE_MB=0, the new one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';

async function setup(env: Record<string, string>): Promise<{ ctx: TestContext; owner: TestAccount; id: string }> {
  const ctx = await createTestContext(env);
  const owner = await createAccount(ctx, 'Cached studio');
  const res = await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '1 Cache Lane' } });
  assert.equal(res.statusCode, 201, res.body);
  return { ctx, owner, id: res.json<{ id: string }>().id };
}

const version = async (ctx: TestContext, accountId: string): Promise<number> =>
  (
    await ctx.deps.db.kysely
      .selectFrom('account_versions')
      .select('version')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow()
  ).version;

/** Renames the gallery in the database, then sets the account's version back to what it was. */
async function renameBehindTheVersion(ctx: TestContext, accountId: string, id: string, address: string) {
  const was = await version(ctx, accountId);
  await ctx.deps.db.kysely.updateTable('listings').set({ address }).where('id', '=', id).execute();
  assert.ok((await version(ctx, accountId)) > was, 'the trigger raised the version');
  await ctx.deps.db.kysely
    .updateTable('account_versions')
    .set({ version: was })
    .where('account_id', '=', accountId)
    .execute();
}

describe('the response cache', () => {
  let on: Awaited<ReturnType<typeof setup>>;
  let off: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    on = await setup({});
    off = await setup({ HTTP_RESPONSE_CACHE_MB: '0' });
  });
  after(async () => {
    await on.ctx.close();
    await off.ctx.close();
  });

  test('a repeated GET is answered from the cache while the version stands, with the same tag and body', async () => {
    const { ctx, owner, id } = on;
    const first = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    assert.equal(first.statusCode, 200);
    await renameBehindTheVersion(ctx, owner.accountId, id, '2 Hidden Road');
    const second = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body, 'served from the cache (the version did not move)');
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal(second.headers['content-type'], first.headers['content-type']);
    assert.equal(second.headers['content-length'], first.headers['content-length']);
    // Headers made per request still come with a cached body.
    assert.ok(
      second.headers['x-request-id'] !== undefined && second.headers['x-request-id'] !== first.headers['x-request-id'],
    );
    assert.ok(second.headers['ratelimit-remaining'] !== undefined);
    // HEAD and a matching If-None-Match are unchanged.
    const head = await call(ctx, 'HEAD', `/v1/listings/${id}`, { key: owner.key });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    const notModified = await call(ctx, 'GET', `/v1/listings/${id}`, {
      key: owner.key,
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    assert.equal(notModified.statusCode, 304);
  });

  test('a real write raises the version: the next GET is built afresh', async () => {
    const { ctx, owner, id } = on;
    const before = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    const patched = await call(ctx, 'PATCH', `/v1/listings/${id}`, { key: owner.key, body: { beds: 4 } });
    assert.equal(patched.statusCode, 200, patched.body);
    const after = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    assert.notEqual(after.headers.etag, before.headers.etag);
    assert.equal(after.json<{ beds: number }>().beds, 4);
    assert.equal(after.body, patched.body, 'the same serializer, the same body');
  });

  test('another account never gets the body: its tag differs', async () => {
    const { ctx, owner, id } = on;
    const stranger = await createAccount(ctx, 'Stranger studio');
    const own = await call(ctx, 'GET', '/v1/listings', { key: owner.key });
    const theirs = await call(ctx, 'GET', '/v1/listings', { key: stranger.key });
    assert.equal(theirs.statusCode, 200);
    assert.notEqual(theirs.headers.etag, own.headers.etag);
    assert.equal(theirs.json<{ data: unknown[] }>().data.length, 0);
    assert.ok(own.body.includes(id));
  });

  test('HTTP_RESPONSE_CACHE_MB=0 keeps nothing: every GET is built afresh', async () => {
    const { ctx, owner, id } = off;
    const first = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    await renameBehindTheVersion(ctx, owner.accountId, id, '2 Hidden Road');
    const second = await call(ctx, 'GET', `/v1/listings/${id}`, { key: owner.key });
    assert.equal(second.json<{ address: string }>().address, '2 Hidden Road');
    assert.notEqual(second.body, first.body);
  });
});
