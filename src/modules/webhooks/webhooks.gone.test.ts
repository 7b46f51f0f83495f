// Endpoints that are gone (docs/api.md §22): a receiver answering 410 disables its endpoint at
// once (`disabled_reason: "gone"`), its pending deliveries wait as for any disabled endpoint, and
// enabling it again clears the reason and sends them. A disable by hand says `manual`. Seen through
// the API, the database and the dashboard's webhooks page, against real receivers on 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Browser, textOf } from '../../../test/support/dashboard-browser.ts';
import { call, createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { fakeClock, newGallery, type FakeClock } from '../../../test/support/notification-helpers.ts';
import {
  createEndpoint,
  deliveryRunner,
  listDeliveries,
  onlyDelivery,
  verifyingReceiver,
  type DeliveryRunner,
  type EndpointJson,
} from '../../../test/support/webhooks.ts';
import { disableGone } from './webhooks.repository.ts';
import { blockedConnections, systemLookups } from '../../../test/support/loopback-receivers.ts';

type Endpoint = EndpointJson & { disabled_reason: 'manual' | 'gone' | null };

let ctx: TestContext;
let time: FakeClock;
let runner: DeliveryRunner;
const closing: { close(): Promise<void> }[] = [];

before(async () => {
  time = fakeClock();
  ctx = await createTestContext(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SECONDS: '2,4', WEBHOOK_TIMEOUT_SECONDS: '1' },
    { clock: time.clock },
  );
  runner = deliveryRunner(ctx.deps);
});

after(async () => {
  await runner.close();
  for (const c of closing) await c.close();
  await ctx.close();
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

/** A receiver answering each verified delivery with the status `status()` says at that moment. */
async function receiverAnswering(status: () => number) {
  const secrets: string[] = [];
  const r = await verifyingReceiver(
    () => secrets,
    (_req, res) => res.writeHead(status()).end(),
  );
  closing.push(r);
  return { r, secrets };
}

async function getEndpoint(key: string, id: string): Promise<Endpoint> {
  const res = await call(ctx, 'GET', `/v1/webhook_endpoints/${id}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Endpoint>();
}

async function patchEndpoint(key: string, id: string, body: Record<string, unknown>): Promise<Endpoint> {
  const res = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${id}`, { key, body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Endpoint>();
}

describe('a receiver answering 410 Gone', () => {
  test('disables the endpoint at once; its deliveries wait; enabling again clears the reason and sends them', async () => {
    let status = 410;
    const { r, secrets } = await receiverAnswering(() => status);
    const me = await createAccount(ctx);
    const created = await createEndpoint(ctx, me, { url: r.url() });
    secrets.push(created.secret);
    assert.equal((created as Endpoint).disabled_reason, null);
    assert.equal(created.enabled, true);

    const first = await newGallery(ctx, me, { address: 'Before gone' });
    time.advance(1);
    await runner.drain();
    assert.equal(r.verified.length, 1);

    const gone = await getEndpoint(me.key, created.id);
    assert.equal(gone.enabled, false);
    assert.equal(gone.disabled_reason, 'gone');
    assert.equal(gone.updated_at, time.clock.iso(), 'updated_at moves when it is disabled');
    const listed = await call(ctx, 'GET', '/v1/webhook_endpoints', { key: me.key });
    assert.equal(listed.json<{ data: Endpoint[] }>().data[0]?.disabled_reason, 'gone');
    const waiting = await onlyDelivery(ctx, me, created.id);
    assert.equal(waiting.status, 'pending');
    assert.equal(waiting.response_status, 410);

    // Disabled: events meanwhile are not delivered, and the pending retry is not sent when due.
    await newGallery(ctx, me, { address: 'While gone' });
    time.advance(60_000);
    await runner.drain();
    assert.equal(r.verified.length, 1);
    assert.equal((await listDeliveries(ctx, me, created.id)).length, 1);
    // A test event is refused while disabled, as for any disabled endpoint.
    const test409 = await call(ctx, 'POST', `/v1/webhook_endpoints/${created.id}/test`, { key: me.key });
    assert.equal(test409.statusCode, 409, test409.body);

    // Disabling again by hand keeps the reason it has: it is still gone.
    assert.equal((await patchEndpoint(me.key, created.id, { enabled: false })).disabled_reason, 'gone');
    assert.equal((await patchEndpoint(me.key, created.id, { description: 'x' })).disabled_reason, 'gone');

    status = 204;
    const enabled = await patchEndpoint(me.key, created.id, { enabled: true });
    assert.equal(enabled.enabled, true);
    assert.equal(enabled.disabled_reason, null);
    await runner.drain();
    assert.equal(r.verified.length, 2);
    assert.equal(r.verified[1]?.event.data.object.id, first.id);
    const done = await onlyDelivery(ctx, me, created.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, 2);
  });

  test('other refusals (404, 400, 500) do not disable the endpoint', async () => {
    const statuses = [404, 400, 500];
    let n = 0;
    const { r, secrets } = await receiverAnswering(() => statuses[n++] ?? 204);
    const me = await createAccount(ctx);
    const created = await createEndpoint(ctx, me, { url: r.url() });
    secrets.push(created.secret);
    await newGallery(ctx, me);
    await runner.drain();
    for (const wait of [2000, 4000]) {
      assert.equal((await getEndpoint(me.key, created.id)).disabled_reason, null);
      time.advance(wait);
      await runner.drain();
    }
    assert.equal(r.verified.length, 3);
    const endpoint = await getEndpoint(me.key, created.id);
    assert.equal(endpoint.enabled, true);
    assert.equal(endpoint.disabled_reason, null);
    await call(ctx, 'DELETE', `/v1/webhook_endpoints/${created.id}`, { key: me.key });
  });
});

describe('disabled by hand', () => {
  test('PATCH enabled:false says manual; enabling clears it', async () => {
    const me = await createAccount(ctx);
    const created = await createEndpoint(ctx, me, { url: 'https://hooks.example.test/in' });
    const off = await patchEndpoint(me.key, created.id, { enabled: false });
    assert.equal(off.enabled, false);
    assert.equal(off.disabled_reason, 'manual');
    const stored = await ctx.deps.db.kysely
      .selectFrom('webhook_endpoints')
      .select('disabled_reason')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.disabled_reason, 'manual');
    const on = await patchEndpoint(me.key, created.id, { enabled: true });
    assert.equal(on.disabled_reason, null);
    // disabled_reason is read-only.
    const refused = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${created.id}`, {
      key: me.key,
      body: { disabled_reason: 'gone' },
    });
    assert.equal(refused.statusCode, 400, refused.body);
  });

  test("the dashboard's webhooks page tells a gone endpoint from one disabled by hand", async () => {
    const owner = await createAccount(ctx, 'Gone Studio');
    const browser = new Browser(ctx.app);
    assert.equal((await browser.signIn(owner.email, 'correct horse battery')).statusCode, 303);
    const byHand = await createEndpoint(ctx, owner, { url: 'https://hooks.example.test/by-hand' });
    const goneOne = await createEndpoint(ctx, owner, { url: 'https://hooks.example.test/gone' });
    await browser.get('/dashboard/settings/webhooks');
    const posted = await browser.post(`/dashboard/settings/webhooks/${byHand.id}/disable`, {});
    assert.equal(posted.statusCode, 303);
    assert.equal((await getEndpoint(owner.key, byHand.id)).disabled_reason, 'manual');
    // The delivery job's own write (a 410 seen), without a receiver.
    await disableGone(ctx.deps.db.kysely, goneOne.id, time.clock.iso());

    const page = textOf((await browser.get('/dashboard/settings/webhooks')).body);
    const goneCard = page.slice(page.indexOf('hooks.example.test/gone'));
    const handCard = page.slice(page.indexOf('hooks.example.test/by-hand'));
    assert.match(goneCard, /^[^]*?disabled: gone[^]*?410 Gone/);
    assert.match(handCard, /^[^]*?Disabled by hand/);
    assert.doesNotMatch(handCard.slice(0, handCard.indexOf('Delete')), /410 Gone/);
  });
});
