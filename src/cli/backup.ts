// `lightbox backup DEST` and `lightbox restore SRC`. A backup is a data folder: DEST/lightbox.db,
// a consistent copy of the SQLite database made with SQLite's online backup while the service
// runs and writes (WAL included), and DEST/media, the local media storage's objects, less those
// the copied database does not know (uploaded after its copy). PostgreSQL and S3 keep their data
// elsewhere: the command says which tool backs them up (pg_dump, the bucket's versioning or
// replication) and copies what it can. `restore` puts a backup into an empty data folder.
import { cp, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { CommandError, describeParseError, EXIT_OK, UsageError, type CliIo, type Command } from './command.ts';

const DB_FILE = 'lightbox.db';
const MEDIA_DIR = 'media';

/** The entries of a folder; none when it does not exist. */
async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}

function parseOne(args: string[], name: string, flags: readonly string[] = []): { dir: string; flags: Set<string> } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    const options = Object.fromEntries(flags.map((f) => [f, { type: 'boolean' as const }]));
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(describeParseError(err));
  }
  const [dir, extra] = parsed.positionals;
  if (dir === undefined || dir.trim() === '') throw new UsageError(`missing ${name}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const on = new Set(
    Object.entries(parsed.values)
      .filter(([, v]) => v === true)
      .map(([k]) => k),
  );
  return { dir: path.resolve(dir), flags: on };
}

/** The redacted PostgreSQL URL a pg_dump line may show: no user, no password. */
function pgTarget(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export const backupCommand: Command = {
  name: 'backup',
  summary: 'Copy the database (SQLite, while it serves) and the media folder into a new folder',
  help: `Usage: lightbox backup DEST

Makes DEST (a new or empty folder) a copy of the data folder, safe while the
service runs and takes writes:
  DEST/lightbox.db   the SQLite database, copied with SQLite's online backup
                     (a consistent state, the write-ahead log included)
  DEST/media/        the local media storage's objects, less those the copied
                     database does not know (uploaded after its copy)
Restore it with 'lightbox restore DEST' into an empty data folder.

PostgreSQL (DATABASE_URL=postgres://...) is backed up with its own tools: the
command says the pg_dump line to run, and still copies local media. S3 media
(MEDIA_STORAGE=s3://...) are kept by the bucket's own versioning or replication:
the command says so, and still copies a SQLite database.

Exit status: 0 when the copy is made, 1 when it could not be, 2 for bad arguments.
`,
  async run(args, io: CliIo) {
    const { dir: dest } = parseOne(args, 'DEST');
    const config = loadConfig(io.env);
    if ((await entries(dest)).length > 0) {
      throw new CommandError(`${dest} is not empty: back up into a new or empty folder`);
    }
    await mkdir(dest, { recursive: true });
    const note = (line: string): void => void io.stderr.write(`${line}\n`);
    const made: string[] = [];

    if (config.database.kind === 'sqlite') {
      const source = config.database.file;
      if (!(await exists(source))) throw new CommandError(`no database at ${source}: nothing to back up`);
      const { default: SQLite } = await import('better-sqlite3');
      const db = new SQLite(source, { fileMustExist: true });
      try {
        db.pragma('busy_timeout = 5000');
        await db.backup(path.join(dest, DB_FILE));
      } finally {
        db.close();
      }
      made.push(`${DB_FILE}: the SQLite database (online backup of ${source})`);
      note(`database: copied ${source} to ${path.join(dest, DB_FILE)}`);
    } else {
      note(
        `database: PostgreSQL is backed up with its own tools, e.g. pg_dump --format=custom --file=${path.join(dest, 'lightbox.dump')} --dbname="$DATABASE_URL" (${pgTarget(config.database.url)}); restore it with pg_restore`,
      );
    }

    const storage = config.media.storage;
    if (storage.kind === 'local') {
      if (await exists(storage.dir)) {
        await cp(storage.dir, path.join(dest, MEDIA_DIR), { recursive: true, preserveTimestamps: true });
      } else {
        await mkdir(path.join(dest, MEDIA_DIR));
      }
      if (config.database.kind === 'sqlite') {
        const removed = await withBackupServices(io, dest, (services) => services.mediaCleanup.sweepOrphans());
        if (removed > 0) note(`media: left out ${removed} object(s) stored after the database was copied`);
      }
      made.push(`${MEDIA_DIR}/: the media storage (copied from ${storage.dir})`);
      note(`media: copied ${storage.dir} to ${path.join(dest, MEDIA_DIR)}`);
    } else {
      const where = `s3://${storage.bucket}${storage.prefix === '' ? '' : `/${storage.prefix}`}`;
      note(
        `media: ${where} is not copied: keep it with the bucket's own versioning or replication (or copy it, e.g. aws s3 sync ${where} ${path.join(dest, MEDIA_DIR)})`,
      );
    }
    await writeFile(
      path.join(dest, 'BACKUP.txt'),
      `Lightbox backup made ${new Date().toISOString()}\n\n${made.map((m) => `- ${m}`).join('\n')}\n` +
        (made.length < 2 ? '\nNot in this folder: see the notes the backup command printed.\n' : '') +
        `\nRestore into an empty data folder with: lightbox restore ${dest}\n`,
    );
    io.stdout.write(`${dest}\n`);
    return EXIT_OK;
  },
};

/** Runs `fn` with the services of the backup folder itself (its database, its media folder). */
async function withBackupServices<T>(
  io: CliIo,
  dest: string,
  fn: (services: import('../services.ts').Services) => Promise<T>,
): Promise<T> {
  const config = backupConfig(io, dest);
  const [deps, graph] = await Promise.all([import('../deps.ts'), import('../services.ts')]);
  const resources = deps.createDeps(config);
  try {
    return await fn(graph.createServices(resources));
  } finally {
    await deps.closeDeps(resources);
  }
}

/** The settings of a data folder laid out as a backup: its lightbox.db and media folder. */
function backupConfig(io: CliIo, dir: string): Config {
  return loadConfig({
    ...io.env,
    DATA_DIR: dir,
    DATABASE_URL: `sqlite:${path.join(dir, DB_FILE)}`,
    MEDIA_STORAGE: path.join(dir, MEDIA_DIR),
  });
}

export const restoreCommand: Command = {
  name: 'restore',
  summary: "Put a backup made by 'lightbox backup' into an empty data folder",
  help: `Usage: lightbox restore SRC [--force]

Copies a backup made by 'lightbox backup' (SRC/lightbox.db and SRC/media) to
where the settings say: the SQLite database (DATABASE_URL, or DATA_DIR/lightbox.db)
and the local media storage (MEDIA_STORAGE, or DATA_DIR/media). Stop the service
first. The data folder must be empty or absent; --force replaces the database
and media folder found there. Then check it with 'lightbox doctor'; the service
brings an older backup's schema up to date when it starts.

A PostgreSQL database is restored with pg_restore, and S3 media with the
bucket's own tools: the command refuses those settings and says so.

Options:
      --force  replace the database and media folder already there
  -h, --help   show this help
`,
  async run(args, io: CliIo) {
    const { dir: src, flags } = parseOne(args, 'SRC', ['force']);
    const config = loadConfig(io.env);
    if (config.database.kind !== 'sqlite') {
      throw new CommandError('DATABASE_URL is PostgreSQL: restore its dump with pg_restore, not lightbox restore');
    }
    const storage = config.media.storage;
    if (storage.kind !== 'local') {
      throw new CommandError(
        `MEDIA_STORAGE is s3://${storage.bucket}: restore the bucket with its own tools, then restore with MEDIA_STORAGE unset or a folder`,
      );
    }
    const backupDb = path.join(src, DB_FILE);
    if (!(await exists(backupDb)))
      throw new CommandError(`${src} holds no ${DB_FILE}: not a backup made by lightbox backup`);
    const target = config.database.file;
    const occupied = [
      ...(await entries(config.dataDir)).map((e) => path.join(config.dataDir, e)),
      ...[target, `${target}-wal`, `${target}-shm`].filter((f) => !f.startsWith(config.dataDir + path.sep)),
    ];
    const present = (await Promise.all(occupied.map(async (f) => ((await exists(f)) ? f : undefined)))).filter(
      (f): f is string => f !== undefined,
    );
    const mediaPresent = (await entries(storage.dir)).length > 0;
    if ((present.length > 0 || mediaPresent) && !flags.has('force')) {
      throw new CommandError(
        `${config.dataDir} is not empty (${path.basename(present[0] ?? storage.dir)}): restore into an empty data folder, or add --force to replace its database and media`,
      );
    }
    for (const f of [target, `${target}-wal`, `${target}-shm`]) await rm(f, { force: true });
    await rm(storage.dir, { recursive: true, force: true });
    await mkdir(path.dirname(target), { recursive: true });
    await cp(backupDb, target);
    const backupMedia = path.join(src, MEDIA_DIR);
    if (await exists(backupMedia)) await cp(backupMedia, storage.dir, { recursive: true, preserveTimestamps: true });
    else await mkdir(storage.dir, { recursive: true });
    // The copy is a whole SQLite file: prove it reads before saying so.
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(target, { fileMustExist: true });
    try {
      const check = db.pragma('integrity_check', { simple: true });
      if (check !== 'ok')
        throw new CommandError(`the restored database fails SQLite's integrity check: ${String(check)}`);
    } finally {
      db.close();
    }
    io.stderr.write(`restored ${src} into ${config.dataDir}; check it with 'lightbox doctor'\n`);
    return EXIT_OK;
  },
};
