// The only wiring: creates the long-lived resources once (database, media storage, mailer, clock,
// rate-limit counters, the measure of how busy the node is).
import type { Config } from './config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createForeground, type Foreground } from './lib/foreground.ts';
import { openDatabase, type Db } from './db/database.ts';
import { createMemoryStore, createRedisStore, type RateLimitStore } from './http/rate-limit-store.ts';
import { createMailer } from './mail/index.ts';
import type { Mailer } from './mail/mailer.ts';
import { createStorage } from './storage/index.ts';
import type { MediaStorage } from './storage/storage.ts';
import { systemResolver, type Resolver } from './outbound/address.ts';

export interface Deps {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly storage: MediaStorage;
  readonly mailer: Mailer;
  /** In this process, or in Redis (shared by every node) when REDIS_URL is set. */
  readonly rateLimits: RateLimitStore;
  /** How webhook hosts are resolved (the system's DNS; tests pass a resolver they control). */
  readonly resolve: Resolver;
  /** Whether this node is busy answering requests (background work gives way: decisions/0015). */
  readonly foreground: Foreground;
}

export function createDeps(config: Config, overrides: Partial<Omit<Deps, 'config'>> = {}): Deps {
  return {
    config,
    db: overrides.db ?? openDatabase(config.database),
    clock: overrides.clock ?? systemClock,
    storage: overrides.storage ?? createStorage(config.media.storage),
    mailer: overrides.mailer ?? createMailer(config),
    resolve: overrides.resolve ?? systemResolver,
    foreground: overrides.foreground ?? createForeground(),
    rateLimits:
      overrides.rateLimits ??
      (config.limits.redisUrl === undefined
        ? createMemoryStore()
        : createRedisStore({ url: config.limits.redisUrl, prefix: config.limits.redisKeyPrefix })),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  deps.storage.close?.();
  deps.mailer.close();
  await deps.rateLimits.close();
  await deps.db.destroy();
}
