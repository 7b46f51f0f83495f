// The unit of work (decisions/0018): every change of an account's data runs through `run` (or, in a
// job's fenced transaction, `within`). It is built once, in src/services.ts, and handed to every
// service. It takes the write's locks in one canonical order before the body runs; the body changes
// rows and announces what the change means (events, count changes, jobs, work for after the
// commit); the epilogue then records the events, enqueues the jobs and applies the count changes
// last, in one sorted upsert (decisions/0005), and commits. It knows no feature's table: each lock's
// query is registered by the feature that owns the row (src/services.ts).
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/clock.ts';
import type { Db, Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AccountsTable, EventType, JobKind, ListingsTable, MediaTable } from '../../db/schema.ts';
import { addCounts } from '../counts/counts.repository.ts';
import { eventsRecorded, type CountDeltas } from '../counts/counters.ts';
import { enqueue, runJobNow, type EnqueueInput } from '../queue/queue.ts';
import { recordEvents, type NewEvent } from '../events/events.entry.ts';
import { sqliteWriteGroups } from './write-group.ts';

type AccountRow = Selectable<AccountsTable>;
type ListingRow = Selectable<ListingsTable>;
type MediaRow = Selectable<MediaTable>;

/**
 * What a write locks, taken in this order and no other: the account's row (a deletion of all its
 * data), a gallery's row (its media, their positions, its cover, its variants and its link change
 * under it), one media row of that gallery (its deletion), a photo or video (its variants). A lock
 * whose row is not there ends the taking: the body sees undefined for it and every later one.
 * Adding a lock here, at its place in the order, with its query in `LockQueries`, is the one way
 * to add one; no body takes a row lock by hand.
 */
export interface Locks {
  /** The write's own account row, read and locked (PostgreSQL) until the write ends. */
  account?: true;
  /** A gallery of the account. */
  listing?: string;
  /** A media row of the gallery in `listing` (which must be asked for too). */
  media?: string;
  /** A photo or video of the account, for its variants. */
  photo?: string;
}

/**
 * The query of each lock, registered by the feature that owns its table (src/services.ts). Each
 * reads the row scoped by account and locks it until the transaction ends (SQLite has one writer).
 */
export interface LockQueries {
  account(trx: Executor, dialect: Dialect, accountId: string): Promise<AccountRow | undefined>;
  listing(trx: Executor, dialect: Dialect, accountId: string, id: string): Promise<ListingRow | undefined>;
  media(
    trx: Executor,
    dialect: Dialect,
    accountId: string,
    listingId: string,
    id: string,
  ): Promise<MediaRow | undefined>;
  photo(trx: Executor, dialect: Dialect, accountId: string, id: string): Promise<MediaRow | undefined>;
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
  /** The rows asked for in `lock`, locked; undefined when not asked for, not there, or after one not there. */
  readonly account: AccountRow | undefined;
  readonly listing: ListingRow | undefined;
  readonly media: MediaRow | undefined;
  readonly photo: MediaRow | undefined;
  /** An event of this write, with `object` as the resource's GET returns it now (or `{id}` for a deletion). */
  announce(type: EventType, object: unknown): void;
  /** Count changes of this write, applied last in one sorted upsert. */
  count(...changes: CountDeltas[]): void;
  /** Work to be done in the background, enqueued in this transaction. */
  enqueue(...jobs: EnqueueInput[]): void;
  /** Makes a subject's pending job due now, in this transaction (a manual retry); false when it has none. */
  runNow(kind: JobKind, subjectId: string): Promise<boolean>;
  /** Runs once the write has committed (a purge of bytes, say); never after a rollback. */
  afterCommit(task: () => Promise<unknown>): void;
}

class WriteState implements Write {
  readonly events: NewEvent[] = [];
  readonly deltas: CountDeltas[] = [];
  readonly jobs: EnqueueInput[] = [];
  readonly after: (() => Promise<unknown>)[] = [];
  account: AccountRow | undefined = undefined;
  listing: ListingRow | undefined = undefined;
  media: MediaRow | undefined = undefined;
  photo: MediaRow | undefined = undefined;
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
  runNow(kind: JobKind, subjectId: string): Promise<boolean> {
    return runJobNow(this.trx, kind, subjectId, this.now);
  }
  afterCommit(task: () => Promise<unknown>): void {
    if (!this.committing) throw new Error('afterCommit: this write runs in its caller’s transaction');
    this.after.push(task);
  }
}

export type Writes = ReturnType<typeof createWrites>;

export function createWrites({ db, clock, locks }: { db: Db; clock: Clock; locks: LockQueries }) {
  // One group committer per SQLite database: this unit of work is built once (src/services.ts).
  const groups = sqliteWriteGroups(db);

  // The canonical order; a row not there ends it (the body checks the rows it asked for).
  async function lock(w: WriteState, wanted: Locks | undefined): Promise<void> {
    if (wanted === undefined) return;
    const { trx, accountId } = w;
    if (wanted.account === true) {
      w.account = await locks.account(trx, db.dialect, accountId);
      if (w.account === undefined) return;
    }
    if (wanted.listing !== undefined) {
      w.listing = await locks.listing(trx, db.dialect, accountId, wanted.listing);
      if (w.listing === undefined) return;
    }
    if (wanted.media !== undefined) {
      if (wanted.listing === undefined) throw new Error('lock.media: lock its gallery (lock.listing) too');
      w.media = await locks.media(trx, db.dialect, accountId, wanted.listing, wanted.media);
      if (w.media === undefined) return;
    }
    if (wanted.photo !== undefined) w.photo = await locks.photo(trx, db.dialect, accountId, wanted.photo);
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
      // SQLite: in the next group's transaction, in its own savepoint (./write-group.ts).
      const result = await (groups === undefined
        ? db.kysely.transaction().execute(inTransaction)
        : groups.run(inTransaction));
      for (const task of state?.after ?? []) await task();
      return result;
    },

    /**
     * Reads that must agree with each other, in one snapshot: a transaction that changes nothing
     * (read only on PostgreSQL, so a change in it fails). Not a write: no locks, no epilogue.
     */
    snapshot<T>(read: (trx: Executor) => Promise<T>): Promise<T> {
      const trx = db.kysely.transaction();
      return (db.dialect === 'postgres' ? trx.setAccessMode('read only') : trx).execute(read);
    },

    /** One write of one account inside the caller's transaction (a job's fenced outcome). */
    within<T>(trx: Executor, accountId: string, options: WriteOptions, work: (w: Write) => T | Promise<T>): Promise<T> {
      return body(new WriteState(trx, accountId, options.now ?? clock.iso(), false), options, work);
    },
  };
}
