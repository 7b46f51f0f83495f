// Rate limits shared through Redis (REDIS_URL): two app instances on one database and one Redis
// count into the same buckets, per key and per address; the keys live under the prefix with a
// TTL; and with Redis unreachable each node keeps limiting on its own, saying so once.
import assert from 'node:assert/strict';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../app.ts';
import { closeDeps, createDeps, type Deps } from '../deps.ts';
import { WINDOW_MS } from './rate-limit-store.ts';
import type { App } from './types.ts';
import {
  createAccount,
  createTestContext,
  expectError,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import {
  TEST_REDIS_URL,
  redisNamespace,
  redisUnavailable,
  type RedisNamespace,
} from '../../test/support/redis-helpers.ts';
import { clockOf } from '../lib/clock.ts';

const skip = await redisUnavailable();
const LIMIT = 10;
const ADDRESS_LIMIT = 4;

let redis: RedisNamespace;
let ctx: TestContext;
let account: TestAccount;
let second: { app: App; deps: Deps };

/** Waits for a new window when the current one (on Redis's clock) has under 15 s left. */
async function roomInWindow(): Promise<void> {
  const [seconds, micros] = await redis.client.time();
  const into = (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)) % WINDOW_MS;
  if (into > WINDOW_MS - 15_000) await sleep(WINDOW_MS - into + 200);
}

const get = (app: App, key: string | null, ip = '127.0.0.1') =>
  app.inject({
    method: 'GET',
    url: '/v1/listings',
    remoteAddress: ip,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });

describe('rate limits in Redis', { skip }, () => {
  before(async () => {
    redis = redisNamespace('rate-limit');
    ctx = await createTestContext({
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redis.prefix,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RATE_LIMIT_ADDRESS_PER_MINUTE: String(ADDRESS_LIMIT),
    });
    account = await createAccount(ctx);
    // A second node: its own connections to the same database and the same Redis.
    const deps = createDeps(ctx.config);
    second = { deps, app: (await buildApp(deps, { logStream: new PassThrough() })).app };
    await second.app.ready();
  });
  after(async () => {
    await second.app.close();
    await closeDeps(second.deps);
    await ctx.close();
    await redis.drop();
  });

  test('two nodes share each key’s budget: exactly the limit passes, then 429 on both', async () => {
    assert.equal(ctx.deps.rateLimits.kind, 'redis');
    await roomInWindow();
    const nodes = [ctx.app, second.app];
    const answers = [];
    for (let i = 0; i < LIMIT + 4; i += 1) answers.push(await get(nodes[i % 2]!, account.key));
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [...Array<number>(LIMIT).fill(200), 429, 429, 429, 429],
    );
    assert.deepEqual(
      answers.map((r) => r.headers['ratelimit-remaining']),
      [...Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)), '0', '0', '0', '0'],
    );
    for (const res of answers.slice(LIMIT)) {
      expectError(res, 429, 'rate_limited');
      assert.equal(res.headers['retry-after'], res.headers['ratelimit-reset']);
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    }
  });

  test('requests without a valid key share the address budget across nodes', async () => {
    await roomInWindow();
    const ip = '192.0.2.44';
    const statuses = [];
    for (let i = 0; i < ADDRESS_LIMIT + 2; i += 1) {
      statuses.push(
        (await get([ctx.app, second.app][i % 2]!, 'lbx_wrong0000000000000000000000000000000', ip)).statusCode,
      );
    }
    assert.deepEqual(statuses, [...Array<number>(ADDRESS_LIMIT).fill(401), 429, 429]);
  });

  test('counters are namespaced under the prefix and expire on their own', async () => {
    const keys = await redis.keys();
    assert.ok(keys.length >= 2, keys.join(', '));
    for (const key of keys) {
      assert.ok(key.startsWith(`${redis.prefix}rl:{`), key);
      const ttl = await redis.client.pttl(key);
      assert.ok(ttl > 0 && ttl <= 2 * WINDOW_MS, `${key} ttl ${ttl}`);
    }
    assert.ok(keys.some((k) => k.includes(`{k:${account.keyId}}`)));
    assert.ok(keys.some((k) => k.includes('{a:192.0.2.44}')));
  });
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('with Redis unreachable', () => {
  test('each node keeps limiting on its own; the outage is logged once, without the URL', async () => {
    const port = await closedPort();
    const start = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 10_000;
    const down = await createTestContext(
      { REDIS_URL: `redis://:secretpw@127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '3' },
      { clock: clockOf(() => start) },
    );
    try {
      const owner = await createAccount(down);
      const statuses = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await get(down.app, owner.key)).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      const warnings = down
        .logs()
        .split('\n')
        .filter((l) => l.includes('Redis unreachable'));
      assert.equal(warnings.length, 1, down.logs());
      assert.ok(!down.logs().includes('secretpw'));
    } finally {
      await down.close();
    }
  });
});
