// Removes stored bytes that no media row owns: those of deleted media and galleries (due at
// once), and those of uploads that failed or whose process died (due when their lease ends).
// Every object in storage is accounted for by a media row or a cleanup row at all times, so a
// crash anywhere leaves at worst a due cleanup row, which the next sweep acts on.
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import * as repo from './media.repository.ts';
import type { Log } from '../../lib/log.ts';

const BATCH = 200;
const RETRY_AFTER_MS = 60_000;

export type MediaCleanup = ReturnType<typeof createMediaCleanup>;

export function createMediaCleanup({ db, clock, storage }: Pick<Deps, 'db' | 'clock'> & { storage: MediaStorage }) {
  /** Deletes one claimed object; if storage fails, puts its row back to be retried. */
  async function purgeClaimed(key: string, log?: Log): Promise<boolean> {
    try {
      await storage.delete(key);
      return true;
    } catch (err) {
      log?.warn({ err, storage_key: key }, 'could not delete stored media; will retry');
      await repo.scheduleCleanup(db.kysely, [key], clock.iso(RETRY_AFTER_MS), clock.iso());
      return false;
    }
  }

  const cleanup = {
    /**
     * In the caller's transaction, which deletes the gallery: the bytes of all its media are to
     * go as soon as it commits. Returns their keys, for purge() after the commit.
     */
    async scheduleGallery(trx: Executor, accountId: string, listingId: string): Promise<string[]> {
      const keys = await repo.storageKeysOfListing(trx, accountId, listingId);
      await cleanup.scheduleNow(trx, keys);
      return keys;
    },

    /** In the caller's transaction: these keys' bytes are to go as soon as it commits. */
    async scheduleNow(trx: Executor, keys: string[]): Promise<void> {
      await repo.scheduleCleanup(trx, keys, clock.iso(), clock.iso());
    },

    /** Deletes these keys' bytes now, if their cleanup rows are due (after a delete commits). */
    async purge(keys: string[], log?: Log): Promise<void> {
      for (const key of keys) {
        if (await repo.claimCleanup(db.kysely, key, clock.iso())) await purgeClaimed(key, log);
      }
    },

    /** Acts on every due cleanup row. */
    async purgeDue(log?: Log): Promise<number> {
      let purged = 0;
      for (;;) {
        const keys = await repo.dueCleanup(db.kysely, clock.iso(), BATCH);
        if (keys.length === 0) return purged;
        let claimed = 0;
        for (const key of keys) {
          if (!(await repo.claimCleanup(db.kysely, key, clock.iso()))) continue;
          claimed += 1;
          if (await purgeClaimed(key, log)) purged += 1;
        }
        if (claimed === 0) return purged;
      }
    },

    /** Lists storage and deletes objects that no row accounts for (bytes orphaned by a crash). */
    async sweepOrphans(log?: Log): Promise<number> {
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

    async sweep(log?: Log): Promise<{ purged: number; orphans: number }> {
      const purged = await cleanup.purgeDue(log);
      const orphans = await cleanup.sweepOrphans(log);
      // Folders emptied by deletions that ran before storage removed its own (or by a crash).
      await storage.removeEmptyFolders?.();
      return { purged, orphans };
    },
  };
  return cleanup;
}
