// Seeds one size for `npm run bench`: 100 accounts (one holding 90% of the galleries), clients in
// proportion, some assignments and some media, through a bulk path that keeps every invariant the
// services keep (see data.ts for the rows; afterBulkSeed for the derived data).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../../src/config.ts';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createAccountsService } from '../../src/modules/accounts/accounts.service.ts';
import { afterBulkLoad } from '../../src/mechanisms/counts/counts.service.ts';
import { hashPassword } from '../../src/modules/accounts/password.ts';
import {
  CLIENT_COLUMNS,
  idMaker,
  LISTING_COLUMNS,
  makeClient,
  makeListing,
  makeMedia,
  MEDIA_COLUMNS,
  TINY_PNG,
} from './data.ts';
import { clockOf } from '../../src/lib/clock.ts';
import { mulberry32 } from '../../test/support/prng.ts';

export const BIG_ACCOUNT_EMAIL = 'bench-big@lightbox.invalid';
export const PASSWORD = 'a long benchmark password';
const ACCOUNTS = 100;
const BATCH = 5000;
const SAMPLE = 1000;
/** Coprime with SAMPLE, so rotating (client, gallery) pairs for assign rarely repeat a pair. */
const CLIENT_SAMPLE = 997;
const DAY = 86_400_000;

export interface Seeded {
  galleries: number;
  clients: number;
  media: number;
  assigned: number;
  bigAccountId: string;
  bigAccountGalleries: number;
  bigAccountClients: number;
  /** Galleries of the big account, spread over its history (get, assign). */
  galleryIds: string[];
  /** Clients of the big account, those with galleries first (get client, assign). */
  clientIds: string[];
  seconds: number;
  countsRecomputed: boolean;
}

type Row = Record<string, unknown>;

interface BulkWriter {
  insert(table: string, columns: readonly string[], rows: Row[]): Promise<void>;
  close(): Promise<void>;
}

function sqliteWriter(file: string): BulkWriter {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const statements = new Map<string, SQLite.Statement>();
  return {
    insert(table, columns, rows) {
      let statement = statements.get(table);
      if (statement === undefined) {
        statement = sqlite.prepare(
          `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
        );
        statements.set(table, statement);
      }
      const prepared = statement;
      // One transaction per batch: a prepared insert per row costs a few microseconds.
      sqlite.transaction(() => {
        for (const row of rows) prepared.run(columns.map((c) => row[c]));
      })();
      return Promise.resolve();
    },
    close() {
      sqlite.close();
      return Promise.resolve();
    },
  };
}

const PG_TYPES: Record<string, string> = {
  beds: 'float8',
  baths: 'float8',
  sqft: 'float8',
  media_count: 'int4',
  hidden: 'int4',
  width: 'int4',
  height: 'int4',
  position: 'int4',
  size: 'int8',
};

async function postgresWriter(url: string): Promise<BulkWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async insert(table, columns, rows) {
      // One statement per batch: a column of values per parameter, spread back into rows by unnest.
      const casts = columns.map((c, i) => `$${i + 1}::${PG_TYPES[c] ?? 'text'}[]`).join(', ');
      await client.query(`insert into ${table} (${columns.join(', ')}) select * from unnest(${casts})`, [
        ...columns.map((c) => rows.map((row) => row[c])),
      ]);
    },
    async close() {
      await client.end();
    },
  };
}

/**
 * Everything derived from the rows that the services maintain as they write: the maintained
 * counts, rewritten from the rows, and the client search index, merged for fast reads.
 */
export async function afterBulkSeed(db: Db, log: (line: string) => void): Promise<boolean> {
  const report = await afterBulkLoad(db);
  log(`recomputed counts (${String(report.counters.length)} counters rewritten) and merged the search index`);
  return true;
}

/** Seeds `galleries` galleries into a fresh database (SQLite file or empty PostgreSQL database). */
export async function seed(
  config: Config,
  galleries: number,
  log: (line: string) => void,
  now = Date.now(),
): Promise<Seeded> {
  const started = performance.now();
  let db = openDatabase(config.database);
  await migrateToLatest(db);
  // The heavy account goes through the service (as `lightbox accounts create` would); the other
  // 99 share one password hash computed by the same function, to save 99 scrypt runs.
  const big = await createAccountsService({ db, clock: clockOf(() => now - 3 * 365 * DAY - DAY) }).create({
    name: 'Big Studio',
    email: BIG_ACCOUNT_EMAIL,
    password: PASSWORD,
  });
  await db.destroy();
  const passwordHash = await hashPassword(PASSWORD);
  const writer =
    config.database.kind === 'sqlite' ? sqliteWriter(config.database.file) : await postgresWriter(config.database.url);
  const rand = mulberry32(galleries);
  const start = now - 3 * 365 * DAY;
  const span = 3 * 365 * DAY - 3_600_000;
  const iso = (ms: number): string => new Date(ms).toISOString();

  const accountIds: string[] = [big.id];
  const newAccountId = idMaker('acc');
  const accounts: Row[] = [];
  for (let a = 1; a < ACCOUNTS; a++) {
    const at = iso(start - DAY + a * 1000);
    const id = newAccountId(Date.parse(at));
    accountIds.push(id);
    const email = `studio-${a}@lightbox.invalid`;
    accounts.push({ id, name: `Studio ${a}`, email, email_normalized: email, password_hash: passwordHash, sender_name: null, created_at: at, updated_at: at }); // prettier-ignore
  }
  await writer.insert('accounts', Object.keys(accounts[0] ?? {}), accounts);

  // Nine in ten rows belong to the heavy account; the rest go round the other 99.
  const owner = (n: number): string =>
    n % 10 === 0 ? (accountIds[1 + ((n / 10) % (ACCOUNTS - 1))] ?? big.id) : big.id;

  // Clients: one per nine galleries, so the heavy account has 100k at 1M galleries.
  const clientCount = Math.ceil(galleries / 9);
  const clientsOf = new Map<string, string[]>();
  const newClientId = idMaker('cli');
  for (let from = 0; from < clientCount; from += BATCH) {
    const rows: Row[] = [];
    for (let n = from; n < Math.min(clientCount, from + BATCH); n++) {
      const ms = start + Math.floor((n * span) / clientCount);
      const account = owner(n);
      const row = makeClient(rand, newClientId(ms), account, n, iso(ms));
      let list = clientsOf.get(account);
      if (list === undefined) clientsOf.set(account, (list = []));
      list.push(row.id);
      rows.push(row as unknown as Row);
    }
    await writer.insert('clients', CLIENT_COLUMNS, rows);
  }

  // Galleries: 30% assigned to a client of their account created by then; 1 in 100 has a photo.
  const newListingId = idMaker('lst');
  const newMediaId = idMaker('med');
  const assignedBig = new Set<string>();
  const galleryIds: string[] = [];
  const mediaKeys: string[] = [];
  let assigned = 0;
  let bigGalleries = 0;
  const every = Math.max(1, Math.floor((galleries * 0.9) / SAMPLE));
  for (let from = 0; from < galleries; from += BATCH) {
    const listings: Row[] = [];
    const media: Row[] = [];
    for (let n = from; n < Math.min(galleries, from + BATCH); n++) {
      const ms = start + Math.floor((n * span) / galleries);
      const at = iso(ms);
      const account = owner(n);
      const own = clientsOf.get(account) ?? [];
      const known = Math.max(1, Math.floor((own.length * n) / galleries));
      const clientId = own.length > 0 && rand() < 0.3 ? (own[Math.floor(rand() * known)] ?? null) : null;
      const withMedia = n % 100 === 1;
      const row = makeListing(rand, newListingId(ms), account, clientId, withMedia ? 1 : 0, at);
      listings.push(row);
      if (clientId !== null) assigned++;
      if (withMedia) {
        const m = makeMedia(newMediaId(ms), account, row.id, at);
        media.push(m);
        mediaKeys.push(m.storage_key as string);
      }
      if (account === big.id) {
        if (bigGalleries++ % every === 0 && galleryIds.length < SAMPLE) galleryIds.push(row.id);
        if (clientId !== null) assignedBig.add(clientId);
      }
    }
    await writer.insert('listings', LISTING_COLUMNS, listings);
    if (media.length > 0) await writer.insert('media', MEDIA_COLUMNS, media);
  }
  await writer.close();

  // Every media row has its bytes, where the local storage keeps them (decision 0002's invariant).
  if (config.media.storage.kind !== 'local') throw new Error('the bench seeds local media storage only');
  const mediaDir = config.media.storage.dir;
  for (const key of mediaKeys) {
    const file = path.join(mediaDir, ...key.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, TINY_PNG);
  }

  db = openDatabase(config.database);
  let countsRecomputed: boolean;
  try {
    countsRecomputed = await afterBulkSeed(db, log);
    // Autovacuum would analyze the bulk-loaded tables a little later; without statistics the
    // planner picks scans for the first minutes. SQLite databases the app builds are never
    // analyzed, so neither is the bench's.
    if (db.dialect === 'postgres') await sql`analyze`.execute(db.kysely);
  } finally {
    await db.destroy();
  }

  const bigClients = clientsOf.get(big.id) ?? [];
  const withGalleries = bigClients.filter((id) => assignedBig.has(id));
  const others = bigClients.filter((id) => !assignedBig.has(id));
  const clientIds = [...withGalleries, ...others].slice(0, CLIENT_SAMPLE);
  return {
    galleries,
    clients: clientCount,
    media: mediaKeys.length,
    assigned,
    bigAccountId: big.id,
    bigAccountGalleries: bigGalleries,
    bigAccountClients: bigClients.length,
    galleryIds,
    clientIds,
    seconds: (performance.now() - started) / 1000,
    countsRecomputed,
  };
}
