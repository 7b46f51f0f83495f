// How deliveries fail, are retried and end (docs/api.md §15), seen through
// GET /v1/webhook_endpoints/:id/deliveries, against real receivers on 127.0.0.1. The retry
// schedule is shortened (WEBHOOK_RETRY_SECONDS=2,4: three attempts, then failed) and the clock is
// the test's, moved past each wait instead of waiting; the jitter is fixed (each wait is exactly
// its base). WEBHOOK_TIMEOUT_SECONDS=1 lets a receiver that never answers cost one second instead
// of the default ten. Every request is verified with the standardwebhooks package. Deliveries
// under way at once (a hanging endpoint, two nodes) are in webhooks.concurrency.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { fakeClock, newGallery, type FakeClock } from '../../../test/support/notification-helpers.ts';
import {
  createEndpoint,
  deliveryRunner,
  listDeliveries,
  onlyDelivery,
  verifyingReceiver,
  type DeliveryJson,
  type DeliveryRunner,
  type VerifyingReceiver,
} from '../../../test/support/webhooks.ts';
import {
  blockedConnections,
  closedPort,
  startReceiver,
  systemLookups,
} from '../../../test/support/loopback-receivers.ts';

const RETRY = [2, 4];

let ctx: TestContext;
let time: FakeClock;
let runner: DeliveryRunner;
const closing: { close(): Promise<void> }[] = [];

before(async () => {
  time = fakeClock();
  ctx = await createTestContext(
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SECONDS: RETRY.join(','), WEBHOOK_TIMEOUT_SECONDS: '1' },
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

/** A receiver closed after the file, verifying with whatever secrets `secrets` holds then. */
async function receiver(
  secrets: string[],
  answer?: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<VerifyingReceiver> {
  const r = await verifyingReceiver(() => secrets, answer);
  closing.push(r);
  return r;
}

/** A new account, and an endpoint of it for `url` whose secret `secrets` receives. */
async function endpointFor(url: string, secrets: string[]): Promise<{ me: TestAccount; id: string; secret: string }> {
  const me = await createAccount(ctx);
  const endpoint = await createEndpoint(ctx, me, { url });
  secrets.push(endpoint.secret);
  return { me, id: endpoint.id, secret: endpoint.secret };
}

/** The endpoint goes, and its pending deliveries with it, so later tests' clock moves skip them. */
async function retire(me: TestAccount, id: string): Promise<void> {
  const res = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${id}`, { key: me.key });
  assert.equal(res.statusCode, 204, res.body);
}

const later = (ms: number): string => new Date(time.now() + ms).toISOString();

/** A pending delivery after a failed attempt: its error, no delivery time, the next try `wait` s on. */
function assertWaiting(d: DeliveryJson, attempts: number, wait: number): void {
  assert.equal(d.status, 'pending', JSON.stringify(d));
  assert.equal(d.attempts, attempts);
  assert.equal(d.next_attempt_at, later(wait * 1000));
  assert.equal(d.delivered_at, null);
}

describe('webhook deliveries: failures, retries, the end of the schedule, a manual retry', () => {
  test('a 500, then recovery: retried after the first wait with the same webhook-id, then succeeded', async () => {
    const secrets: string[] = [];
    let answers = 0;
    const r = await receiver(secrets, (_req, res) => {
      answers += 1;
      res.writeHead(answers === 1 ? 500 : 200, { 'content-type': 'text/plain' }).end('busy');
    });
    const { me, id } = await endpointFor(r.url(), secrets);
    await newGallery(ctx, me);

    await runner.drain();
    assert.equal(r.verified.length, 1);
    const first = await onlyDelivery(ctx, me, id);
    assertWaiting(first, 1, RETRY[0] as number);
    assert.equal(first.response_status, 500);
    assert.equal(first.last_error, 'HTTP 500 (a 2xx is success)');

    // Not due yet: nothing is sent.
    time.advance((RETRY[0] as number) * 1000 - 1);
    await runner.drain();
    assert.equal(r.verified.length, 1);

    time.advance(1);
    await runner.drain();
    assert.equal(r.verified.length, 2);
    const [a, b] = r.verified;
    assert.equal(a?.headers['webhook-id'], b?.headers['webhook-id']);
    assert.equal(a?.headers['webhook-id'], first.event_id);
    // Every attempt is signed afresh, at its own time.
    assert.notEqual(a?.headers['webhook-timestamp'], b?.headers['webhook-timestamp']);
    const done = await onlyDelivery(ctx, me, id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, 2);
    assert.equal(done.response_status, 200);
    assert.equal(done.next_attempt_at, null);
    assert.equal(done.delivered_at, time.clock.iso());
    await retire(me, id);
  });

  test('a receiver slower than WEBHOOK_TIMEOUT_SECONDS: the attempt times out and is retried', async () => {
    const secrets: string[] = [];
    const held: http.ServerResponse[] = [];
    const r = await receiver(secrets, (_req, res) => held.push(res));
    const { me, id } = await endpointFor(r.url(), secrets);
    await newGallery(ctx, me);
    await runner.drain();
    assert.equal(held.length, 1);
    const d = await onlyDelivery(ctx, me, id);
    assertWaiting(d, 1, RETRY[0] as number);
    assert.equal(d.response_status, null);
    assert.equal(d.last_error, 'timed out after 1 s (waiting for the response)');
    for (const res of held) res.end();
    await retire(me, id);
  });

  test('a 302 is a failure and is not followed: its Location receives nothing', async () => {
    const target = await startReceiver((_req, res) => res.writeHead(204).end());
    closing.push(target);
    const secrets: string[] = [];
    const r = await receiver(secrets, (_req, res) => res.writeHead(302, { location: target.url('/moved') }).end());
    const { me, id } = await endpointFor(r.url(), secrets);
    await newGallery(ctx, me);
    await runner.drain();
    assert.equal(r.verified.length, 1);
    assert.equal(target.connections.total, 0);
    const d = await onlyDelivery(ctx, me, id);
    assertWaiting(d, 1, RETRY[0] as number);
    assert.equal(d.response_status, 302);
    assert.equal(d.last_error, `redirect 302 not followed (Location: ${target.url('/moved')})`);
    await retire(me, id);
  });

  test('connection refused: recorded as such, with no response status', async () => {
    const port = await closedPort();
    const { me, id } = await endpointFor(`http://127.0.0.1:${port}/hook`, []);
    await newGallery(ctx, me);
    await runner.drain();
    const d = await onlyDelivery(ctx, me, id);
    assertWaiting(d, 1, RETRY[0] as number);
    assert.equal(d.response_status, null);
    assert.equal(d.last_error, `connection refused (127.0.0.1:${port})`);
    await retire(me, id);
  });

  test('a receiver that destroys the socket mid-response: a failure, retried', async () => {
    const secrets: string[] = [];
    const r = await receiver(secrets, (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"ok":');
      setImmediate(() => res.socket?.destroy());
    });
    const { me, id } = await endpointFor(r.url(), secrets);
    await newGallery(ctx, me);
    await runner.drain();
    assert.equal(r.verified.length, 1);
    const d = await onlyDelivery(ctx, me, id);
    assertWaiting(d, 1, RETRY[0] as number);
    assert.equal(d.response_status, 200);
    assert.equal(d.last_error, 'connection closed before a complete response (after HTTP 200 headers)');
    await retire(me, id);
  });

  test('every attempt failing: retried on the schedule, then failed; a manual retry sends it again', async () => {
    const secrets: string[] = [];
    let status = 503;
    const r = await receiver(secrets, (_req, res) => res.writeHead(status).end());
    const { me, id } = await endpointFor(r.url(), secrets);
    await newGallery(ctx, me);

    await runner.drain();
    assertWaiting(await onlyDelivery(ctx, me, id), 1, RETRY[0] as number);
    time.advance((RETRY[0] as number) * 1000);
    await runner.drain();
    assertWaiting(await onlyDelivery(ctx, me, id), 2, RETRY[1] as number);
    time.advance((RETRY[1] as number) * 1000);
    await runner.drain();
    const failed = await onlyDelivery(ctx, me, id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 3);
    assert.equal(failed.response_status, 503);
    assert.equal(failed.last_error, 'HTTP 503 (a 2xx is success)');
    assert.equal(failed.next_attempt_at, null);
    assert.equal(r.verified.length, 3);
    const byStatus = async (status: string) =>
      (await call(ctx, 'GET', `/v1/webhook_endpoints/${id}/deliveries`, { key: me.key, query: { status } })).json<{
        data: DeliveryJson[];
      }>().data;
    assert.deepEqual(
      (await byStatus('failed')).map((d) => d.id),
      [failed.id],
    );
    assert.deepEqual(await byStatus('pending'), []);
    // Nothing more, however long one waits.
    time.advance(86_400_000);
    await runner.drain();
    assert.equal(r.verified.length, 3);
    // Back to the receiver's time: its library refuses timestamps more than 5 minutes off.
    time.advance(-86_400_000);

    status = 204;
    const retry = await call(ctx, 'POST', `/v1/webhook_endpoints/${id}/deliveries/${failed.id}/retry`, {
      key: me.key,
    });
    assert.equal(retry.statusCode, 202, retry.body);
    await runner.drain();
    assert.equal(r.verified.length, 4);
    assert.equal(r.verified[3]?.headers['webhook-id'], failed.event_id);
    const done = await onlyDelivery(ctx, me, id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, 4);
    assert.equal(done.response_status, 204);
    await retire(me, id);
  });
});

describe('webhook endpoints: disabled, and secrets rotated', () => {
  test('disabled: no delivery for events meanwhile; a pending retry waits until it is enabled', async () => {
    const secrets: string[] = [];
    let answers = 0;
    const r = await receiver(secrets, (_req, res) => {
      answers += 1;
      res.writeHead(answers === 1 ? 500 : 204).end();
    });
    const { me, id } = await endpointFor(r.url(), secrets);
    const patch = async (enabled: boolean) => {
      const res = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${id}`, { key: me.key, body: { enabled } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ enabled: boolean }>().enabled, enabled);
    };

    await patch(false);
    const test409 = await call(ctx, 'POST', `/v1/webhook_endpoints/${id}/test`, { key: me.key });
    assert.equal(test409.statusCode, 409, test409.body);
    await newGallery(ctx, me, { address: 'While disabled' });
    await runner.drain();
    assert.deepEqual(await listDeliveries(ctx, me, id), []);
    assert.equal(r.received.length, 0);

    await patch(true);
    const gallery = await newGallery(ctx, me, { address: 'While enabled' });
    await runner.drain();
    const first = await onlyDelivery(ctx, me, id);
    assertWaiting(first, 1, RETRY[0] as number);

    await patch(false);
    time.advance((RETRY[0] as number) * 1000);
    await runner.drain();
    assert.equal(r.received.length, 1);
    const waiting = await onlyDelivery(ctx, me, id);
    assert.equal(waiting.status, 'pending');
    assert.equal(waiting.attempts, 1);

    await patch(true);
    await runner.drain();
    assert.equal(r.verified.length, 2);
    const done = await onlyDelivery(ctx, me, id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, 2);
    // Only the event of the enabled time was ever sent.
    for (const v of r.verified) assert.equal(v.event.data.object.id, gallery.id);
    await retire(me, id);
  });

  test('rotate_secret: for 24 h both secrets sign, either verifies; then only the new one', async () => {
    const held: string[] = [];
    const r = await receiver(held);
    const { me, id, secret: old } = await endpointFor(r.url(), held);
    const rotated = await call(ctx, 'POST', `/v1/webhook_endpoints/${id}/rotate_secret`, { key: me.key });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const fresh = rotated.json<{ secret: string }>().secret;
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, old);
    held.push(fresh);

    await newGallery(ctx, me);
    await runner.drain();
    const [both] = r.verified;
    assert.ok(both);
    assert.equal(String(both.headers['webhook-signature']).split(' ').length, 2);
    // A receiver holding either secret verifies the delivery.
    assert.deepEqual(both.verifiedBy.sort(), [old, fresh].sort());

    // A day later (and a second): the old secret no longer signs. The receiver's library checks
    // the timestamp against its own clock, so this one is checked by signing it again here.
    time.advance(24 * 3_600_000 + 1000);
    const body: string[] = [];
    const plain = await startReceiver((_req, res, text) => {
      body.push(text);
      res.writeHead(204).end();
    });
    closing.push(plain);
    const patched = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${id}`, {
      key: me.key,
      body: { url: plain.url() },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    await newGallery(ctx, me);
    await runner.drain();
    const [request] = plain.received;
    assert.ok(request);
    const signature = String(request.headers['webhook-signature']);
    const msgId = String(request.headers['webhook-id']);
    const at = new Date(Number(request.headers['webhook-timestamp']) * 1000);
    assert.equal(signature, new Webhook(fresh).sign(msgId, at, request.body));
    assert.notEqual(signature, new Webhook(old).sign(msgId, at, request.body));
    time.advance(-(24 * 3_600_000 + 1000));
    await retire(me, id);
  });
});
