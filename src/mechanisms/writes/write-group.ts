// Group commit for the unit of work on SQLite (decisions/0018, "Group commit"). A SQLite write's
// largest cost is its COMMIT: every page it changed (the row, each of its indexes, the search
// index, the event, the counters, the account's version) is appended to the WAL, and the WAL is
// copied back into the database at each checkpoint. Writes that arrive in the same turn of the
// event loop change mostly the same pages (the right edge of the same indexes, the same counter
// and version rows), so they run one after another in one transaction, each in its own
// savepoint, and commit once: each page is written once per group, not once per write.
//
// What a write sees and guarantees is unchanged. SQLite has one writer at a time, so the writes
// of a group run in the order they arrived, exactly as they would have one transaction after
// another; a write that fails rolls back to its savepoint and fails alone; no write is answered
// before the COMMIT that makes it durable, and if that COMMIT fails, every write of the group
// fails with it. The group takes the write lock at its BEGIN IMMEDIATE (waiting up to the busy
// timeout for another process's writer), so no later statement of the group can find the
// database changed under it by another process.
import { directSqlite, lendDirectSqlite, type Db, type DirectSqlite } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';

/**
 * Writes per group at most: a body that waits for I/O lets more writes queue meanwhile, and the
 * group must still end (and answer them) under a steady stream of them.
 */
const MAX_GROUP = 64;

interface Pending {
  work: (trx: Executor) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface WriteGroups {
  /** Runs `work` in the next group's transaction; resolves once that transaction has committed. */
  run<T>(work: (trx: Executor) => Promise<T>): Promise<T>;
}

/** The group committer of a SQLite database; undefined on PostgreSQL (each write commits alone). */
export function sqliteWriteGroups(db: Db): WriteGroups | undefined {
  const found = directSqlite(db.kysely);
  if (found === undefined) return undefined;
  const sqlite: DirectSqlite = found;
  const exec = (text: string): void => void sqlite.prepare(text).run();
  const queue: Pending[] = [];
  // True from the moment a group is scheduled until it stops taking writes (just before COMMIT).
  let open = false;

  function schedule(): void {
    open = true;
    // After the rest of this turn's I/O: the requests that arrived with this one join its group.
    setImmediate(
      () =>
        void db.kysely
          .connection()
          .execute((conn) => runGroup(sqlite, conn))
          .catch(failQueued),
    );
  }

  function failQueued(err: unknown): void {
    // The connection could not be had or the transaction not begun: nothing of these writes ran.
    open = false;
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) p.reject(err);
  }

  async function runGroup(handle: DirectSqlite, conn: Executor): Promise<void> {
    exec('begin immediate');
    // The group holds the connection: its prepared statements skip Kysely's executor.
    const lent = lendDirectSqlite(db.kysely, conn);
    const done: { pending: Pending; value: unknown }[] = [];
    let aborted: unknown;
    try {
      let taken = 0;
      for (let p = queue.shift(); p !== undefined; p = (taken += 1) < MAX_GROUP ? queue.shift() : undefined) {
        exec('savepoint lightbox_write');
        try {
          done.push({ pending: p, value: await p.work(conn) });
          exec('release lightbox_write');
        } catch (err) {
          if (done.at(-1)?.pending === p) done.pop();
          p.reject(err);
          // Some errors (SQLITE_FULL, I/O errors) roll the whole transaction back: the group ends.
          if (!handle.inTransaction) {
            aborted = err;
            break;
          }
          exec('rollback to lightbox_write');
          exec('release lightbox_write');
        }
      }
      open = false;
      if (aborted === undefined) exec('commit');
    } catch (err) {
      aborted = err;
    } finally {
      lent.release();
      open = false;
      if (handle.inTransaction) exec('rollback');
    }
    for (const { pending, value } of done) {
      if (aborted === undefined) pending.resolve(value);
      else pending.reject(aborted);
    }
    // Writes queued after the group stopped taking them (or left by an aborted one) get their own.
    if (queue.length > 0) schedule();
  }

  return {
    run<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (!open) schedule();
      });
    },
  };
}
