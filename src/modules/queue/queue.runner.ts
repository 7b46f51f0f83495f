// Runs one kind of job on this node: claims due jobs under a lease, up to the kind's concurrency,
// and hands each to its handler. Safe with several nodes on one database: a claim never takes
// a job another worker holds, and a worker that dies leaves its jobs due again once their lease
// ends (retried, never lost). stop() claims nothing more, gives claimed-but-unstarted jobs back
// at once, and waits (bounded) for jobs in flight.
import type { Deps } from '../../deps.ts';
import type { Log } from '../../lib/log.ts';
import type { JobKind } from '../../db/schema.ts';
import { newLease, retryJob, type ClaimedJob } from './queue.ts';
import * as repo from './queue.repository.ts';

export interface JobHandler {
  readonly kind: JobKind;
  /** Jobs of this kind running at once on this node. */
  readonly concurrency: number;
  /** Jobs a slot claims at once and runs one after another (1: claim as slots free up). */
  readonly batch: number;
  /** Longer than any one job can take: past it, another worker may take the job over. */
  readonly leaseMs: number;
  /** A claimed job starts only while this much of its lease is left; otherwise it is given back. */
  readonly startMarginMs: number;
  /** At most this many jobs of one group (group_key) at once on this node. */
  readonly groupLimit?: number;
  /**
   * Work done before each claim, whether or not a slot is free (webhooks: turning new events into
   * deliveries and their jobs). Resolves true when more such work may be waiting at once.
   */
  prepare?(): Promise<boolean>;
  /** Does the work and records its outcome (finishJob/retryJob with its own row, fenced). */
  run(job: ClaimedJob): Promise<void>;
  /** When a job whose handler threw is due again (a fault delays the work, never loses it). */
  faultDelayMs(attempts: number): number;
  /** Releases what the handler holds (connections), once the runner has stopped. */
  close?(): void;
}

export interface RunnerOptions {
  /** How often an idle runner looks for due jobs. */
  pollMs?: number;
}

export interface JobRunner {
  readonly kind: JobKind;
  /** Claims one round of due jobs and runs them; resolves with how many were claimed. */
  runOnce(): Promise<number>;
  /** Runs rounds until none is due (tests, and draining). */
  drain(): Promise<void>;
  start(): void;
  /** Stops claiming; gives unstarted jobs back; waits at most `timeoutMs` for jobs in flight. */
  stop(timeoutMs?: number): Promise<void>;
}

export function createJobRunner(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  log: Log,
  handler: JobHandler,
  options: RunnerOptions = {},
): JobRunner {
  const pollMs = options.pollMs ?? 1000;
  const groupLimit = handler.groupLimit ?? Number.POSITIVE_INFINITY;
  /** Jobs of each group running (or about to) on this node. */
  const groups = new Map<string, number>();
  const slots = new Set<Promise<void>>();
  let stopped = true;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;

  const busyGroups = (): string[] => [...groups].filter(([, n]) => n >= groupLimit).map(([g]) => g);
  /**
   * The most jobs one claim may bring without any group going past its limit: a group not
   * running here may take `groupLimit`, one running here what it has left. Claiming more would
   * bring back jobs only to give them back at once (one statement each, then claimed again).
   */
  const groupRoom = (): number => {
    let room = groupLimit;
    for (const n of groups.values()) if (n < groupLimit) room = Math.min(room, groupLimit - n);
    return room;
  };
  const take = (group: string | null): void => {
    if (group !== null) groups.set(group, (groups.get(group) ?? 0) + 1);
  };
  const give = (group: string | null): void => {
    if (group === null) return;
    const n = (groups.get(group) ?? 1) - 1;
    if (n <= 0) groups.delete(group);
    else groups.set(group, n);
  };

  async function claim(limit: number): Promise<ClaimedJob[]> {
    const lease = newLease();
    const rows = await repo.claimDue(db.kysely, db.dialect, {
      kind: handler.kind,
      now: clock.iso(),
      leaseUntil: clock.iso(handler.leaseMs),
      lease,
      limit,
      busyGroups: busyGroups(),
    });
    const kept: ClaimedJob[] = [];
    const excess: string[] = [];
    for (const row of rows) {
      // Should a claim bring more of one group than its limit allows, the excess goes back, due now.
      if (row.group_key !== null && (groups.get(row.group_key) ?? 0) >= groupLimit) {
        excess.push(row.id);
        continue;
      }
      take(row.group_key);
      kept.push({ ...row, lease });
    }
    if (excess.length > 0) await repo.releaseMany(db.kysely, excess, lease, clock.iso());
    return kept;
  }

  async function runOne(job: ClaimedJob): Promise<void> {
    try {
      await handler.run(job);
    } catch (err) {
      log.error({ err, job_id: job.id, kind: job.kind, subject_id: job.subject_id }, 'job fault; it will be retried');
      try {
        const at = clock.iso(handler.faultDelayMs(job.attempts + 1));
        const message = err instanceof Error ? err.message : String(err);
        await retryJob(db.kysely, job, at, `fault: ${message.slice(0, 500)}`, clock.iso());
      } catch {
        // The database is down too: the lease brings the job back.
      }
    }
  }

  /** Runs a slot's jobs one after another; gives back those it may no longer start. */
  async function runSlot(jobs: ClaimedJob[]): Promise<void> {
    for (const [i, job] of jobs.entries()) {
      if (stopping || clock.now() > Date.parse(job.run_at) - handler.startMarginMs) {
        const now = clock.iso();
        for (const rest of jobs.slice(i)) {
          await repo.release(db.kysely, rest, now).catch((err: unknown) => {
            log.warn({ err, job_id: rest.id }, 'could not give a job back; its lease will');
          });
          give(rest.group_key);
        }
        return;
      }
      try {
        await runOne(job);
      } finally {
        give(job.group_key);
      }
    }
  }

  /** Claims for the free slots and starts them; resolves with how many jobs were claimed. */
  async function fill(): Promise<{ claimed: number; requested: number; more: boolean; started: Promise<void>[] }> {
    if (stopping) return { claimed: 0, requested: 0, more: false, started: [] };
    let more = false;
    if (handler.prepare !== undefined) {
      try {
        more = await handler.prepare();
      } catch (err) {
        log.error({ err, kind: handler.kind }, 'job runner: the work before the claim failed; tried again next time');
      }
    }
    const free = handler.concurrency - slots.size;
    if (free <= 0 || stopping) return { claimed: 0, requested: 0, more, started: [] };
    const requested = Math.min(free * handler.batch, groupRoom());
    const jobs = await claim(requested);
    const started: Promise<void>[] = [];
    for (let i = 0; i < jobs.length; i += handler.batch) {
      const slot = runSlot(jobs.slice(i, i + handler.batch)).finally(() => {
        slots.delete(slot);
        wake();
      });
      slots.add(slot);
      started.push(slot);
    }
    return { claimed: jobs.length, requested, more, started };
  }

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(wake, ms);
  }

  function wake(): void {
    if (stopped || ticking !== undefined) return;
    ticking = fill()
      .then(
        ({ claimed, requested, more }) => {
          // A full claim suggests more is due: look again at once (as slots allow).
          if (more || (claimed > 0 && claimed === requested)) schedule(0);
          else if (slots.size < handler.concurrency || handler.prepare !== undefined) schedule(pollMs);
        },
        (err: unknown) => {
          log.error({ err, kind: handler.kind }, 'job runner fault');
          schedule(pollMs);
        },
      )
      .finally(() => {
        ticking = undefined;
      });
  }

  const runner: JobRunner = {
    kind: handler.kind,

    async runOnce() {
      const { claimed, more, started } = await fill();
      await Promise.all(started);
      // Work prepared but not yet claimed counts as work found (drain goes on).
      return more ? Math.max(claimed, 1) : claimed;
    },

    async drain() {
      while ((await runner.runOnce()) > 0) {
        // keep going while jobs come back
      }
    },

    start() {
      if (!stopped) return;
      stopped = false;
      stopping = false;
      wake();
    },

    async stop(timeoutMs = 10_000) {
      stopped = true;
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      let timeout: NodeJS.Timeout | undefined;
      const settled = (async () => {
        await ticking;
        while (slots.size > 0) await Promise.all([...slots]);
      })();
      await Promise.race([
        settled,
        new Promise<void>((resolve) => {
          timeout = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timeout);
      handler.close?.();
    },
  };
  return runner;
}
