// One dead endpoint must not delay another account's deliveries (docs/api.md §15: a slow or
// dead endpoint never delays another's, across accounts as within one). Account A has an endpoint
// that never answers and a backlog of events; account B's deliveries, made one at a time while A's
// attempts hang and are retried, arrive without waiting for them. Short timeouts and retries keep it
// quick; receivers are on 127.0.0.1 only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { createAccount, createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { newGallery } from '../../../test/support/notification-helpers.ts';
import { createEndpoint, deliveryRunner, verifyingReceiver } from '../../../test/support/webhooks.ts';
import { blockedConnections, startReceiver, systemLookups } from '../../../test/support/loopback-receivers.ts';

let ctx: TestContext;
/** The dead endpoints' requests, never answered. */
const held: http.ServerResponse[] = [];
const closing: { close(): Promise<void> }[] = [];

before(async () => {
  ctx = await createTestContext({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1',
  });
});

after(async () => {
  for (const res of held) res.destroy();
  for (const c of closing) await c.close();
  await ctx.close();
  assert.deepEqual(systemLookups, []);
  assert.deepEqual(blockedConnections, []);
});

/**
 * Account A has `deadEndpoints` endpoints that never answer and 20 events for each; account B's
 * deliveries, made one at a time meanwhile, must arrive without waiting for A's attempts: half of
 * them within 500 ms and nine in ten within `boundMs`. A delivery that waited behind a hung attempt
 * waits for the rest of its timeout (2 s here): were B's deliveries queued behind A's, about half
 * would take over a second. The worst single one is not the test: on a busy machine one delivery in
 * twenty can take two seconds with no attempt of A's in its way.
 */
async function deadEndpointsDoNotDelay(ctx: TestContext, deadEndpoints: number, boundMs: number): Promise<void> {
  const held: http.ServerResponse[] = [];
  const secrets: string[] = [];
  const fast = await verifyingReceiver(() => secrets);
  closing.push(fast);

  const a = await createAccount(ctx);
  for (let i = 0; i < deadEndpoints; i += 1) {
    const dead = await startReceiver((_req, res) => held.push(res));
    closing.push(dead);
    await createEndpoint(ctx, a, { url: dead.url() });
  }
  for (let i = 0; i < 20; i += 1) await newGallery(ctx, a, { address: `${i} Dead End` });
  const b = await createAccount(ctx);
  const quick = await createEndpoint(ctx, b, { url: fast.url() });
  secrets.push(quick.secret);

  const runner = deliveryRunner(ctx.deps);
  runner.start();
  try {
    // A's attempts are hanging before B's first event.
    for (let i = 0; held.length === 0; i += 1) {
      assert.ok(i < 500, "A's dead endpoint was never tried");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const latencies: number[] = [];
    // Long enough for A's attempts to time out and come back in retry waves.
    const endAt = Date.now() + 5000;
    while (Date.now() < endAt) {
      const before = fast.verified.length;
      const started = performance.now();
      await newGallery(ctx, b, { address: `${latencies.length} Quick Lane` });
      while (fast.verified.length === before) {
        assert.ok(performance.now() - started < 5000, "B's delivery never arrived");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      latencies.push(Math.round(performance.now() - started));
    }
    assert.ok(held.length > 4, `A's endpoint was tried again meanwhile (${held.length} attempts)`);
    const sorted = [...latencies].sort((x, y) => x - y);
    const at = (share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
    assert.ok(at(0.5) < 500 && at(0.9) < boundMs, `B's deliveries took ${latencies.join(', ')} ms`);
  } finally {
    await runner.stop(100);
  }
}

test("a dead endpoint of one account never delays another account's deliveries by more than a second", async () => {
  // Enough dead endpoints to take every slot of the node were each to hold all it may.
  const deadEndpoints = Math.ceil(ctx.config.webhooks.concurrency / ctx.config.webhooks.perEndpoint) + 1;
  await deadEndpointsDoNotDelay(ctx, deadEndpoints, 1000);
});

test("many dead endpoints (twice the node's concurrency) hold no claims: another account still goes within 2 s", async () => {
  // A slow endpoint is left out of claims while its attempts hang, so the claims reach B's
  // deliveries however many dead endpoints A has. Before, each of A's 64 endpoints was handed
  // attempt after attempt and B's deliveries waited behind them (> 5 s).
  const own = await createTestContext({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1',
  });
  try {
    await deadEndpointsDoNotDelay(own, 2 * own.config.webhooks.concurrency, 2000);
  } finally {
    await own.close();
  }
});
