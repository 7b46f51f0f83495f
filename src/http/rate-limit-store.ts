// Counters behind the rate limits (docs/decisions/0004): fixed one-minute windows aligned to the
// clock, one counter per bucket and window. In this process by default; in Redis when REDIS_URL
// is set, so every node shares them.
import { Redis } from 'ioredis';
import type { Log } from '../lib/log.ts';

export const WINDOW_MS = 60_000;

/** What one request did to its bucket: the count in this window so far, and when the window ends. */
export interface Hit {
  count: number;
  resetMs: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** Counts one request against `bucket`. Never rejects: a store fault falls back (see Redis). */
  hit(bucket: string, nowMs: number): Hit | Promise<Hit>;
  /** Resolves once the store can count (Redis: connected), or after `timeoutMs` regardless. */
  ready(timeoutMs: number): Promise<void>;
  /** Where faults and recoveries are reported (the app's logger, once it exists). */
  attachLog(log: Log): void;
  close(): Promise<void>;
}

/**
 * At most this many address buckets are tracked in one window: enough for every address of a busy
 * minute (~10 MB). Key buckets have their own map, bounded by the number of real keys (only a
 * valid key is counted by key), so a flood of addresses can never crowd a key out.
 */
const MAX_ADDRESS_BUCKETS = 100_000;
/**
 * Where the addresses first seen once the address map is full are counted, together. Never let
 * through uncounted: ~100,000 IPv6 /64s (one /47) would otherwise switch the per-address limit,
 * key guessing included, off for the rest of the minute. While the map is full, such newcomers
 * share one budget; the addresses already tracked keep theirs.
 */
const OVERFLOW_BUCKET = 'a:overflow';

const isKeyBucket = (bucket: string): boolean => bucket.startsWith('k:');

export function createMemoryStore(options: { maxAddressBuckets?: number } = {}): RateLimitStore {
  const maxAddresses = options.maxAddressBuckets ?? MAX_ADDRESS_BUCKETS;
  let window = -1;
  const keys = new Map<string, number>();
  const addresses = new Map<string, number>();
  return {
    kind: 'memory',
    hit(bucket, nowMs) {
      const current = Math.floor(nowMs / WINDOW_MS);
      // Every counter belongs to the window that just ended: dropping them all at once keeps
      // memory bounded without a timer or a sweep per key.
      if (current !== window) {
        window = current;
        keys.clear();
        addresses.clear();
      }
      const counts = isKeyBucket(bucket) ? keys : addresses;
      // The overflow bucket is one more entry than the cap: it is always counted.
      const counted = counts === keys || counts.has(bucket) || counts.size < maxAddresses ? bucket : OVERFLOW_BUCKET;
      const count = (counts.get(counted) ?? 0) + 1;
      counts.set(counted, count);
      return { count, resetMs: (current + 1) * WINDOW_MS - nowMs };
    },
    ready: () => Promise.resolve(),
    attachLog: () => undefined,
    close: () => Promise.resolve(),
  };
}

/**
 * One round trip: INCR the bucket's counter for the current window, named by Redis's own clock
 * (so nodes with skewed clocks still share a window), and give it a TTL on first use. The
 * window number follows a hash tag, so a Redis Cluster keeps every key of a bucket on one slot.
 */
const HIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local size = tonumber(ARGV[1])
local window = math.floor(now / size)
local key = KEYS[1] .. ':' .. window
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, size * 2) end
return {count, (window + 1) * size - now}
`;

interface ScriptedRedis extends Redis {
  lightboxRateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
}

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key: `${prefix}rl:{bucket}:window`. */
  prefix: string;
  /** A command slower than this counts as a fault (the request is not held up by Redis). */
  commandTimeoutMs?: number;
}

/**
 * Fails open to this node's own counters: while Redis is unreachable or slow, every node keeps
 * limiting on its own (each allows up to the limit, so the cluster allows up to N times it)
 * instead of refusing traffic or letting everything through. Faults and the recovery are logged
 * once each, not once a request.
 */
export function createRedisStore(options: RedisStoreOptions): RateLimitStore {
  const redis = new Redis(options.url, {
    // No queue while disconnected: a request must not wait for a reconnect to be counted.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 250,
    connectTimeout: 2000,
    // Reconnect forever, backing off to 2 s: the limits become shared again once Redis is back.
    retryStrategy: (times: number) => Math.min(times * 100, 2000),
  }) as ScriptedRedis;
  redis.defineCommand('lightboxRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const fallback = createMemoryStore();
  let log: Log | undefined;
  let failing = false;
  let closed = false;

  const fail = (err: unknown): void => {
    if (failing || closed) return;
    failing = true;
    // The message only: the error may carry the URL, and the URL a password.
    const reason = err instanceof Error ? err.message.replace(/rediss?:\/\/\S*/g, '[redis url]') : 'unknown';
    log?.warn({ reason }, 'rate limits: Redis unreachable, counting on this node until it is back');
  };
  redis.on('error', fail);
  redis.on('ready', () => {
    if (!failing) return;
    failing = false;
    log?.info({}, 'rate limits: Redis is back, limits are shared again');
  });

  return {
    kind: 'redis',
    async hit(bucket, nowMs) {
      if (redis.status !== 'ready') {
        fail(new Error(`connection ${redis.status}`));
        return fallback.hit(bucket, nowMs);
      }
      try {
        const [count, resetMs] = await redis.lightboxRateLimitHit(`${options.prefix}rl:{${bucket}}`, WINDOW_MS);
        return { count, resetMs };
      } catch (err) {
        fail(err);
        return fallback.hit(bucket, nowMs);
      }
    },
    ready(timeoutMs) {
      if (redis.status === 'ready') return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        redis.once('ready', done);
      });
    },
    attachLog(next) {
      log = next;
      if (failing) next.warn({}, 'rate limits: Redis unreachable, counting on this node until it is back');
    },
    async close() {
      closed = true;
      if (redis.status === 'end') return;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
