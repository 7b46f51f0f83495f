import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator, type MigrationResultSet } from 'kysely/migration';
import type { Db } from './database.ts';
import { isUnavailable } from './errors.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface MigrationReport {
  applied: string[];
}

/** Brings the schema up to date. Safe to run concurrently: Kysely takes a lock. */
export async function migrateToLatest(db: Db): Promise<MigrationReport> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }),
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const cause = result.error instanceof Error ? result.error.message : 'unknown error';
    const missing = missingDatabase(result.error);
    if (missing !== undefined) {
      // PostgreSQL does not create the database the URL names: one line that says how.
      const quoted = `"${missing.replaceAll('"', '""')}"`;
      throw new Error(
        `database ${quoted} does not exist: create it (e.g. createdb ${quoted}, or in psql: CREATE DATABASE ${quoted};) and start again`,
        { cause: result.error },
      );
    }
    if (failed === undefined && isUnavailable(result.error)) {
      throw new Error(`database unreachable: ${cause}`, { cause: result.error });
    }
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: result.error });
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** The name of the database PostgreSQL says does not exist (SQLSTATE 3D000), if that is the error. */
function missingDatabase(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code !== '3D000' || typeof message !== 'string') return undefined;
  return /database "(.*)" does not exist/.exec(message)?.[1];
}
