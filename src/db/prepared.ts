// Fixed-shape queries built with Kysely once and compiled once per dialect, then executed with
// new parameters on every call. Building and compiling a query with Kysely costs tens of
// microseconds per request (operation nodes, freezes, the compiler's visitor) for SQL text that
// never changes; the hot read and write paths declare their queries with `prepared` instead.
// Repositories stay the only SQL code: they still write every query with the query builder.
import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './executor.ts';
import { directSqlite, nameStatement } from './database.ts';

type Param = string | number | null;

/** Where a compiled parameter comes from: a named argument, or a constant of the query itself. */
type Slot = { name: string } | { value: unknown };

interface Compiled {
  readonly sql: string;
  readonly slots: readonly Slot[];
}

// A placeholder no real value can equal: it names the argument it stands for.
const MARK = '\u0000lightbox-param\u0000';

/** An object whose every property is the placeholder of the argument of that name. */
const placeholders: Record<string, Param> = new Proxy({}, { get: (_target, name) => `${MARK}${String(name)}` });

export interface PreparedQuery<P extends Record<string, Param>, R> {
  /** Every row, on the database or on a transaction. */
  all(db: Executor, params: P): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Executor, params: P): Promise<R | undefined>;
  /** Runs a statement for its effect; the number of rows it changed. */
  run(db: Executor, params: P): Promise<number>;
}

/**
 * Declares a query whose SQL text depends on nothing but its dialect. `build` receives stand-ins
 * for the arguments: it must use each as a plain value (a where value, a limit, an inserted
 * value), never to choose the query's shape (no `if`, no arrays spread into `in (…)`), since it
 * runs once per dialect, not per call.
 *
 * On SQLite, a call made on the database itself (not a transaction) while no transaction is open
 * on the connection runs the statement at once (better-sqlite3 is synchronous, so it is atomic
 * with respect to every other request and sees only committed data); so does a call made by the
 * group of writes that holds the connection (src/mechanisms/writes/write-group.ts). Otherwise, and always on
 * PostgreSQL, the compiled SQL goes through Kysely's executor, which waits for the connection
 * (SQLite) or takes one from the pool and runs inside the caller's transaction when given one.
 */
export function prepared<P extends Record<string, Param>, R>(
  build: (db: Executor, params: P) => Compilable<R>,
): PreparedQuery<P, R> {
  // Keyed by the dialect's adapter, which a transaction shares with its database.
  const byAdapter = new WeakMap<object, Compiled>();

  function compiled(db: Executor): Compiled {
    const adapter = db.getExecutor().adapter;
    let found = byAdapter.get(adapter);
    if (found === undefined) {
      const { sql, parameters } = build(db, placeholders as P).compile();
      const slots = parameters.map((value): Slot => {
        if (typeof value === 'string' && value.startsWith(MARK)) return { name: value.slice(MARK.length) };
        if (typeof value === 'string' && value.includes(MARK)) {
          throw new Error(`prepared query: an argument was transformed, not passed as a value: ${sql}`);
        }
        return { value };
      });
      found = { sql, slots };
      byAdapter.set(adapter, found);
      nameStatement(sql);
    }
    return found;
  }

  function args(slots: readonly Slot[], params: P): unknown[] {
    const out = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i += 1) {
      const slot = slots[i] as Slot;
      out[i] = 'name' in slot ? params[slot.name] : slot.value;
    }
    return out;
  }

  async function execute(db: Executor, params: P): Promise<{ rows: R[]; changes: number }> {
    const { sql, slots } = compiled(db);
    const values = args(slots, params);
    const direct = directSqlite(db);
    if (direct !== undefined && !direct.inTransaction) {
      const statement = direct.prepare(sql);
      if (statement.reader) return { rows: statement.all(values) as R[], changes: 0 };
      return { rows: [], changes: statement.run(values).changes };
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(sql, values));
    return { rows: result.rows, changes: Number(result.numAffectedRows ?? 0n) };
  }

  return {
    all: async (db, params) => (await execute(db, params)).rows,
    first: async (db, params) => (await execute(db, params)).rows[0],
    run: async (db, params) => (await execute(db, params)).changes,
  };
}

/** Shapes kept compiled per query; past it, a new shape is compiled for its call alone. */
const MAX_SHAPES = 256;

/**
 * A query whose shape is one of a few (the columns a PATCH sets, say): one prepared query per
 * shape, declared on its first use. `shape` must name everything the query's SQL depends on.
 */
export function preparedShapes<S extends string, P extends Record<string, Param>, R>(
  build: (shape: S) => (db: Executor, params: P) => Compilable<R>,
): (shape: S) => PreparedQuery<P, R> {
  const queries = new Map<S, PreparedQuery<P, R>>();
  return (shape) => {
    let query = queries.get(shape);
    if (query === undefined) {
      query = prepared(build(shape));
      if (queries.size < MAX_SHAPES) queries.set(shape, query);
    }
    return query;
  };
}
