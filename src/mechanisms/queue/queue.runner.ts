// Runs one kind of job on this node: claims due jobs under a lease, up to the kind's concurrency,
// and hands each to its handler. Safe with several nodes on one database: a claim never takes
// a job another worker holds, and a worker that dies leaves its jobs due again once their lease
// ends (retried, never lost). stop() claims nothing more, gives claimed-but-unstarted jobs back
// at once, and waits (bounded) for jobs in flight.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../../deps.ts';
import type { Foreground } from '../../lib/foreground.ts';
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
   * A job still running after this long steps aside: its slot no longer counts against
   * `concurrency`, so jobs that wait on someone else (a webhook endpoint that never answers) cannot
   * hold every slot and delay the others' jobs (decisions/0019). At most `concurrency` ×
   * ASIDE_FACTOR jobs stand aside at once; each is still bounded by its own timeout and group.
   */
  readonly slowAfterMs?: number;
  /**
   * Work done before each claim, whether or not a slot is free (webhooks: turning new events into
   * deliveries and their jobs). Resolves true when more such work may be waiting at once. `small`:
   * the node is busy with requests, do a small piece (RunnerOptions.giveWay).
   */
  prepare?(small: boolean): Promise<boolean>;
  /** Does the work and records its outcome (finishJob/retryJob with its own row, fenced). */
  run(job: ClaimedJob): Promise<void>;
  /** When a job whose handler threw is due again (a fault delays the work, never loses it). */
  faultDelayMs(attempts: number): number;
  /** Releases what the handler holds (connections), once the runner has stopped. */
  close?(): void;
}

/** Jobs standing aside at once, as a multiple of the handler's concurrency. */
const ASIDE_FACTOR = 16;

export interface RunnerOptions {
  /** How often an idle runner looks for due jobs. */
  pollMs?: number;
  /**
   * While the node is busy answering requests, jobs (and the work before a claim) start at most
   * `perSecond` a second, so background work takes a small share of the JS thread and never
   * stops (decisions/0015). Otherwise they start as fast as slots free up.
   */
  giveWay?: { to: Pick<Foreground, 'busy'>; perSecond: number };
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
  /** Slots whose job has run past `slowAfterMs`: they no longer count against the concurrency. */
  let aside = 0;
  const maxAside = handler.concurrency * ASIDE_FACTOR;
  /** Slots counted against the concurrency. */
  const busySlots = (): number => slots.size - aside;
  let stopped = true;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  /** When the next job may start while the node is busy with requests. */
  let nextStart = 0;

  /**
   * Waits for its turn while the node is busy with requests (resolving true), at once otherwise
   * (false). Jobs and the work before claims share the turns.
   */
  async function pace(): Promise<boolean> {
    const giveWay = options.giveWay;
    if (giveWay === undefined || !giveWay.to.busy()) return false;
    const now = performance.now();
    const at = Math.max(now, nextStart);
    nextStart = at + 1000 / giveWay.perSecond;
    if (at > now) await sleep(at - now);
    return true;
  }

  /**
   * Jobs claimed for a group that had no free place yet: each runs in the slot of the next job of
   * its group to finish here (so a group never runs more than `groupLimit` at once). A group holds
   * at most `groupLimit` of them, so one waits at most one job's time (well within its lease), and
   * a group with any waiting is left out of claims until they have all started: claims then come
   * a group's worth at a time, not one per finished job.
   */
  const waiting = new Map<string, ClaimedJob[]>();
  /**
   * Groups with a job running past `slowAfterMs` here, and how many: claims leave them out until
   * those end, so a group that does not answer (a dead webhook endpoint) is not handed more jobs,
   * and the claims go to the other groups' jobs, however many slow groups there are (decisions/0019).
   */
  const slowGroups = new Map<string, number>();
  const busyGroups = (): string[] =>
    [...groups].filter(([g, n]) => n >= groupLimit && (waiting.get(g)?.length ?? 0) > 0 || n >= 2 * groupLimit || slowGroups.has(g)).map(([g]) => g); // prettier-ignore
  /** The most jobs one claim may bring without any group going past its running and waiting places. */
  const groupRoom = (): number => {
    if (groupLimit === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    let room = 2 * groupLimit;
    for (const [g, n] of groups) {
      const w = waiting.get(g)?.length ?? 0;
      if ((n >= groupLimit && w > 0) || slowGroups.has(g)) continue; // busy: not claimed for
      room = Math.min(room, 2 * groupLimit - n - w);
    }
    return Math.max(1, room);
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
      const group = row.group_key;
      if (group !== null && (groups.get(group) ?? 0) >= groupLimit) {
        const queue = waiting.get(group) ?? [];
        // Its group is running all it may: the job waits for a place, or, past that, goes back due now.
        if (queue.length < groupLimit) {
          queue.push({ ...row, lease });
          waiting.set(group, queue);
        } else {
          excess.push(row.id);
        }
        continue;
      }
      take(group);
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

  /** The next waiting job of a group, taking its place (the caller's job of that group just ended). */
  function nextWaiting(group: string | null): ClaimedJob | undefined {
    if (group === null) return undefined;
    const queue = waiting.get(group);
    const job = queue?.shift();
    if (queue?.length === 0) waiting.delete(group);
    if (job !== undefined) take(group);
    return job;
  }

  /** Gives back every waiting job (stopping). */
  async function releaseWaiting(): Promise<void> {
    const jobs = [...waiting.values()].flat();
    waiting.clear();
    const now = clock.iso();
    for (const job of jobs) {
      await repo.release(db.kysely, job, now).catch((err: unknown) => {
        log.warn({ err, job_id: job.id }, 'could not give a job back; its lease will');
      });
    }
  }

  /** Runs a slot's jobs one after another, then its group's waiting jobs; gives back those it may no longer start. */
  async function runSlot(claimed: ClaimedJob[]): Promise<void> {
    const jobs = [...claimed];
    for (let i = 0; i < jobs.length; i += 1) {
      const job = jobs[i] as ClaimedJob;
      await pace();
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
      let stoodAside = false;
      let markedSlow = false;
      const group = job.group_key;
      const slow =
        handler.slowAfterMs === undefined
          ? undefined
          : setTimeout(() => {
              if (group !== null) {
                markedSlow = true;
                slowGroups.set(group, (slowGroups.get(group) ?? 0) + 1);
              }
              if (aside >= maxAside) return;
              stoodAside = true;
              aside += 1;
              wake();
            }, handler.slowAfterMs);
      try {
        await runOne(job);
      } finally {
        clearTimeout(slow);
        if (stoodAside) aside -= 1;
        if (markedSlow && group !== null) {
          const n = (slowGroups.get(group) ?? 1) - 1;
          if (n <= 0) slowGroups.delete(group);
          else slowGroups.set(group, n);
        }
        give(group);
      }
      if (i === jobs.length - 1 && !stopping) {
        const next = nextWaiting(job.group_key);
        if (next !== undefined) jobs.push(next);
      }
    }
  }

  /** Claims for the free slots and starts them; resolves with how many jobs were claimed. */
  async function fill(): Promise<{ claimed: number; requested: number; more: boolean; started: Promise<void>[] }> {
    if (stopping) return { claimed: 0, requested: 0, more: false, started: [] };
    let more = false;
    if (handler.prepare !== undefined) {
      const small = await pace();
      try {
        more = await handler.prepare(small);
      } catch (err) {
        log.error({ err, kind: handler.kind }, 'job runner: the work before the claim failed; tried again next time');
      }
    }
    const started: Promise<void>[] = [];
    const startSlot = (jobs: ClaimedJob[]): void => {
      const slot = runSlot(jobs).finally(() => {
        slots.delete(slot);
        wake();
      });
      slots.add(slot);
      started.push(slot);
    };
    // Waiting jobs whose group has a free place and no slot to hand it on (one gave its job back).
    for (const [group] of waiting) {
      while (busySlots() < handler.concurrency && (groups.get(group) ?? 0) < groupLimit) {
        const job = nextWaiting(group);
        if (job === undefined) break;
        startSlot([job]);
      }
    }
    const free = handler.concurrency - busySlots();
    if (free <= 0 || stopping) return { claimed: 0, requested: 0, more, started };
    const requested = Math.min(free * handler.batch, groupRoom());
    const jobs = await claim(requested);
    for (let i = 0; i < jobs.length; i += handler.batch) startSlot(jobs.slice(i, i + handler.batch));
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
          else if (busySlots() < handler.concurrency || handler.prepare !== undefined) schedule(pollMs);
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
      await releaseWaiting();
      handler.close?.();
    },
  };
  return runner;
}
