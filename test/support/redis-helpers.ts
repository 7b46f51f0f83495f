// Redis for the suites that share rate limits: 127.0.0.1:6379 (TEST_REDIS_URL to change it), a
// key prefix of its own per test file, and every key under it deleted afterwards.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Why Redis tests cannot run here, or undefined when they can. In CI they must: it fails instead. */
export async function redisUnavailable(): Promise<string | undefined> {
  const probe = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return undefined;
  } catch (err) {
    const reason = `Redis is not answering at ${TEST_REDIS_URL} (${err instanceof Error ? err.message : String(err)})`;
    if (process.env.CI === 'true') throw new Error(reason, { cause: err });
    return `${reason}: start redis-server to run this suite`;
  } finally {
    probe.disconnect();
  }
}

export interface RedisNamespace {
  prefix: string;
  client: Redis;
  /** The keys written under the prefix. */
  keys(): Promise<string[]>;
  /** Deletes every key under the prefix and disconnects. */
  drop(): Promise<void>;
}

export function redisNamespace(name: string): RedisNamespace {
  const prefix = `lbxtest:${name}:${randomBytes(4).toString('hex')}:`;
  const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found;
  };
  return {
    prefix,
    client,
    keys,
    async drop() {
      const all = await keys();
      if (all.length > 0) await client.del(...all);
      await client.quit();
    },
  };
}
