// Removes stored bytes that no media row owns: those of deleted media and galleries (due at
// once), and those of uploads that failed or whose process died (due when their lease ends).
// Every object in storage is accounted for by a media row or a cleanup row at all times, so a
// crash anywhere leaves at worst a due cleanup row, which the next sweep acts on.
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import * as repo from './media.repository.ts';

export interface CleanupLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const BATCH = 200;
const RETRY_AFTER_MS = 60_000;

export type MediaCleanup = ReturnType<typeof createMediaCleanup>;

export function createMediaCleanup({ db, clock, storage }: Pick<Deps, 'db' | 'clock'> & { storage: MediaStorage }) {
  const iso = (offsetMs = 0): string => new Date(clock().getTime() + offsetMs).toISOString();

  /** Deletes one claimed object; if storage fails, puts its row back to be retried. */
  async function purgeClaimed(key: string, log?: CleanupLog): Promise<boolean> {
    try {
      await storage.delete(key);
      return true;
    } catch (err) {
      log?.warn({ err, storage_key: key }, 'could not delete stored media; will retry');
      await repo.scheduleCleanup(db.kysely, [key], iso(RETRY_AFTER_MS), iso());
      return false;
    }
  }

  const cleanup = {
    /** In the caller's transaction: these keys' bytes are to go as soon as it commits. */
    async scheduleNow(trx: Executor, keys: string[]): Promise<void> {
      await repo.scheduleCleanup(trx, keys, iso(), iso());
    },

    /** Deletes these keys' bytes now, if their cleanup rows are due (after a delete commits). */
    async purge(keys: string[], log?: CleanupLog): Promise<void> {
      for (const key of keys) {
        if (await repo.claimCleanup(db.kysely, key, iso())) await purgeClaimed(key, log);
      }
    },

    /** Acts on every due cleanup row. */
    async purgeDue(log?: CleanupLog): Promise<number> {
      let purged = 0;
      for (;;) {
        const keys = await repo.dueCleanup(db.kysely, iso(), BATCH);
        if (keys.length === 0) return purged;
        let claimed = 0;
        for (const key of keys) {
          if (!(await repo.claimCleanup(db.kysely, key, iso()))) continue;
          claimed += 1;
          if (await purgeClaimed(key, log)) purged += 1;
        }
        if (claimed === 0) return purged;
      }
    },

    /** Lists storage and deletes objects that no row accounts for (bytes orphaned by a crash). */
    async sweepOrphans(log?: CleanupLog): Promise<number> {
      let removed = 0;
      let batch: string[] = [];
      const flush = async (): Promise<void> => {
        const known = await repo.knownKeys(db.kysely, batch);
        for (const key of batch) {
          if (known.has(key)) continue;
          await storage.delete(key);
          removed += 1;
          log?.info({ storage_key: key }, 'removed stored media that no record owns');
        }
        batch = [];
      };
      for await (const object of storage.list('')) {
        batch.push(object.key);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      return removed;
    },

    async sweep(log?: CleanupLog): Promise<{ purged: number; orphans: number }> {
      const purged = await cleanup.purgeDue(log);
      const orphans = await cleanup.sweepOrphans(log);
      return { purged, orphans };
    },

    /**
     * In the serve process: a full sweep at start, then due rows every `intervalMs` (leases of
     * uploads cut short by a crash fall due within a couple of minutes).
     */
    startBackground(log: CleanupLog, intervalMs = 60_000): () => Promise<void> {
      let running: Promise<unknown> = cleanup.sweep(log).then(
        (r) => {
          if (r.purged + r.orphans > 0) log.info(r, 'media sweep at start-up');
        },
        (err: unknown) => {
          log.warn({ err }, 'media sweep at start-up failed');
        },
      );
      const timer = setInterval(() => {
        running = running.then(() =>
          cleanup.purgeDue(log).catch((err: unknown) => {
            log.warn({ err }, 'media cleanup failed');
          }),
        );
      }, intervalMs);
      timer.unref();
      return async () => {
        clearInterval(timer);
        await running;
      };
    },
  };
  return cleanup;
}
