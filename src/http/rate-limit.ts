// Rate limits (docs/api.md §9, docs/decisions/0004): every /v1 request is counted, by its
// API key when it carries a valid one, otherwise by its client address, so keys cannot be
// guessed at speed. Each response says where the caller stands, in the RateLimit-Limit,
// -Remaining and -Reset fields and in the IETF draft's RateLimit and RateLimit-Policy fields.
import type { FastifyReply } from 'fastify';
import { addressGroup, isIPv6Group } from '../lib/client-address.ts';
import type { LimitsConfig } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../errors.ts';
import { WINDOW_MS, type Hit, type RateLimitStore } from './rate-limit-store.ts';

interface Policy {
  /** The draft's policy name. */
  readonly name: string;
  readonly limit: number;
  readonly limitText: string;
  /** The RateLimit-Policy value: the same on every response under this policy. */
  readonly header: string;
}

const policy = (name: string, limit: number): Policy => ({
  name,
  limit,
  limitText: String(limit),
  header: `"${name}";q=${limit};w=${WINDOW_MS / 1000}`,
});

/** The rate-limit bucket of a client address: its group (an IPv6 client's whole /64). */
export function addressBucket(ip: string): string {
  const group = addressGroup(ip);
  return `${isIPv6Group(group) ? 'a6' : 'a'}:${group}`;
}

/**
 * Each charge sets the fields and throws 429 over the limit; it returns a promise only when the
 * store answers asynchronously (Redis), so the in-memory path costs no extra turn of the loop.
 */
export interface RateLimiter {
  /** Counts a request made with a valid key. */
  chargeKey(keyId: string, reply: FastifyReply): Promise<void> | undefined;
  /** Counts a request without a valid key against its client address. */
  chargeAddress(ip: string, reply: FastifyReply): Promise<void> | undefined;
  /** Counts a request to the client gallery (/g) against its client address (its own budget). */
  chargeGallery(ip: string, reply: FastifyReply): Promise<void> | undefined;
}

export function createRateLimiter(store: RateLimitStore, limits: LimitsConfig, clock: Clock): RateLimiter {
  const perKey = policy('default', limits.perKeyPerMinute);
  const perAddress = policy('anonymous', limits.perAddressPerMinute);
  const perGalleryVisitor = policy('gallery', limits.galleryPerAddressPerMinute);

  function apply(hit: Hit, applied: Policy, reply: FastifyReply): undefined {
    const remaining = hit.count >= applied.limit ? 0 : applied.limit - hit.count;
    // Whole seconds, rounded up: a client that waits this long is in the next window.
    const reset = Math.max(1, Math.ceil(hit.resetMs / 1000));
    void reply
      .header('ratelimit-limit', applied.limitText)
      .header('ratelimit-remaining', remaining)
      .header('ratelimit-reset', reset)
      .header('ratelimit-policy', applied.header)
      .header('ratelimit', `"${applied.name}";r=${remaining};t=${reset}`);
    if (hit.count > applied.limit) {
      throw new AppError(
        'rate_limited',
        `Rate limit of ${applied.limit} requests a minute exceeded; retry in ${reset} s`,
        undefined,
        { 'retry-after': String(reset) },
      );
    }
    return undefined;
  }

  function charge(bucket: string, applied: Policy, reply: FastifyReply): Promise<void> | undefined {
    const hit = store.hit(bucket, clock.now());
    return hit instanceof Promise ? hit.then((h) => apply(h, applied, reply)) : apply(hit, applied, reply);
  }

  return {
    chargeKey: (keyId, reply) => charge(`k:${keyId}`, perKey, reply),
    chargeAddress: (ip, reply) => charge(addressBucket(ip), perAddress, reply),
    chargeGallery: (ip, reply) => charge(`g:${addressBucket(ip)}`, perGalleryVisitor, reply),
  };
}
