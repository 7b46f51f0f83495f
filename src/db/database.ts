// The dialect choice lives here and nowhere else: SQLite (embedded default, WAL)
// or PostgreSQL, selected by the configuration.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** Answers when the database can run a query. */
  ping(): Promise<void>;
  destroy(): Promise<void>;
}

/** SQL text -> the name of its server-side prepared statement (PostgreSQL). */
const statementNames = new Map<string, string>();

/**
 * Marks a fixed SQL text (src/db/prepared.ts: the hot paths' queries) to run on PostgreSQL as a
 * named statement: each pooled connection parses and plans it once, then only binds and runs
 * it. Unnamed, every call is parsed and planned again: most of PostgreSQL's CPU time on the
 * list endpoint, whose queries run in a tenth of a millisecond. Results are the same either way;
 * only PostgreSQL's choice between a custom and a generic plan changes, per its plan_cache_mode.
 */
export function nameStatement(text: string): void {
  // A named statement's result columns are fixed when a connection prepares it: with `*`, a column
  // added by another node's migration breaks this node ("cached plan must not change result type").
  if (/\bselect\s+\*|\.\*|\breturning\s+\*/i.test(text)) {
    throw new Error(`a prepared query must name its columns, not select *: ${text}`);
  }
  if (!statementNames.has(text)) {
    statementNames.set(text, `lbx_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
  }
}

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** A new pooled client runs the named SQL texts as named statements, whoever calls it (Kysely included). */
function runNamedStatements(client: pg.PoolClient): void {
  const target = client as unknown as { query: QueryFn };
  const query: QueryFn = target.query.bind(client);
  target.query = (config, values, callback) => {
    const name = typeof config === 'string' ? statementNames.get(config) : undefined;
    if (name === undefined || typeof values === 'function') return query(config, values, callback);
    return query({ name, text: config, values }, callback);
  };
}

/** Distinct SQL texts kept prepared; the app has a few dozen, plus `in (?, ?, …)` variants. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * better-sqlite3 as Kysely sees it, but with statements reused by SQL text. Kysely's SQLite
 * driver prepares every query again (parse and plan each time, and garbage for each request):
 * reusing them measured 1.3x on the list endpoint and removed a p99 tail. Reuse is safe because
 * better-sqlite3 runs a statement to completion synchronously (all, run); only an open iterator
 * keeps one busy, and then a fresh statement is prepared. The wrapper exposes no way to change a
 * statement's modes (raw, pluck, safeIntegers), so a cached statement always behaves as new.
 */
export function withStatementCache(
  sqlite: SQLite.Database,
  size = STATEMENT_CACHE_SIZE,
): { close(): void; prepare(text: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached !== undefined && !cached.busy) return cached;
      const statement = sqlite.prepare(text);
      if (cached === undefined) {
        // Oldest first out. A hit costs one lookup (no recency bookkeeping); the app has far
        // fewer distinct statements than the bound, so only `in (?, ?, …)` variants cycle, and a
        // hot statement pushed out is prepared once more and kept again.
        cache.set(text, statement);
        if (cache.size > size) cache.delete(cache.keys().next().value as string);
      }
      return statement;
    },
  };
}

/** The SQLite connection behind a database, for statements run without Kysely (src/db/prepared.ts). */
export interface DirectSqlite {
  /** True while a transaction is open on the connection (then only Kysely's executor may use it). */
  readonly inTransaction: boolean;
  prepare(text: string): SQLite.Statement;
}

// Only the root Kysely instance of a SQLite database is here: a transaction object never is.
const direct = new WeakMap<object, DirectSqlite>();

export const directSqlite = (kysely: object): DirectSqlite | undefined => direct.get(kysely);

/**
 * While `holder` (a Kysely instance bound to the connection, src/mechanisms/writes/write-group.ts) holds the SQLite
 * connection and runs a transaction on it, its statements may run directly too: `release` when
 * it lets the connection go, after which it is an ordinary executor again.
 */
export function lendDirectSqlite(root: object, holder: object): { release(): void } {
  const handle = direct.get(root);
  if (handle === undefined) return { release: () => undefined };
  // For the holder the open transaction is its own: nobody else's statements can be under way.
  direct.set(holder, { inTransaction: false, prepare: (text) => handle.prepare(text) });
  return { release: () => void direct.delete(holder) };
}

// COUNT(*) and other bigints arrive as JS numbers; our counts stay far below 2^53.
const bigintsAsNumbers = new pg.TypeOverrides();
bigintsAsNumbers.setTypeParser(pg.types.builtins.INT8, Number);

export function openDatabase(database: Config['database']): Db {
  if (database.kind === 'sqlite') {
    fs.mkdirSync(path.dirname(database.file), { recursive: true });
    const sqlite = new SQLite(database.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // Statement and savepoint journals in memory (decisions/0018, 7): a write's savepoint, and each
    // statement that may fail half way, keep the first copy of every page they change; past 64 KiB
    // SQLite spilled them to a temporary file, written on every write. Sorts still spill to disk.
    sqlite.pragma('temp_store = MEMORY');
    const statements = withStatementCache(sqlite);
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    direct.set(kysely, {
      get inTransaction() {
        return sqlite.inTransaction;
      },
      prepare: (text) => statements.prepare(text),
    });
    return {
      kysely,
      dialect: 'sqlite',
      ping: async () => {
        await sql`select 1`.execute(kysely);
      },
      destroy: () => kysely.destroy(),
    };
  }
  const pool = new pg.Pool({
    connectionString: database.url,
    max: 10,
    connectionTimeoutMillis: 5000,
    types: bigintsAsNumbers,
  });
  pool.on('connect', runNamedStatements);
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely,
    dialect: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    destroy: () => kysely.destroy(),
  };
}
