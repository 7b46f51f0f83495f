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
    if (failed === undefined && isUnavailable(result.error)) {
      throw new Error(`database unreachable: ${cause}`, { cause: result.error });
    }
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: result.error });
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
