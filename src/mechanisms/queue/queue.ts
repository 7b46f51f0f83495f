// The one durable job queue (docs/decisions/0006): emails, photo variants, webhook deliveries and
// upload expiry are all rows here. A feature enqueues in the transaction of the write that causes
// the work (so the work is never lost, nor announced for a write that rolled back); a runner
// (queue.runner.ts) claims due jobs under a lease and hands them to the kind's handler, which
// records its outcome through the fenced functions below, in one transaction with its own row.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { JobKind } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './queue.repository.ts';

export type { JobKind } from '../../db/schema.ts';

/** A job as its handler receives it: claimed, with the lease that fences its outcome. */
export type ClaimedJob = repo.JobRow & { lease: string };

export interface EnqueueInput {
  kind: JobKind;
  accountId: string | null;
  subjectId: string;
  groupKey?: string | null;
  /** When it is due (stored timestamp); now, usually. */
  runAt: string;
}

/** Records work to be done, in the caller's transaction. */
export async function enqueue(trx: Executor, jobs: EnqueueInput | EnqueueInput[], now: string): Promise<void> {
  const list = Array.isArray(jobs) ? jobs : [jobs];
  await repo.insertJobs(
    trx,
    list.map((j) => ({
      id: newId('job'),
      kind: j.kind,
      account_id: j.accountId,
      subject_id: j.subjectId,
      group_key: j.groupKey ?? null,
      run_at: j.runAt,
      lease: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })),
  );
}

/** A new lease token: one per claim. */
export const newLease = (): string => randomUUID();

/** Whether the worker still holds `job` (checked before an effect that cannot be undone). */
export const holdsLease = (db: Executor, job: ClaimedJob): Promise<boolean> => repo.holdsLease(db, job);

/** Extends a running job's lease to `until` (its heartbeat); false if the lease was lost. */
export const renewLease = (db: Executor, job: ClaimedJob, until: string, now: string): Promise<boolean> =>
  repo.renew(db, job, until, now);

/** Done, or given up for good: the job goes. False (and nothing changed) if the lease was lost. */
export const finishJob = (trx: Executor, job: ClaimedJob): Promise<boolean> => repo.finish(trx, job);

/** A finished attempt that did not succeed: due again at `runAt`. False if the lease was lost. */
export const retryJob = (trx: Executor, job: ClaimedJob, runAt: string, error: string, now: string) =>
  repo.retry(trx, job, runAt, error, now);

/** Puts a job back unattempted, due at `runAt` (its subject is not ready for it: a disabled endpoint). */
export const postponeJob = (db: Executor, job: ClaimedJob, runAt: string): Promise<void> =>
  repo.release(db, job, runAt);

/** Makes a subject's pending job due now (a manual retry); false when it has none. */
export const runJobNow = (trx: Executor, kind: JobKind, subjectId: string, now: string): Promise<boolean> =>
  repo.reschedule(trx, kind, subjectId, now, now);

/** Drops the pending jobs of subjects that are gone (a deleted endpoint's deliveries, say). */
export const dropJobs = (trx: Executor, kind: JobKind, subjectIds: readonly string[]): Promise<number> =>
  repo.dropJobs(trx, kind, subjectIds);

/** The pending job of a subject, if any. */
export const pendingJob = (db: Executor, kind: JobKind, subjectId: string) => repo.findJob(db, kind, subjectId);

/** Records an outcome and the handler's own changes together, only while the lease holds. */
export async function withJobOutcome<T>(
  db: Db,
  record: (trx: Executor) => Promise<boolean>,
  apply: (trx: Executor) => Promise<T>,
): Promise<T | undefined> {
  return db.kysely.transaction().execute(async (trx) => ((await record(trx)) ? apply(trx) : undefined));
}
