// The only wiring: creates the long-lived resources once (database, media storage, mailer, clock,
// rate-limit counters, the measure of how busy the node is).
import type { Config } from './config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createForeground, type Foreground } from './lib/foreground.ts';
import { openDatabase, type Db } from './db/database.ts';
import { createMemoryStore, createRedisStore, type RateLimitStore } from './http/rate-limit-store.ts';
import { createMailer } from './mail/index.ts';
import { countedMailer, countedStorage, createMetrics, type Metrics } from './mechanisms/metrics/metrics.ts';
import { queueStats } from './mechanisms/queue/queue.repository.ts';
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
  /** This process's Prometheus series (src/mechanisms/metrics/); the mailer and storage count into it. */
  readonly metrics: Metrics;
}

export function createDeps(config: Config, overrides: Partial<Omit<Deps, 'config'>> = {}): Deps {
  const clock = overrides.clock ?? systemClock;
  const db = overrides.db ?? openDatabase(config.database);
  const metrics = overrides.metrics ?? createMetrics(clock);
  metrics.readQueueWith((now) => queueStats(db.kysely, now));
  return {
    config,
    db,
    clock,
    metrics,
    storage: countedStorage(overrides.storage ?? createStorage(config.media.storage), metrics),
    mailer: countedMailer(overrides.mailer ?? createMailer(config), metrics),
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
