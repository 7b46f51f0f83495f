// A migrated database made once for the migrations as they are, and copied for each test context:
// migrating a new database costs 0.1-0.2 s on SQLite and 0.4-0.5 s on PostgreSQL, copying one a
// few milliseconds. The template is named by a hash of the migrations, so a changed migration
// makes a new one; several test processes that want it at once make it once (a rename on SQLite,
// an advisory lock on PostgreSQL).
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Twelve hex digits of a hash of every migration's name and text. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS).sort()) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(path.join(MIGRATIONS, name)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

let hashOnce: string | undefined;
const templateHash = (): string => (hashOnce ??= migrationsHash());

async function migrate(database: { DATA_DIR: string; DATABASE_URL?: string }): Promise<void> {
  const config = loadConfig({ PUBLIC_URL: 'http://127.0.0.1:3000', ...database });
  const db = openDatabase(config.database);
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/** Writes a migrated SQLite database to `file` (which must not exist yet). */
export async function copySqliteTemplate(file: string): Promise<void> {
  const template = path.join(os.tmpdir(), `lightbox-template-${templateHash()}.db`);
  if (!existsSync(template)) {
    // Made aside and renamed into place: a process that sees the template sees it whole.
    const dir = path.join(os.tmpdir(), `lightbox-template-${randomBytes(6).toString('hex')}`);
    await migrate({ DATA_DIR: dir, DATABASE_URL: `sqlite:${path.join(dir, 'lightbox.db')}` }).catch((err: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    });
    // Closing the last connection checkpointed the WAL into the file: it holds the whole schema.
    renameSync(path.join(dir, 'lightbox.db'), template);
    rmSync(dir, { recursive: true, force: true });
  }
  copyFileSync(template, file);
}

const TEMPLATE_PREFIX = 'lbx_tmpl_';

/**
 * The name of a migrated PostgreSQL database to give `CREATE DATABASE ... TEMPLATE`; made when
 * missing (older templates are dropped then). `admin` is connected to the server's default database.
 */
export async function postgresTemplate(admin: pg.Client, baseUrl: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${templateHash()}`;
  const exists = async (): Promise<boolean> =>
    (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (await exists()) return name;
  // One process makes it; the others wait here and find it made.
  await admin.query('select pg_advisory_lock(hashtext($1))', [TEMPLATE_PREFIX]);
  try {
    if (await exists()) return name;
    const building = `${TEMPLATE_PREFIX}building_${randomBytes(4).toString('hex')}`;
    await admin.query(`create database ${building}`);
    const url = new URL(baseUrl);
    url.pathname = `/${building}`;
    try {
      await migrate({ DATA_DIR: os.tmpdir(), DATABASE_URL: url.toString() });
      await admin.query(`alter database ${building} rename to ${name}`);
    } catch (err) {
      await admin.query(`drop database if exists ${building} with (force)`);
      throw err;
    }
    const stale = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like 'lbx\\_tmpl\\_%' and datname <> $1`,
      [name],
    );
    for (const { datname } of stale.rows) {
      // A template in use by another run is dropped by a later one.
      await admin.query(`drop database if exists ${datname}`).catch(() => undefined);
    }
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock(hashtext($1))', [TEMPLATE_PREFIX]);
  }
}
