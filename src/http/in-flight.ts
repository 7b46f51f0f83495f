// Requests in progress at once, per API key and per client address, on this node. The rate limit
// counts requests a minute; it cannot see a client that opens a few hundred requests and then
// sends their bodies slowly, or never, holding a connection (and a file descriptor) each until
// every other client, /healthz included, is refused at the socket. Past its cap a client's next
// request is refused at once (429, Retry-After), its body unread and its connection closed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { hasBody } from './error-handler.ts';
import { addressBucket } from './rate-limit.ts';

export interface InFlightLimiter {
  /** Holds one of the key's places until the response is done; 429 when none is free. */
  holdKey(keyId: string, request: FastifyRequest, reply: FastifyReply): void;
  /** The same for the client's address (its IPv6 /64), whatever the key. */
  holdAddress(request: FastifyRequest, reply: FastifyReply): void;
  /** Requests now held by a bucket (for tests and diagnostics). */
  held(bucket: string): number;
}

export function createInFlightLimiter(config: Pick<HttpConfig, 'maxInFlightPerKey' | 'maxInFlightPerAddress'>) {
  const counts = new Map<string, number>();

  const release = (bucket: string): void => {
    const n = (counts.get(bucket) ?? 1) - 1;
    if (n <= 0) counts.delete(bucket);
    else counts.set(bucket, n);
  };

  function hold(bucket: string, limit: number, who: string, request: FastifyRequest, reply: FastifyReply): void {
    const n = counts.get(bucket) ?? 0;
    if (n >= limit) {
      throw new AppError(
        'rate_limited',
        `Too many requests in progress for this ${who} (at most ${limit} at once); retry when one has finished`,
        undefined,
        { 'retry-after': '1', ...(hasBody(request) ? { connection: 'close' } : {}) },
      );
    }
    counts.set(bucket, n + 1);
    // 'close' comes once the response is done, or when the connection goes first.
    reply.raw.once('close', () => release(bucket));
  }

  const limiter: InFlightLimiter = {
    holdKey: (keyId, request, reply) => hold(`k:${keyId}`, config.maxInFlightPerKey, 'API key', request, reply),
    holdAddress: (request, reply) =>
      hold(addressBucket(request.ip), config.maxInFlightPerAddress, 'client address', request, reply),
    held: (bucket) => counts.get(bucket) ?? 0,
  };
  return limiter;
}
