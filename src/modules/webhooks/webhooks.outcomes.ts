// Group commit of delivery outcomes: the attempts that end while an earlier batch is being
// written are written together in the next one, one transaction for many deliveries, each still
// fenced by its job's lease (an outcome whose lease was lost changes nothing). A delivery's job
// is not done until its outcome is committed: `record` resolves then, so the runner's slot and
// the endpoint's place stay taken until it is. Under light load a batch is one outcome, written
// at once (no timer, no added wait); under heavy load the batches grow by themselves.
import type { Db } from '../../db/database.ts';
import type { Metrics } from '../../mechanisms/metrics/metrics.ts';
import type { Executor } from '../../db/executor.ts';
import { finishJob, retryJob, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import * as repo from './webhooks.repository.ts';

export interface Outcome {
  job: ClaimedJob;
  deliveryId: string;
  /** Finished (succeeded or given up), or due again at `retryAt` with `retryError`. */
  retryAt: string | null;
  retryError: string;
  at: string;
  attempt: Parameters<typeof repo.recordAttempt>[2];
  /** The receiver answered 410 Gone: this endpoint is disabled in the same transaction (docs/api.md §22). */
  goneEndpointId?: string;
}

/** Outcomes per transaction at most (a backlog drains in many batches, none holding the writer long). */
const MAX_BATCH = 64;

interface Waiting {
  outcome: Outcome;
  done: () => void;
  failed: (err: unknown) => void;
}

/** Writes one outcome; false when the job's lease was lost (then nothing changed). */
async function apply(trx: Executor, o: Outcome): Promise<boolean> {
  const held =
    o.retryAt === null ? await finishJob(trx, o.job) : await retryJob(trx, o.job, o.retryAt, o.retryError, o.at);
  if (!held) return false;
  await repo.recordAttempt(trx, o.deliveryId, o.attempt);
  if (o.goneEndpointId !== undefined) await repo.disableGone(trx, o.goneEndpointId, o.at);
  return true;
}

const OUTCOMES = { succeeded: 'succeeded', pending: 'retry', failed: 'failed' } as const;

export function outcomeWriter(db: Db, metrics: Metrics): { record(outcome: Outcome): Promise<void> } {
  const queue: Waiting[] = [];
  let writing = false;

  async function write(): Promise<void> {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const written = await db.kysely.transaction().execute(async (trx) => {
            const held: Outcome[] = [];
            for (const w of batch) if (await apply(trx, w.outcome)) held.push(w.outcome);
            return held;
          });
          // Counted once committed, and only where the lease held: a lost lease's attempt is the new holder's to count.
          for (const o of written) metrics.webhook(OUTCOMES[o.attempt.status]);
          for (const w of batch) w.done();
        } catch (err) {
          // The batch rolled back as one: each job's handler fails, and the runner retries it.
          for (const w of batch) w.failed(err);
        }
      }
    } finally {
      writing = false;
    }
  }

  return {
    record(outcome) {
      return new Promise<void>((done, failed) => {
        queue.push({ outcome, done, failed });
        if (!writing) void write();
      });
    },
  };
}
