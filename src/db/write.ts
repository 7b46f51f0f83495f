// The unit of work (decisions/0018): every change of an account's data runs through `run` (or, in a
// job's fenced transaction, `within`). It takes the write's locks in one canonical order before the
// body runs; the body changes rows and announces what the change means (events, count changes,
// jobs, work for after the commit); the epilogue then records the events, enqueues the jobs and
// applies the count changes last, in one sorted upsert (decisions/0005), and commits.
import type { Selectable } from 'kysely';
import type { Clock } from '../lib/clock.ts';
import type { Db } from './database.ts';
import type { Executor } from './executor.ts';
import type { EventType, ListingsTable } from './schema.ts';
import { addCounts } from '../mechanisms/counts/counts.repository.ts';
import { eventsRecorded, type CountDeltas } from '../mechanisms/counts/counters.ts';
import { enqueue, type EnqueueInput } from '../mechanisms/queue/queue.ts';
import { recordEvents, type NewEvent } from '../mechanisms/events/events.entry.ts';
import { prepared } from './prepared.ts';
import { sqliteWriteGroups, type WriteGroups } from './write-group.ts';
import type { Dialect } from './database.ts';

/**
 * What a write locks, taken in this order and no other: a gallery's row first (its media, their
 * positions, its cover, its variants and its link change under it), then the rows the body itself
 * reads to change. Adding a lock here, at its place in the order, is the one way to add one.
 */
export interface Locks {
  /** A gallery of the account: read and locked (PostgreSQL) until the write ends. */
  listing?: string;
}

export interface WriteOptions {
  lock?: Locks;
  /** The write's timestamp (events' `created_at`); the clock's now by default. */
  now?: string;
}

/** What the body of a write works with. */
export interface Write {
  /** The transaction: every read and change of the body goes through it. */
  readonly trx: Executor;
  readonly accountId: string;
  readonly now: string;
  /** The gallery asked for in `lock.listing`, locked; undefined when the account has no such gallery. */
  readonly listing: Selectable<ListingsTable> | undefined;
  /** An event of this write, with `object` as the resource's GET returns it now (or `{id}` for a deletion). */
  announce(type: EventType, object: unknown): void;
  /** Count changes of this write, applied last in one sorted upsert. */
  count(...changes: CountDeltas[]): void;
  /** Work to be done in the background, enqueued in this transaction. */
  enqueue(...jobs: EnqueueInput[]): void;
  /** Runs once the write has committed (a purge of bytes, say); never after a rollback. */
  afterCommit(task: () => Promise<unknown>): void;
}

class WriteState implements Write {
  readonly events: NewEvent[] = [];
  readonly deltas: CountDeltas[] = [];
  readonly jobs: EnqueueInput[] = [];
  readonly after: (() => Promise<unknown>)[] = [];
  listing: Selectable<ListingsTable> | undefined = undefined;
  readonly trx: Executor;
  readonly accountId: string;
  readonly now: string;
  private readonly committing: boolean;
  constructor(trx: Executor, accountId: string, now: string, committing: boolean) {
    this.trx = trx;
    this.accountId = accountId;
    this.now = now;
    this.committing = committing;
  }
  announce(type: EventType, object: unknown): void {
    this.events.push({ type, object });
  }
  count(...changes: CountDeltas[]): void {
    this.deltas.push(...changes);
  }
  enqueue(...jobs: EnqueueInput[]): void {
    this.jobs.push(...jobs);
  }
  afterCommit(task: () => Promise<unknown>): void {
    if (!this.committing) throw new Error('afterCommit: this write runs in its caller’s transaction');
    this.after.push(task);
  }
}

// Every column of a gallery, named (a prepared statement never selects *), checked against the table.
const LISTING_COLUMNS = Object.keys({
  id: true,
  account_id: true,
  client_id: true,
  address: true,
  beds: true,
  baths: true,
  sqft: true,
  status: true,
  description: true,
  mls_number: true,
  media_count: true,
  cover_media_id: true,
  created_at: true,
  updated_at: true,
} satisfies Record<keyof ListingsTable, true>) as (keyof ListingsTable)[];

// A gallery read to be changed, locked until the transaction ends on PostgreSQL (SQLite has one
// writer at a time): one compiled statement per dialect. Only the unit of work takes it
// (`lock: { listing }`), in its canonical lock order.
const lockQueries = {
  postgres: prepared((db, p: { accountId: string; id: string }) =>
    db
      .selectFrom('listings')
      .select(LISTING_COLUMNS)
      .where('account_id', '=', p.accountId)
      .where('id', '=', p.id)
      .forUpdate(),
  ),
  sqlite: prepared((db, p: { accountId: string; id: string }) =>
    db.selectFrom('listings').select(LISTING_COLUMNS).where('account_id', '=', p.accountId).where('id', '=', p.id),
  ),
};

function lockListing(db: Executor, dialect: Dialect, accountId: string, id: string) {
  return lockQueries[dialect].first(db, { accountId, id });
}

// One group committer per SQLite database, shared by every service's unit of work.
const groupsOf = new WeakMap<Db, WriteGroups | undefined>();

function groupsFor(db: Db): WriteGroups | undefined {
  if (!groupsOf.has(db)) groupsOf.set(db, sqliteWriteGroups(db));
  return groupsOf.get(db);
}

export function createWrites({ db, clock }: { db: Db; clock: Clock }) {
  const groups = groupsFor(db);
  async function lock(w: WriteState, locks: Locks | undefined): Promise<void> {
    if (locks?.listing !== undefined) w.listing = await lockListing(w.trx, db.dialect, w.accountId, locks.listing);
  }

  async function epilogue(w: WriteState): Promise<void> {
    if (w.events.length > 0) await recordEvents(w.trx, w.accountId, w.events, w.now);
    if (w.jobs.length > 0) await enqueue(w.trx, w.jobs, w.now);
    // Last: the counter rows stay locked until commit, taken in sorted order (decisions/0005).
    await addCounts(w.trx, w.accountId, ...w.deltas, eventsRecorded(w.events.map((e) => e.type)));
  }

  async function body<T>(w: WriteState, options: WriteOptions, work: (w: Write) => T | Promise<T>): Promise<T> {
    await lock(w, options.lock);
    const result = await work(w);
    await epilogue(w);
    return result;
  }

  return {
    /** One write of one account, in its own transaction; after-commit work runs before it returns. */
    async run<T>(accountId: string, options: WriteOptions, work: (w: Write) => Promise<T>): Promise<T> {
      const now = options.now ?? clock.iso();
      let state: WriteState | undefined;
      const inTransaction = (trx: Executor): Promise<T> => {
        state = new WriteState(trx, accountId, now, true);
        return body(state, options, work);
      };
      // SQLite: in the next group's transaction, in its own savepoint (src/db/write-group.ts).
      const result = await (groups === undefined
        ? db.kysely.transaction().execute(inTransaction)
        : groups.run(inTransaction));
      for (const task of state?.after ?? []) await task();
      return result;
    },

    /** One write of one account inside the caller's transaction (a job's fenced outcome). */
    within<T>(trx: Executor, accountId: string, options: WriteOptions, work: (w: Write) => T | Promise<T>): Promise<T> {
      return body(new WriteState(trx, accountId, options.now ?? clock.iso(), false), options, work);
    },
  };
}
