// The `media.checksum` job: the CRC-32 of a file uploaded before uploads recorded it (migration
// 0008 queues one per such media). The gallery's ZIP names each file's CRC-32 before its bytes,
// so it waits for these. Read as a stream: nothing is held in memory.
import { crc32 } from 'node:zlib';
import type { Deps } from '../../deps.ts';
import type { Log } from '../../lib/log.ts';
import { StorageNotFoundError } from '../../storage/storage.ts';
import { finishJob, retryJob, withJobOutcome, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import * as repo from './media.repository.ts';

const LEASE_MS = 30 * 60_000;
const RETRY_MS = 5 * 60_000;

export function checksumHandler({ db, clock, storage }: Pick<Deps, 'db' | 'clock' | 'storage'>, log: Log): JobHandler {
  async function run(job: ClaimedJob): Promise<void> {
    const row = await repo.findMediaById(db.kysely, job.subject_id);
    if (row === undefined || row.crc32 !== null) {
      await finishJob(db.kysely, job);
      return;
    }
    let crc = 0;
    let size = 0;
    try {
      for await (const chunk of await storage.get(row.storage_key)) {
        const bytes = chunk as Buffer;
        crc = crc32(bytes, crc);
        size += bytes.length;
      }
    } catch (err) {
      if (err instanceof StorageNotFoundError) {
        // Missing bytes are the doctor's to report; there is nothing to checksum.
        log.warn({ media_id: row.id }, 'no stored bytes to checksum');
        await finishJob(db.kysely, job);
        return;
      }
      const reason = err instanceof Error ? err.message : String(err);
      await retryJob(db.kysely, job, clock.iso(RETRY_MS), reason.slice(0, 500), clock.iso());
      return;
    }
    if (size !== row.size) {
      log.warn({ media_id: row.id, stored: size, recorded: row.size }, 'stored bytes differ in size from the record');
    }
    await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) => repo.setCrc32(trx, row.id, crc),
    );
  }
  return {
    kind: 'media.checksum',
    concurrency: 1,
    batch: 1,
    leaseMs: LEASE_MS,
    startMarginMs: 0,
    run,
    faultDelayMs: () => RETRY_MS,
  };
}
