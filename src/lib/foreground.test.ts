// Whether the node is busy with requests (decisions/0015): requests counted by the app, the event
// loop's use sampled while jobs run. The loop is made busy here by spinning it, not by timing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestContext } from '../../test/support/test-app.ts';
import { createForeground, type Foreground } from './foreground.ts';

const SAMPLE_MS = 40;

/** Keeps the event loop busy (synchronously) for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** Lets a few samples pass, spinning the loop in each (or idling), with `perSample` requests each time. */
async function samples(foreground: Foreground, { busyLoop, perSample }: { busyLoop: boolean; perSample: number }) {
  for (let i = 0; i < 4; i += 1) {
    for (let r = 0; r < perSample; r += 1) foreground.request();
    if (busyLoop) spin(SAMPLE_MS * 1.5);
    else await sleep(SAMPLE_MS * 1.5);
    await sleep(1); // the sampler's turn
  }
}

describe('the foreground measure', () => {
  const make = () => createForeground({ sampleMs: SAMPLE_MS, busyUtilisation: 0.8, busyRequestsPerSecond: 100 });

  test('busy while requests arrive and the event loop is taken', async () => {
    const foreground = make();
    foreground.start();
    try {
      await samples(foreground, { busyLoop: true, perSample: 50 });
      assert.equal(foreground.busy(), true);
    } finally {
      foreground.stop();
    }
    assert.equal(foreground.busy(), false, 'stopped: never busy');
  });

  test('not busy when the loop is taken by background work alone, or by a trickle of requests', async () => {
    const foreground = make();
    foreground.start();
    try {
      await samples(foreground, { busyLoop: true, perSample: 0 });
      assert.equal(foreground.busy(), false, 'no requests');
      // 100 requests a second is 4 in a 40 ms sample: one is a poller, not load.
      await samples(foreground, { busyLoop: true, perSample: 1 });
      assert.equal(foreground.busy(), false, 'one request a sample');
    } finally {
      foreground.stop();
    }
  });

  test('not busy when requests arrive but the loop is mostly idle', async () => {
    const foreground = make();
    foreground.start();
    try {
      await samples(foreground, { busyLoop: false, perSample: 50 });
      assert.equal(foreground.busy(), false);
    } finally {
      foreground.stop();
    }
  });

  test('never busy unless started (an API node without jobs samples nothing)', async () => {
    const foreground = make();
    await samples(foreground, { busyLoop: true, perSample: 50 });
    assert.equal(foreground.busy(), false);
  });

  test('the app counts every request, answered or refused', async () => {
    let counted = 0;
    const foreground: Foreground = { ...make(), request: () => (counted += 1) };
    const ctx = await createTestContext({}, { foreground });
    try {
      await ctx.app.inject({ method: 'GET', url: '/healthz' });
      await ctx.app.inject({ method: 'GET', url: '/v1/listings' }); // no key: 401
      await ctx.app.inject({ method: 'GET', url: '/no/such/page' });
      assert.equal(counted, 3);
    } finally {
      await ctx.close();
    }
  });
});
