// docs/api.md §29's products: CRUD with integer prices, events, paging, and test mode apart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  testModeOf,
  type TestContext,
} from '../../../test/support/test-app.ts';

interface ProductJson {
  id: string;
  name: string;
  description: string | null;
  unit_amount: number;
  active: boolean;
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

describe('/v1/products', () => {
  test('create, read, change and delete, each with its event', async () => {
    const me = await createAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/products', {
      key: me.key,
      body: { name: '  Drone photos ', unit_amount: 15_000 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const product = created.json<ProductJson>();
    assert.equal(created.headers.location, `/v1/products/${product.id}`);
    assert.match(product.id, /^prd_/);
    assert.deepEqual(
      { ...product, id: '', created_at: '', updated_at: '' },
      {
        id: '',
        name: 'Drone photos',
        description: null,
        unit_amount: 15_000,
        active: true,
        created_at: '',
        updated_at: '',
      },
    );
    assert.deepEqual((await call(ctx, 'GET', `/v1/products/${product.id}`, { key: me.key })).json(), product);

    const patched = await call(ctx, 'PATCH', `/v1/products/${product.id}`, {
      key: me.key,
      body: { unit_amount: 17_500, active: false, description: 'Twenty aerials' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<ProductJson>().unit_amount, 17_500);
    assert.equal(patched.json<ProductJson>().active, false);

    const list = await call(ctx, 'GET', '/v1/products', { key: me.key });
    assert.deepEqual(list.json<{ data: ProductJson[] }>().data, [patched.json()]);

    assert.equal((await call(ctx, 'DELETE', `/v1/products/${product.id}`, { key: me.key })).statusCode, 204);
    expectError(await call(ctx, 'GET', `/v1/products/${product.id}`, { key: me.key }), 404, 'not_found');
    expectError(await call(ctx, 'DELETE', `/v1/products/${product.id}`, { key: me.key }), 404, 'not_found');

    const [createdEvent] = await eventsOf(me.key, 'product.created');
    assert.equal(createdEvent?.data.object.id, product.id);
    const [updatedEvent] = await eventsOf(me.key, 'product.updated');
    assert.equal((updatedEvent?.data.object as ProductJson | undefined)?.unit_amount, 17_500);
    const [deletedEvent] = await eventsOf(me.key, 'product.deleted');
    assert.deepEqual(deletedEvent?.data.object, { id: product.id });
  });

  test('prices are whole minor units: fractions, negatives and floats are refused', async () => {
    const me = await createAccount(ctx);
    for (const unit_amount of [12.5, -1, '100', 1_000_000_001]) {
      const res = await call(ctx, 'POST', '/v1/products', { key: me.key, body: { name: 'X', unit_amount } });
      assert.deepEqual(
        [...new Set(detailFields(expectError(res, 400, 'validation_error')))],
        ['unit_amount'],
        String(unit_amount),
      );
    }
    const empty = await call(ctx, 'POST', '/v1/products', { key: me.key, body: { name: '', unit_amount: 0 } });
    assert.deepEqual(detailFields(expectError(empty, 400, 'validation_error')), ['name']);
    const free = await call(ctx, 'POST', '/v1/products', { key: me.key, body: { name: 'Free', unit_amount: 0 } });
    assert.equal(free.statusCode, 201, free.body);
  });

  test('pages by cursor, newest first; another account and test mode see none of them', async () => {
    const me = await createAccount(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await call(ctx, 'POST', '/v1/products', { key: me.key, body: { name: `P${i}`, unit_amount: i } });
      ids.push(res.json<ProductJson>().id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor === null ? {} : { cursor }) };
      const res = await call(ctx, 'GET', '/v1/products', { key: me.key, query });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ data: ProductJson[]; pagination: { total: number; next_cursor: string | null } }>();
      assert.equal(body.pagination.total, 5);
      seen.push(...body.data.map((p) => p.id));
      cursor = body.pagination.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(seen, ids.toReversed());

    const other = await createAccount(ctx);
    expectError(await call(ctx, 'GET', `/v1/products/${ids[0]}`, { key: other.key }), 404, 'not_found');
    const test = await testModeOf(ctx, me);
    expectError(await call(ctx, 'GET', `/v1/products/${ids[0]}`, { key: test.key }), 404, 'not_found');
    assert.equal((await call(ctx, 'GET', '/v1/products', { key: test.key })).json<{ data: [] }>().data.length, 0);
  });
});
