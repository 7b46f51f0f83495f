// The dialect choice lives here and nowhere else: SQLite (embedded default, WAL)
// or PostgreSQL, selected by the configuration.
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
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
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
