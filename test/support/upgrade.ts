// The set-up of the upgrade tests (*.migration.test.ts): an empty test database (SQLite, or a
// fresh PostgreSQL one) and a Kysely Migrator over the repository's migrations/, so a test can
// migrate to the version before its migration, write rows as they were, then go up and down.
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator } from 'kysely/migration';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps, type Deps } from '../../src/deps.ts';
import { createTestDatabase } from './test-app.ts';

export interface Upgrade {
  /** Dependencies on the test database, which holds no tables until `migrator` runs. */
  deps: Deps;
  migrator: Migrator;
  /** Closes the dependencies, drops the database and removes the data directory. */
  stop: () => Promise<void>;
}

export async function startUpgrade(): Promise<Upgrade> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-upgrade-'));
  const database = await createTestDatabase();
  const deps = createDeps(loadConfig({ DATA_DIR: dataDir, ...database.env }));
  const migrator = new Migrator({
    db: deps.db.kysely,
    provider: new FileMigrationProvider({
      fs,
      path,
      migrationFolder: fileURLToPath(new URL('../../migrations', import.meta.url)),
    }),
  });
  return {
    deps,
    migrator,
    stop: async () => {
      await closeDeps(deps);
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
