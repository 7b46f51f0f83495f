// Deliveries under way at once, with the default timeout (10 s: an attempt here hangs for as long
// as the test lets it) and few slots (WEBHOOK_CONCURRENCY=4, WEBHOOK_ENDPOINT_CONCURRENCY=2), so a
// slow endpoint that took every slot would starve the others (docs/api.md §15): a hanging
// endpoint beside a fast one, a manual retry while an attempt is in flight, and two nodes (two
// runners) on one database. Receivers are on 127.0.0.1; the runners poll as the serve process's do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { newGallery } from '../../../test/support/notification-helpers.ts';
import {
  createEndpoint,
  deliveryRunner,
  listDeliveries,
  until,
  verifyingReceiver,
  type DeliveryRunner,
} from '../../../test/support/webhooks.ts';
import { fanOut } from './webhooks.fanout.ts';
import {
  blockedConnections,
  startReceiver,
  systemLookups,
  type Receiver,
} from '../../../test/support/loopback-receivers.ts';

let ctx: TestContext;
let runner: DeliveryRunner;
const closing: { close(): Promise<void> }[] = [];

before(async () => {
  ctx = await createTestContext({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_CONCURRENCY: '4',
    WEBHOOK_ENDPOINT_CONCURRENCY: '2',
  });
  runner = deliveryRunner(ctx.deps);
});

after(async () => {
  await runner.close();
  for (const c of closing) await c.close();
  await ctx.close();
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

async function remove(key: string, endpointId: string): Promise<void> {
  const res = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${endpointId}`, { key });
  assert.equal(res.statusCode, 204, res.body);
}

describe('attempts that hang', () => {
  test('a hanging endpoint and a fast one: the fast one gets every delivery while the other hangs', async () => {
    const held: http.ServerResponse[] = [];
    let released = false;
    const hanging: Receiver = await startReceiver((_req, res) => {
      if (released) res.writeHead(204).end();
      else held.push(res);
    });
    closing.push(hanging);
    const fastSecrets: string[] = [];
    const fast = await verifyingReceiver(() => fastSecrets);
    closing.push(fast);
    const me = await createAccount(ctx);
    const slow = await createEndpoint(ctx, me, { url: hanging.url() });
    const quick = await createEndpoint(ctx, me, { url: fast.url() });
    fastSecrets.push(quick.secret);
    const events = 8;
    for (let i = 0; i < events; i += 1) await newGallery(ctx, me, { address: `${i} Quick Street` });

    runner.start();
    for (let i = 0; fast.verified.length < events || (await pendingOf(quick.id)) > 0; i += 1) {
      assert.ok(i < 500, 'the fast endpoint got every delivery');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Meanwhile the hanging endpoint still holds its requests, unanswered, and its deliveries wait.
    assert.ok(held.length > 0);
    assert.ok(held.length <= ctx.config.webhooks.perEndpoint, `${held.length} requests at once to one endpoint`);
    assert.ok(held.every((res) => !res.writableEnded));
    const slowDeliveries = await listDeliveries(ctx, me, slow.id);
    assert.equal(slowDeliveries.length, events);
    assert.ok(slowDeliveries.every((d) => d.status === 'pending' && d.attempts === 0));
    released = true;
    for (const res of held) res.writeHead(204).end();
    await runner.stop(5000);
    // Gone with their pending deliveries, so the runners of the tests below meet none of them.
    for (const e of [slow, quick]) await remove(me.key, e.id);

    async function pendingOf(endpointId: string): Promise<number> {
      const list = await listDeliveries(ctx, me, endpointId);
      return list.filter((d) => d.status !== 'succeeded').length;
    }
  });

  test('a manual retry while an attempt is in flight starts no second attempt beside it', async () => {
    const held: http.ServerResponse[] = [];
    const hanging = await startReceiver((_req, res) => held.push(res));
    closing.push(hanging);
    const me = await createAccount(ctx);
    const endpoint = await createEndpoint(ctx, me, { url: hanging.url() });
    await newGallery(ctx, me);
    // Its delivery is made by the fan-out, before a runner's first claim (decisions/0012).
    await fanOut(ctx.deps.db, () => ctx.deps.clock.iso());
    const [delivery] = await listDeliveries(ctx, me, endpoint.id);
    assert.ok(delivery);
    const jobs = () =>
      ctx.deps.db.kysely
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', 'webhook.deliver')
        .where('subject_id', '=', delivery.id)
        .execute();
    // A runner polling as the serve process's does; the attempt hangs until the test answers it.
    const live = deliveryRunner(ctx.deps);
    live.start();
    try {
      await until(() => Promise.resolve(held.length === 1));
      const retry = await call(ctx, 'POST', `/v1/webhook_endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`, {
        key: me.key,
      });
      assert.equal(retry.statusCode, 202, retry.body);
      // The attempt in flight is the one made now: no second job to send it again beside it.
      assert.equal((await jobs()).length, 1);
      for (const res of held) res.writeHead(204).end();
      await until(async () => (await listDeliveries(ctx, me, endpoint.id))[0]?.status === 'succeeded');
    } finally {
      await live.close();
    }
    assert.equal(held.length, 1);
    const [done] = await listDeliveries(ctx, me, endpoint.id);
    assert.equal(done?.attempts, 1);
    assert.deepEqual(await jobs(), []);
    await remove(me.key, endpoint.id);
  });
});

describe('two nodes on one database', () => {
  test('every delivery is attempted by one of them, once', async () => {
    const secrets: string[] = [];
    // Slow enough that both runners are busy at once.
    const r = await verifyingReceiver(
      () => secrets,
      (_req, res) => setTimeout(() => res.writeHead(204).end(), 30),
    );
    closing.push(r);
    const me = await createAccount(ctx);
    const { id, secret } = await createEndpoint(ctx, me, { url: r.url() });
    secrets.push(secret);
    const events = 12;
    for (let i = 0; i < events; i += 1) await newGallery(ctx, me, { address: `${i} Twin Lane` });
    const nodes = [deliveryRunner(ctx.deps), deliveryRunner(ctx.deps)];
    for (const node of nodes) node.start();
    try {
      // Every event fanned out (by either node, once) and every delivery made.
      await until(async () => {
        const list = await listDeliveries(ctx, me, id);
        return list.length === events && list.every((d) => d.status === 'succeeded');
      });
    } finally {
      for (const node of nodes) await node.close();
    }
    const ids = r.verified.map((v) => String(v.headers['webhook-id']));
    assert.equal(ids.length, events);
    assert.equal(new Set(ids).size, events);
    for (const d of await listDeliveries(ctx, me, id)) assert.equal(d.attempts, 1);
  });
});
