// GET /v1/account (docs/api.md §20): the studio behind a key and the key used, for any key and
// scope; its own ETag, which changes with the studio and differs per key; 401 without a key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createKey,
  createTestContext,
  expectError,
  testModeOf,
  type TestContext,
} from '../../../test/support/test-app.ts';

interface AccountJson {
  id: string;
  name: string;
  email: string;
  livemode: boolean;
  currency: string;
  key: { id: string; name: string; prefix: string; scope: string; expires_at: string | null };
}

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

describe('GET /v1/account', () => {
  test('names the studio, its owner and the key used, for a full key', async () => {
    const me = await createAccount(ctx, 'North Light');
    const res = await call(ctx, 'GET', '/v1/account', { key: me.key });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<AccountJson>();
    assert.deepEqual(Object.keys(body).sort(), ['currency', 'email', 'id', 'key', 'livemode', 'name']);
    assert.equal(body.id, me.accountId);
    assert.equal(body.name, 'North Light');
    assert.equal(body.email, me.email);
    assert.equal(body.livemode, true);
    assert.deepEqual(body.key, {
      id: me.keyId,
      name: 'test',
      prefix: me.key.slice(0, body.key.prefix.length),
      scope: 'full',
      expires_at: null,
    });
    assert.ok(body.key.prefix.length >= 8 && body.key.prefix.length < 20);
    assert.ok(!res.body.includes(me.key), 'never the key itself');
  });

  test("currency (docs/api.md §29): USD by default, the studio's choice after, the same in test mode", async () => {
    const me = await createAccount(ctx);
    assert.equal((await call(ctx, 'GET', '/v1/account', { key: me.key })).json<AccountJson>().currency, 'USD');
    const test = await testModeOf(ctx, me);
    await ctx.services.accounts.updateStudio(me.accountId, { name: 'Studio', senderName: null, currency: 'jpy' });
    assert.equal((await call(ctx, 'GET', '/v1/account', { key: me.key })).json<AccountJson>().currency, 'JPY');
    assert.equal((await call(ctx, 'GET', '/v1/account', { key: test.key })).json<AccountJson>().currency, 'JPY');
    // Not a currency: refused, naming the field, and nothing changes.
    await assert.rejects(
      ctx.services.accounts.updateStudio(me.accountId, { name: 'Studio', senderName: null, currency: 'XYZ' }),
      (err: { code?: string; details?: { field: string }[] }) =>
        err.code === 'validation_error' && err.details?.[0]?.field === 'currency',
    );
    assert.equal((await call(ctx, 'GET', '/v1/account', { key: me.key })).json<AccountJson>().currency, 'JPY');
  });

  test('any scope: a read-only key with an expiry sees itself', async () => {
    const me = await createAccount(ctx);
    const other = await createKey(ctx, me.accountId, { scope: 'read_only', expiresInDays: 3 });
    const res = await call(ctx, 'GET', '/v1/account', { key: other.key });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<AccountJson>();
    assert.equal(body.id, me.accountId);
    assert.equal(body.key.id, other.keyId);
    assert.equal(body.key.name, 'extra');
    assert.equal(body.key.scope, 'read_only');
    assert.match(body.key.expires_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("another account's key sees that account only", async () => {
    const a = await createAccount(ctx, 'A');
    const b = await createAccount(ctx, 'B');
    const res = await call(ctx, 'GET', '/v1/account', { key: b.key });
    assert.equal(res.json<AccountJson>().id, b.accountId);
    assert.notEqual(res.json<AccountJson>().id, a.accountId);
  });

  test('401 without a key or with a revoked one', async () => {
    expectError(await call(ctx, 'GET', '/v1/account'), 401, 'unauthorized');
    const me = await createAccount(ctx);
    await ctx.services.apiKeys.revoke(me.keyId, me.accountId);
    expectError(await call(ctx, 'GET', '/v1/account', { key: me.key }), 401, 'unauthorized');
  });

  test('ETag: 304 while unchanged; a new one when the studio is renamed; one per key', async () => {
    const me = await createAccount(ctx, 'Before');
    const first = await call(ctx, 'GET', '/v1/account', { key: me.key });
    const etag = String(first.headers.etag);
    assert.match(etag, /^W\/"[^"]+"$/);
    const again = await call(ctx, 'GET', '/v1/account', { key: me.key, headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    for (const [method, header] of [
      ['HEAD', etag],
      ['GET', '*'],
      ['GET', `"nope", ${etag.slice(2)}`],
    ] as const) {
      const res = await call(ctx, method, '/v1/account', { key: me.key, headers: { 'if-none-match': header } });
      assert.equal(res.statusCode, 304, `${method} ${header}`);
      assert.equal(res.body, '');
    }
    const head = await call(ctx, 'HEAD', '/v1/account', { key: me.key });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers.etag, etag);

    const second = await createKey(ctx, me.accountId);
    const other = await call(ctx, 'GET', '/v1/account', { key: second.key, headers: { 'if-none-match': etag } });
    assert.equal(other.statusCode, 200, 'another key is another representation');
    assert.equal(other.json<AccountJson>().key.id, second.keyId);

    await ctx.services.accounts.updateStudio(me.accountId, { name: 'After', senderName: null });
    const renamed = await call(ctx, 'GET', '/v1/account', { key: me.key, headers: { 'if-none-match': etag } });
    assert.equal(renamed.statusCode, 200);
    assert.equal(renamed.json<AccountJson>().name, 'After');
    assert.notEqual(renamed.headers.etag, etag);
  });
});
