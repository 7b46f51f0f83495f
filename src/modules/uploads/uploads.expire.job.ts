// The `upload.expire` job (docs/api.md §16): queued with each resumable upload, due when it expires
// (UPLOAD_EXPIRY_HOURS), and again at once when its gallery is deleted. It removes an unfinished
// upload's bytes (the local file, or the S3 multipart upload and its parts) and records; of a
// completed one only the records go (its bytes are media).
import type { Log } from '../../lib/log.ts';
import type { Deps } from '../../deps.ts';
import { finishJob, retryJob, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import type { UploadsService } from './uploads.service.ts';

const LEASE_MS = 5 * 60_000;
const RETRY_MS = 60_000;

export function uploadExpiryHandler(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  uploads: UploadsService,
  log: Log,
): JobHandler {
  async function run(job: ClaimedJob): Promise<void> {
    if (await uploads.expire(job.subject_id, log)) {
      await finishJob(db.kysely, job);
      return;
    }
    // Ran before its time (a clock moved back): due again at the upload's expiry, checked then.
    await retryJob(db.kysely, job, clock.iso(RETRY_MS), 'not expired yet', clock.iso());
  }
  return {
    kind: 'upload.expire',
    concurrency: 1,
    batch: 1,
    leaseMs: LEASE_MS,
    startMarginMs: 0,
    run,
    faultDelayMs: () => RETRY_MS,
  };
}
