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

/**
 * The object of each resource kind whose loader is registered, as its GET returns it. Each
 * feature adds its own kind (`declare module` beside its loader), so the unit of work knows the
 * kinds' types without importing any feature (an augmentation, which knip does not follow).
 * @public
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the features
export interface Resources {}
type ResourceKind = keyof Resources;

/** A resource's loader, registered once (src/services.ts): the same one its GET uses. */
interface ResourceLoader<T> {
  /** The resource as its GET returns it now; undefined when the account has no such resource. */
  load(trx: Executor, accountId: string, id: string): Promise<T | undefined>;
  /**
   * Moves its `updated_at` to `now` (a field its object shows changed in another table); absent
   * for a kind no write touches yet.
   */
  touch?(trx: Executor, accountId: string, id: string, now: string): Promise<void>;
}

/** Every registered resource: its loader, and which events carry it (by their type's prefix). */
export interface ResourceRegistry {
  loaders: { [K in ResourceKind]: ResourceLoader<Resources[K]> };
  /**
   * The kind of the object an event type's prefix names (`client_link.viewed` carries the gallery),
   * or, first, the whole type (`listing.kit_ready` carries the kit, not the gallery).
   */
  objectOf: Readonly<Record<string, ResourceKind>>;
}

/**
 * Work a feature does at the end of every write, from the write's events, in its transaction
 * (registered in src/services.ts, as the loaders are): it may enqueue jobs, and returns events of
 * its own to record with the write's (a status that a write changed, say). It announces nothing.
 */
export type Reaction = (w: Write, events: readonly NewEvent[]) => Promise<NewEvent[]>;

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
  /**
   * An event of this write, about the resource with this id: the unit of work loads it once at the
   * end, through its registered loader (the one its GET uses; `{ id }` for a deletion), or takes
   * the object handed over with `loaded`, and records it as it is then; a resource no longer there
   * is not announced. An event's object is thus its resource's GET, by construction.
   */
  announce(type: EventType, id: string): void;
  /** The resource's `updated_at` moves to the write's `now`, in the epilogue (or before a `load` of it). */
  touch(kind: ResourceKind, id: string): void;
  /**
   * The resource as its GET returns it, for the body's answer: its pending touch is made first,
   * and the object is kept, so the epilogue announces it without reading it again. Load after the
   * body's last change of it.
   */
  load<K extends ResourceKind>(kind: K, id: string): Promise<Resources[K] | undefined>;
  /**
   * The resource as its GET returns it, built by the body from the rows it just wrote (RETURNING)
   * with the serializer its GET uses: the epilogue announces it without reading it again. Hand it
   * after the body's last change of it; a later `touch` of it drops it (it is loaded again).
   */
  loaded<K extends ResourceKind>(kind: K, id: string, object: Resources[K]): void;
  /** Count changes of this write, applied last in one sorted upsert. */
  count(...changes: CountDeltas[]): void;
  /** Work to be done in the background, enqueued in this transaction. */
  enqueue(...jobs: EnqueueInput[]): void;
  /** Makes a subject's pending job due now, in this transaction (a manual retry); false when it has none. */
  runNow(kind: JobKind, subjectId: string): Promise<boolean>;
  /** Runs once the write has committed (a purge of bytes, say); never after a rollback. */
  afterCommit(task: () => Promise<unknown>): void;
}

/** An announced event: a deletion's object (`{ id }`), or the resource to load for it at the end. */
type Announced = { type: EventType; object: unknown } | { type: EventType; kind: ResourceKind; id: string };

const keyOf = (kind: ResourceKind, id: string): string => `${kind}:${id}`;

class WriteState implements Write {
  readonly announced: Announced[] = [];
  /** Resources to touch, by `kind:id`, not yet touched. */
  readonly touches = new Map<string, { kind: ResourceKind; id: string }>();
  /** Resources loaded (or handed over) in this write since their last touch, by `kind:id`. */
  readonly objects = new Map<string, unknown>();
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
  private readonly resources: ResourceRegistry;
  constructor(trx: Executor, accountId: string, now: string, committing: boolean, resources: ResourceRegistry) {
    this.trx = trx;
    this.accountId = accountId;
    this.now = now;
    this.committing = committing;
    this.resources = resources;
  }
  announce(type: EventType, id: string): void {
    if (type.endsWith('.deleted')) {
      // A deletion's object is the id alone (docs/api.md §15): there is nothing left to load.
      this.announced.push({ type, object: { id } });
    } else {
      const kind = this.resources.objectOf[type] ?? this.resources.objectOf[type.slice(0, type.indexOf('.'))];
      if (kind === undefined) throw new Error(`announce: no resource is registered for ${type}`);
      this.announced.push({ type, kind, id });
    }
  }
  touch(kind: ResourceKind, id: string): void {
    const key = keyOf(kind, id);
    this.touches.set(key, { kind, id });
    this.objects.delete(key);
  }
  async load<K extends ResourceKind>(kind: K, id: string): Promise<Resources[K] | undefined> {
    const key = keyOf(kind, id);
    await this.touchNow(key);
    if (!this.objects.has(key)) {
      const loader: ResourceLoader<unknown> = this.resources.loaders[kind];
      this.objects.set(key, await loader.load(this.trx, this.accountId, id));
    }
    // The loader registered for `kind` (or `loaded`, typed by kind) makes a Resources[K].
    return this.objects.get(key) as Resources[K] | undefined;
  }
  loaded<K extends ResourceKind>(kind: K, id: string, object: Resources[K]): void {
    const key = keyOf(kind, id);
    // Its `updated_at` is to move still: the object handed over would not show it.
    if (this.touches.has(key)) throw new Error(`loaded: ${key} has a touch pending; load it instead`);
    this.objects.set(key, object);
  }
  /** Makes the pending touch of `key`, if any. */
  async touchNow(key: string): Promise<void> {
    const pending = this.touches.get(key);
    if (pending === undefined) return;
    this.touches.delete(key);
    const loader: ResourceLoader<unknown> = this.resources.loaders[pending.kind];
    if (loader.touch === undefined) throw new Error(`touch: no touch is registered for ${pending.kind}`);
    await loader.touch(this.trx, this.accountId, pending.id, this.now);
  }
  /** The events to record, in the order announced: each resource touched, then loaded once. */
  async events(): Promise<NewEvent[]> {
    for (const key of [...this.touches.keys()]) await this.touchNow(key);
    const events: NewEvent[] = [];
    for (const a of this.announced) {
      const object = 'object' in a ? a.object : await this.load(a.kind, a.id);
      if (object !== undefined) events.push({ type: a.type, object });
    }
    return events;
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

export function createWrites({
  db,
  clock,
  locks,
  resources,
  reactions = [],
}: {
  db: Db;
  clock: Clock;
  locks: LockQueries;
  resources: ResourceRegistry;
  reactions?: readonly Reaction[];
}) {
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
    const announced = await w.events();
    const events = [...announced];
    for (const react of reactions) events.push(...(await react(w, announced)));
    if (events.length > 0) await recordEvents(w.trx, w.accountId, events, w.now);
    if (w.jobs.length > 0) await enqueue(w.trx, w.jobs, w.now);
    // Last: the counter rows stay locked until commit, taken in sorted order (decisions/0005).
    await addCounts(w.trx, w.accountId, ...w.deltas, eventsRecorded(events.map((e) => e.type)));
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
        state = new WriteState(trx, accountId, now, true, resources);
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
      return body(new WriteState(trx, accountId, options.now ?? clock.iso(), false, resources), options, work);
    },
  };
}
