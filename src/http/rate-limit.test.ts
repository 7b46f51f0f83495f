// Rate limits with the in-memory counters (docs/api.md §9): the fields on every /v1 response,
// errors included; 429 with Retry-After past the limit; a separate budget per key; requests
// without a valid key counted per client address; windows on a clock the test moves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WINDOW_MS, createMemoryStore } from './rate-limit-store.ts';
import type { FastifyReply } from 'fastify';
import type { AppError } from '../errors.ts';
import { addressBucket, createRateLimiter } from './rate-limit.ts';
import {
  call,
  createAccount,
  createKey,
  createTestContext,
  expectError,
  type Response,
  type TestAccount,
  type TestContext,
} from '../../test/support/test-app.ts';
import { fakeClock } from '../../test/support/notification-helpers.ts';
import { clockOf } from '../lib/clock.ts';

const PER_KEY = 5;
const PER_ADDRESS = 3;
// Ten seconds into a window, so a test's requests never straddle two.
const clock = fakeClock(Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 10_000);
let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext(
    { RATE_LIMIT_PER_MINUTE: String(PER_KEY), RATE_LIMIT_ADDRESS_PER_MINUTE: String(PER_ADDRESS) },
    { clock: clock.clock },
  );
  account = await createAccount(ctx);
});
after(() => ctx.close());

/** Every test starts in a fresh window. */
const nextWindow = (): void => clock.set((Math.floor(clock.now() / WINDOW_MS) + 1) * WINDOW_MS + 10_000);

function fields(res: Response) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
    policy: res.headers['ratelimit-policy'],
    state: res.headers.ratelimit,
  };
}

function callFrom(ip: string, method: string, url: string, key: string | null): Promise<Response> {
  return ctx.app.inject({
    method: method as 'GET',
    url,
    remoteAddress: ip,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });
}

describe('per API key', () => {
  test('every response says where the key stands, in both header styles', async () => {
    nextWindow();
    for (let i = 1; i <= PER_KEY; i += 1) {
      const res = await call(ctx, 'GET', '/v1/listings', { key: account.key });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(fields(res), {
        limit: String(PER_KEY),
        remaining: String(PER_KEY - i),
        reset: '50',
        policy: `"default";q=${PER_KEY};w=60`,
        state: `"default";r=${PER_KEY - i};t=50`,
      });
    }
  });

  test('past the limit: 429 rate_limited with Retry-After, in the contract’s error body', async () => {
    nextWindow();
    for (let i = 0; i < PER_KEY; i += 1) await call(ctx, 'GET', '/v1/listings', { key: account.key });
    clock.advance(12_400);
    const res = await call(ctx, 'POST', '/v1/listings', { key: account.key, body: { address: 'Over Road' } });
    const error = expectError(res, 429, 'rate_limited');
    assert.match(error.message, /5 requests a minute/);
    assert.equal(res.headers['retry-after'], '38');
    assert.deepEqual(fields(res), {
      limit: '5',
      remaining: '0',
      reset: '38',
      policy: '"default";q=5;w=60',
      state: '"default";r=0;t=38',
    });
    const created = await call(ctx, 'GET', '/v1/listings', { key: account.key });
    expectError(created, 429, 'rate_limited');
    // The next window starts afresh.
    clock.advance(38_000);
    const fresh = await call(ctx, 'GET', '/v1/listings', { key: account.key });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['ratelimit-remaining'], '4');
    assert.equal(fresh.headers['ratelimit-reset'], '60');
    assert.equal(fresh.json().pagination.total, 0, 'the refused POST created nothing');
  });

  test('errors count and carry the fields too: 400, 403, 404, 405 and unknown paths', async () => {
    nextWindow();
    const readOnly = await createKey(ctx, account.accountId, { scope: 'read_only' });
    const answers = [
      await call(ctx, 'GET', '/v1/listings', { key: readOnly.key, query: { limit: '1000' } }),
      await call(ctx, 'POST', '/v1/listings', { key: readOnly.key, body: { address: 'x' } }),
      await call(ctx, 'GET', '/v1/listings/lst_missing', { key: readOnly.key }),
      await call(ctx, 'PUT', '/v1/listings', { key: readOnly.key }),
      await call(ctx, 'GET', '/v1/nowhere', { key: readOnly.key }),
      await call(ctx, 'GET', '/v1/listings', { key: readOnly.key }),
    ];
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [400, 403, 404, 405, 404, 429],
    );
    assert.deepEqual(
      answers.map((r) => r.headers['ratelimit-remaining']),
      ['4', '3', '2', '1', '0', '0'],
    );
    for (const res of answers) assert.equal(res.headers['ratelimit-policy'], '"default";q=5;w=60');
  });

  test('each key has its own budget; requests with a valid key spend no address budget', async () => {
    nextWindow();
    const second = await createKey(ctx, account.accountId);
    for (let i = 0; i < PER_KEY; i += 1) await call(ctx, 'GET', '/v1/listings', { key: account.key });
    expectError(await call(ctx, 'GET', '/v1/listings', { key: account.key }), 429, 'rate_limited');
    const other = await call(ctx, 'GET', '/v1/listings', { key: second.key });
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['ratelimit-remaining'], '4');
    const anonymous = await call(ctx, 'GET', '/v1/listings');
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.headers['ratelimit-remaining'], String(PER_ADDRESS - 1));
  });
});

describe('per client address, without a valid key', () => {
  test('401s spend the address budget; past it, 429 instead of 401', async () => {
    nextWindow();
    const ip = '203.0.113.7';
    const answers = [
      await callFrom(ip, 'GET', '/v1/listings', null),
      await callFrom(ip, 'GET', '/v1/listings', 'lbx_guess00000000000000000000000000000000'),
      await callFrom(ip, 'GET', '/v1/openapi.json', null),
      await callFrom(ip, 'GET', '/v1/listings', 'lbx_guess11111111111111111111111111111111'),
      await callFrom(ip, 'GET', '/v1/openapi.json', null),
    ];
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [401, 401, 200, 429, 429],
    );
    for (const res of answers) {
      assert.equal(res.headers['ratelimit-policy'], `"anonymous";q=${PER_ADDRESS};w=60`);
      assert.equal(res.headers['ratelimit-limit'], String(PER_ADDRESS));
    }
    expectError(answers[3]!, 429, 'rate_limited');
    assert.equal(answers[3]!.headers['retry-after'], '50');
    assert.equal(answers[0]!.headers['www-authenticate'], 'Bearer');
    // The same address with a valid key is not held back; another address has its own budget.
    assert.equal((await callFrom(ip, 'GET', '/v1/listings', account.key)).statusCode, 200);
    assert.equal((await callFrom('198.51.100.1', 'GET', '/v1/listings', null)).statusCode, 401);
  });

  test('an IPv6 client is one budget for its whole /64', async () => {
    nextWindow();
    const statuses: number[] = [];
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::9', '2001:0db8:0001:0002:1::1']) {
      statuses.push((await callFrom(ip, 'GET', '/v1/listings', null)).statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    assert.equal((await callFrom('2001:db8:1:3::1', 'GET', '/v1/listings', null)).statusCode, 401);
  });

  test('health and docs are not under /v1: not counted, no fields', async () => {
    nextWindow();
    for (let i = 0; i < PER_ADDRESS + 2; i += 1) {
      const res = await call(ctx, 'GET', '/healthz');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
    assert.equal((await call(ctx, 'GET', '/v1/listings')).headers['ratelimit-remaining'], String(PER_ADDRESS - 1));
  });
});

describe('counters', () => {
  test('address buckets: IPv4, IPv4-mapped IPv6, and IPv6 by /64', () => {
    assert.equal(addressBucket('192.0.2.1'), 'a:192.0.2.1');
    assert.equal(addressBucket('::ffff:192.0.2.1'), 'a:192.0.2.1');
    assert.equal(addressBucket('2001:db8::1'), 'a6:2001:db8:0:0::/64');
    assert.equal(addressBucket('2001:0db8:0000:0000:abcd::1'), 'a6:2001:db8:0:0::/64');
    assert.equal(addressBucket('::1'), 'a6:0:0:0:0::/64');
    assert.notEqual(addressBucket('2001:db8:0:1::1'), addressBucket('2001:db8:0:2::1'));
  });

  test('the memory store counts per window and stays bounded', () => {
    const store = createMemoryStore();
    const t0 = 1_000 * WINDOW_MS;
    assert.deepEqual(store.hit('k:a', t0 + 1000), { count: 1, resetMs: 59_000 });
    assert.deepEqual(store.hit('k:a', t0 + 2000), { count: 2, resetMs: 58_000 });
    // The next window drops every counter of the last one.
    assert.deepEqual(store.hit('k:a', t0 + WINDOW_MS), { count: 1, resetMs: 60_000 });
  });

  test('a full address map never lets a bucket go uncounted: newcomers share one overflow budget', () => {
    const store = createMemoryStore({ maxAddressBuckets: 3 });
    const t0 = 2_000 * WINDOW_MS;
    const count = (bucket: string, at = t0): number => (store.hit(bucket, at) as { count: number }).count;
    for (const a of ['a:1', 'a:2', 'a:3']) assert.equal(count(a), 1);
    // Addresses already tracked keep their own counters.
    assert.equal(count('a:1'), 2);
    // New addresses, however many, are counted together (a /47's worth of /64s is one budget).
    assert.equal(count('a:4'), 1);
    assert.equal(count('a6:2001:db8:0:5::/64'), 2);
    assert.equal(count('a:6'), 3);
    assert.equal(count('a:4'), 4);
    // Keys have their own map: a flood of addresses cannot push a key out of being counted.
    for (const k of ['k:x', 'k:y', 'k:z', 'k:w']) assert.equal(count(k), 1);
    assert.equal(count('k:w'), 2);
    // A new window starts every bucket afresh.
    assert.equal(count('a:4', t0 + WINDOW_MS), 1);
    assert.equal(count('a:5', t0 + WINDOW_MS), 1);
  });

  test('through the limiter: past the cap, new addresses are refused together once over the limit', () => {
    const store = createMemoryStore({ maxAddressBuckets: 2 });
    const clock = clockOf(() => 3_000 * WINDOW_MS);
    const limiter = createRateLimiter(
      store,
      {
        perKeyPerMinute: 100,
        perAddressPerMinute: 3,
        galleryPerAddressPerMinute: 300,
        redisUrl: undefined,
        redisKeyPrefix: '',
      },
      clock,
    );
    const headers: Record<string, unknown> = {};
    const reply = {
      header(name: string, value: unknown) {
        headers[name] = value;
        return reply;
      },
    } as unknown as FastifyReply;
    const charge = (ip: string): string => {
      try {
        // The memory store answers at once: no promise to wait for.
        assert.equal(limiter.chargeAddress(ip, reply), undefined);
        return 'ok';
      } catch (err) {
        return (err as AppError).code;
      }
    };
    assert.equal(charge('192.0.2.1'), 'ok');
    assert.equal(charge('192.0.2.2'), 'ok');
    // Each of these is a first request from its address, yet the fourth is over the shared budget.
    const fresh = ['2001:db8:0:1::1', '2001:db8:0:2::1', '2001:db8:0:3::1', '2001:db8:0:4::1'];
    assert.deepEqual(fresh.map(charge), ['ok', 'ok', 'ok', 'rate_limited']);
    assert.equal(headers['ratelimit-remaining'], 0);
    // The addresses tracked before the map filled still have their own budget.
    assert.equal(charge('192.0.2.1'), 'ok');
  });
});

describe('behind a trusted proxy (TRUST_PROXY)', () => {
  test('each client named in X-Forwarded-For has its own budget; an untrusted hop cannot pick one', async () => {
    const behind = await createTestContext(
      { RATE_LIMIT_ADDRESS_PER_MINUTE: '1', TRUST_PROXY: '10.0.0.1' },
      { clock: clock.clock },
    );
    try {
      nextWindow();
      const via = (proxy: string, client: string) =>
        behind.app.inject({
          method: 'GET',
          url: '/v1/listings',
          remoteAddress: proxy,
          headers: { 'x-forwarded-for': client },
        });
      // Two clients through the trusted proxy: one request each within budget.
      assert.equal((await via('10.0.0.1', '198.51.100.1')).statusCode, 401);
      assert.equal((await via('10.0.0.1', '198.51.100.2')).statusCode, 401);
      assert.equal((await via('10.0.0.1', '198.51.100.1')).statusCode, 429);
      // A connection from elsewhere is its own client, whatever it claims.
      assert.equal((await via('203.0.113.9', '198.51.100.3')).statusCode, 401);
      assert.equal((await via('203.0.113.9', '198.51.100.4')).statusCode, 429);
    } finally {
      await behind.close();
    }
  });

  test('without TRUST_PROXY, X-Forwarded-For is ignored', async () => {
    nextWindow();
    const spoof = (client: string) =>
      ctx.app.inject({
        method: 'GET',
        url: '/v1/listings',
        remoteAddress: '203.0.113.50',
        headers: { 'x-forwarded-for': client },
      });
    const statuses: number[] = [];
    for (let i = 0; i <= PER_ADDRESS; i += 1) statuses.push((await spoof(`198.51.100.${String(i + 10)}`)).statusCode);
    assert.deepEqual(statuses, [...Array<number>(PER_ADDRESS).fill(401), 429]);
  });
});
