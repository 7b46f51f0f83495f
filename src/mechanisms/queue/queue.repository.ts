// The queue's SQL. A job is claimed by moving its run_at to the end of a lease and setting a
// lease token; every outcome is recorded only where the token still matches (fenced), so a
// worker whose lease ran out and whose job was taken over cannot overwrite the new holder's
// outcome. Claims skip each other's rows on PostgreSQL (FOR UPDATE SKIP LOCKED); SQLite has
// one writer at a time, so its single UPDATE ... WHERE id IN (SELECT ...) is already exclusive.
import type { Insertable, Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { inClaimed, skipLocked } from '../../db/locking.ts';
import { prepared } from '../../db/prepared.ts';
import type { JobKind, JobsTable } from '../../db/schema.ts';

export type JobRow = Selectable<JobsTable>;
export type NewJob = Insertable<JobsTable>;

export async function insertJobs(db: Executor, rows: NewJob[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('jobs').values(rows).execute();
}

export interface ClaimOptions {
  kind: JobKind;
  now: string;
  leaseUntil: string;
  lease: string;
  limit: number;
  /** Groups whose jobs this worker may not take now (they are at their limit on this node). */
  busyGroups: readonly string[];
}

/** Claims up to `limit` due jobs of a kind, oldest due first. */
export async function claimDue(db: Executor, dialect: Dialect, o: ClaimOptions): Promise<JobRow[]> {
  let due = db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', o.kind)
    .where('run_at', '<=', o.now)
    .orderBy('run_at')
    .limit(o.limit);
  if (o.busyGroups.length > 0) {
    due = due.where((eb) => eb.or([eb('group_key', 'is', null), eb('group_key', 'not in', [...o.busyGroups])]));
  }
  return (
    db
      .updateTable('jobs')
      .set({ run_at: o.leaseUntil, lease: o.lease, updated_at: o.now })
      .where((eb) => inClaimed(dialect, eb.ref('id'), skipLocked(dialect, due)))
      // Checked again on the row itself: on PostgreSQL a concurrent claim re-evaluates these.
      .where('run_at', '<=', o.now)
      .returningAll()
      .execute()
  );
}

type Held = Pick<JobRow, 'id' | 'lease'>;

/** Whether the worker that claimed `job` still holds it. */
export async function holdsLease(db: Executor, job: Held): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('id', '=', job.id)
    .where('lease', '=', job.lease)
    .executeTakeFirst();
  return row !== undefined;
}

/** A running job's lease runs on to `until` (claims take a job whose run_at has passed). */
export async function renew(db: Executor, job: Held, until: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ run_at: until, updated_at: now })
    .where('id', '=', job.id)
    .where('lease', '=', job.lease)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Outcomes are the hottest statements of every runner: compiled once (src/db/prepared.ts).
const finishQuery = prepared((db, p: { id: string; lease: string | null }) =>
  db.deleteFrom('jobs').where('id', '=', p.id).where('lease', '=', p.lease),
);

const retryQuery = prepared((db, p: { id: string; lease: string | null; runAt: string; error: string; now: string }) =>
  db
    .updateTable('jobs')
    .set((eb) => ({
      run_at: p.runAt,
      lease: null,
      attempts: eb('attempts', '+', 1),
      last_error: p.error,
      updated_at: p.now,
    })) // prettier-ignore
    .where('id', '=', p.id)
    .where('lease', '=', p.lease),
);

/** The job is done (or given up): its row goes. False if the lease was no longer held. */
export async function finish(db: Executor, job: Held): Promise<boolean> {
  return (await finishQuery.run(db, { id: job.id, lease: job.lease })) > 0;
}

/** One more attempt finished without success: due again at `runAt`. */
export async function retry(db: Executor, job: Held, runAt: string, error: string, now: string): Promise<boolean> {
  return (await retryQuery.run(db, { id: job.id, lease: job.lease, runAt, error, now })) > 0;
}

/** Gives a claimed job back unattempted (shutting down, lease running out): due at `now`. */
export async function release(db: Executor, job: Held, now: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: now, lease: null, updated_at: now })
    .where('id', '=', job.id)
    .where('lease', '=', job.lease)
    .execute();
}

/** Gives back several jobs of one claim unattempted: due at `now`. */
export async function releaseMany(db: Executor, ids: readonly string[], lease: string, now: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('jobs')
    .set({ run_at: now, lease: null, updated_at: now })
    .where('id', 'in', [...ids])
    .where('lease', '=', lease)
    .execute();
}

/** Makes a subject's pending job due at `runAt`, unless a live worker holds it (then it is running now). */
export async function reschedule(
  db: Executor,
  kind: JobKind,
  subjectId: string,
  runAt: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ run_at: runAt, lease: null, updated_at: now })
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .where((eb) => eb.or([eb('lease', 'is', null), eb('run_at', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Drops the pending jobs of some subjects (their subject is gone). */
export async function dropJobs(db: Executor, kind: JobKind, subjectIds: readonly string[]): Promise<number> {
  if (subjectIds.length === 0) return 0;
  const result = await db
    .deleteFrom('jobs')
    .where('kind', '=', kind)
    .where('subject_id', 'in', [...subjectIds])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The pending job of a subject, if any (tests, the dashboard, doctor). */
export async function findJob(db: Executor, kind: JobKind, subjectId: string): Promise<JobRow | undefined> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .executeTakeFirst();
}

/**
 * The queue per kind of job, for /metrics: every account's jobs together (the operator's view of
 * the workers, not a studio's). One pass over the table, which stays small: jobs leave it when done.
 */
export async function queueStats(
  db: Executor,
  now: string,
): Promise<{ kind: string; queued: number; due: number; oldest: string }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number | string>().as('queued'),
      // Due and held by no worker (a held job's run_at is its lease's end, so it is not due).
      sql<number | string>`sum(case when ${eb.ref('run_at')} <= ${now} then 1 else 0 end)`.as('due'),
      eb.fn.min('created_at').as('oldest'),
    ])
    .groupBy('kind')
    .execute();
  return rows.map((r) => ({ kind: r.kind, queued: Number(r.queued), due: Number(r.due), oldest: r.oldest }));
}
