// Removes stored bytes that no media row owns: those of deleted media and galleries (due at
// once), and those of uploads that failed or whose process died (due when their lease ends).
// Every object in storage is accounted for by a media row or a cleanup row (decisions/0002), so
// a crash leaves at worst a due cleanup row, which the next purge acts on; the only exception is
// a batch a purge has claimed and not yet deleted, which the orphan sweep at the next start finds.
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import { StorageNotFoundError, type MediaStorage } from '../../storage/storage.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import * as repo from './media.repository.ts';
import * as uploads from '../uploads/uploads.repository.ts';
import type { Log } from '../../lib/log.ts';

/** Keys claimed, listed or checked per statement (well inside every driver's parameter limit). */
const BATCH = 200;
/** Storage deletes in flight at once (S3 round trips dominate; the local disk does not mind). */
const DELETE_CONCURRENCY = 8;
/**
 * A delete of at most this many keys purges them before the request answers. More (a large
 * gallery) are handed to the background job, so the request answers at once.
 */
const INLINE_PURGE_MAX = 200;
const RETRY_AFTER_MS = 60_000;

/** What `lightbox doctor` finds when it compares storage with the ledger. */
export interface StorageAudit {
  /** Stored objects that no media row and no cleanup row owns (the sweep removes them). */
  unowned: string[];
  /** Media rows whose bytes are not in storage (nothing can restore them). */
  missing: repo.MediaKeyRow[];
  /** Variant rows whose bytes are not in storage (a remake restores them: variants.upkeep.ts). */
  missingVariants: repo.MediaKeyRow[];
}

export type MediaCleanup = ReturnType<typeof createMediaCleanup>;

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export function createMediaCleanup({ db, clock, storage }: Pick<Deps, 'db' | 'clock'> & { storage: MediaStorage }) {
  let wakeWorker: (() => void) | undefined;

  /** Deletes claimed objects; those storage refuses get their row back, due again in a minute. */
  async function deleteClaimed(keys: string[], log?: Log): Promise<number> {
    const failed: string[] = [];
    await eachLimited(keys, DELETE_CONCURRENCY, async (key) => {
      try {
        await storage.delete(key);
      } catch (err) {
        log?.warn({ err, storage_key: key }, 'could not delete stored media; will retry');
        failed.push(key);
      }
    });
    await repo.scheduleCleanup(db.kysely, failed, clock.iso(RETRY_AFTER_MS), clock.iso());
    return keys.length - failed.length;
  }

  /** Whether `key` is in storage now (for re-checking what a listing suggested). */
  async function isStored(key: string): Promise<boolean> {
    try {
      (await storage.get(key)).destroy();
      return true;
    } catch (err) {
      if (err instanceof StorageNotFoundError) return false;
      throw err;
    }
  }

  const cleanup = {
    /**
     * In the caller's transaction, which deletes the gallery: the bytes of all its media are to
     * go as soon as it commits. Returns their keys, for afterDelete() once it has committed.
     */
    async scheduleGallery(w: Write, listingId: string): Promise<string[]> {
      // The write holds the gallery's lock (`lock: { listing }`) before its media are read: an
      // upload commits through that row, so every upload that committed before this point is read
      // below, and every later one finds the gallery gone and takes its bytes back. Read without
      // it, an upload committing in between would lose its media rows to the cascade with no
      // cleanup row for its bytes.
      if (w.listing?.id !== listingId) return [];
      const { trx, accountId, now } = w;
      // Its unfinished resumable uploads go too: their expiry job, due now, removes their bytes
      // (an S3 multipart upload is not an object a cleanup row can name).
      const unfinished = await uploads.unfinishedOfGallery(trx, accountId, listingId);
      w.enqueue(...unfinished.map((u) => ({ kind: 'upload.expire' as const, accountId, subjectId: u.id, runAt: now })));
      return repo.scheduleGalleryCleanup(trx, accountId, listingId, clock.iso(), clock.iso());
    },

    /**
     * In the caller's transaction, which deletes every row of the account's data (test data's
     * deletion, docs/api.md §20, holding the account's row locked): the bytes of all its media,
     * variants and unfinished uploads are to go as soon as it commits. Returns their keys, for
     * afterDelete() once it has committed.
     */
    async scheduleAccount(w: Write): Promise<string[]> {
      return repo.scheduleAccountCleanup(w.trx, w.accountId, clock.iso(), clock.iso());
    },

    /**
     * Before bytes are written (an upload, photo variants): a lease on their keys, due in `ms`, so
     * they are removed unless release() is committed first (a crash mid-write leaves nothing). In
     * the write `w` when given (a resumable upload's row and its lease commit together), else
     * on its own.
     */
    async lease(keys: string[], ms: number, w?: Write): Promise<void> {
      await repo.scheduleCleanup(w?.trx ?? db.kysely, keys, clock.iso(ms), w?.now ?? clock.iso());
    },

    /** A lease from lease() runs on for `ms` from now (the writer is still at work). */
    async extendLease(keys: string[], ms: number): Promise<void> {
      await repo.extendCleanup(db.kysely, keys, clock.iso(ms));
    },

    /**
     * In the write that records their owner: these keys' bytes are kept. Resolves to how many
     * leases it ended: fewer than `keys` means a purge took bytes whose lease ran out. Outside a
     * write (`db`) only for bytes already deleted.
     */
    release(trx: Executor, keys: string[]): Promise<number> {
      return repo.cancelCleanup(trx, keys);
    },

    /** Leased bytes that will not be recorded after all (a failed try): due for removal now. */
    async dueNow(keys: string[]): Promise<void> {
      await repo.extendCleanup(db.kysely, keys, clock.iso());
    },

    /** In the caller's transaction: these keys' bytes are to go as soon as it commits. */
    async scheduleNow(trx: Executor, keys: string[]): Promise<void> {
      await repo.scheduleCleanup(trx, keys, clock.iso(), clock.iso());
    },

    /**
     * After the deleting transaction committed: purges these keys' bytes before returning, or,
     * for more than a request should wait for, wakes the background job to purge them now (in a
     * process without one, purges them here anyway).
     */
    async afterDelete(keys: string[], log?: Log): Promise<void> {
      if (keys.length > INLINE_PURGE_MAX && wakeWorker !== undefined) {
        wakeWorker();
        return;
      }
      await cleanup.purge(keys, log);
    },

    /**
     * The serve process's cleanup job registers here to be woken by large deletions (src/jobs.ts).
     * Returns the function that unregisters it.
     */
    attachWorker(wake: () => void): () => void {
      wakeWorker = wake;
      return () => {
        if (wakeWorker === wake) wakeWorker = undefined;
      };
    },

    /** Deletes these keys' bytes now, if their cleanup rows are due. */
    async purge(keys: string[], log?: Log): Promise<number> {
      let purged = 0;
      for (let i = 0; i < keys.length; i += BATCH) {
        const claimed = await repo.claimCleanup(db.kysely, keys.slice(i, i + BATCH), clock.iso());
        purged += await deleteClaimed(claimed, log);
      }
      return purged;
    },

    /** Acts on every due cleanup row. */
    async purgeDue(log?: Log): Promise<number> {
      let purged = 0;
      for (;;) {
        const due = await repo.dueCleanup(db.kysely, clock.iso(), BATCH);
        if (due.length === 0) return purged;
        const claimed = await repo.claimCleanup(db.kysely, due, clock.iso());
        // Another purge took them all: it is working through the rest too.
        if (claimed.length === 0) return purged;
        purged += await deleteClaimed(claimed, log);
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

    /**
     * Compares storage with the ledger (`lightbox doctor`): objects no row owns, and media rows
     * whose object is not stored. Holds every stored key in memory (about 100 bytes each). What a
     * listing suggests is checked again before it is reported, so uploads and deletions running
     * meanwhile are not reported; an object a purge is deleting at that moment may be.
     */
    async audit(): Promise<StorageAudit> {
      const stored = new Set<string>();
      const maybeUnowned: string[] = [];
      let batch: string[] = [];
      const flush = async (): Promise<void> => {
        const known = await repo.knownKeys(db.kysely, batch);
        maybeUnowned.push(...batch.filter((key) => !known.has(key)));
        batch = [];
      };
      for await (const object of storage.list('')) {
        stored.add(object.key);
        batch.push(object.key);
        if (batch.length >= BATCH) await flush();
      }
      await flush();

      const maybeMissing: repo.MediaKeyRow[] = [];
      let after = '';
      for (;;) {
        const page = await repo.mediaKeysPage(db.kysely, after, 1000);
        const last = page.at(-1);
        if (last === undefined) break;
        maybeMissing.push(...page.filter((row) => !stored.has(row.storage_key)));
        after = last.storage_key;
      }

      const unowned: string[] = [];
      for (let i = 0; i < maybeUnowned.length; i += BATCH) {
        const slice = maybeUnowned.slice(i, i + BATCH);
        // A purge that had claimed it (so no row owned it) has deleted it by now.
        const known = await repo.knownKeys(db.kysely, slice);
        for (const key of slice) {
          if (!known.has(key) && (await isStored(key))) unowned.push(key);
        }
      }
      const missing: repo.MediaKeyRow[] = [];
      for (let i = 0; i < maybeMissing.length; i += BATCH) {
        const slice = maybeMissing.slice(i, i + BATCH);
        // A media row committed after the listing passed its key, or deleted since, is fine.
        const still = await repo.mediaKeysStill(
          db.kysely,
          slice.map((row) => row.storage_key),
        );
        for (const row of slice) {
          if (still.has(row.storage_key) && !(await isStored(row.storage_key))) missing.push(row);
        }
      }
      return {
        unowned,
        missing: missing.filter((row) => row.variant === null),
        missingVariants: missing.filter((row) => row.variant !== null),
      };
    },
  };
  return cleanup;
}
