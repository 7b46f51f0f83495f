// Seeds one size for `npm run bench`: 100 accounts (one holding 90% of the galleries), clients in
// proportion, some assignments and some media. 1M galleries one request at a time would take
// most of an hour, so the rows go straight into the empty schema in batches (data.ts shapes them
// as the services write them), and everything else goes through the `lightbox` command:
// `migrate` makes the schema, `accounts create` the heavy account (its password hash is reused
// for the other 99), and `doctor --fix` rewrites the maintained counts from the rows and then
// proves them, as it would after any import.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
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
import { mulberry32 } from '../../../../test/support/prng.ts';
import { lightboxCli } from './procs.ts';

export const BIG_ACCOUNT_EMAIL = 'bench-big@lightbox.invalid';
const PASSWORD = 'a long benchmark password';
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
  /** The heavy account's id and password hash, as `lightbox accounts create` stored them. */
  account(email: string): Promise<{ id: string; password_hash: string }>;
  /** What the services' own writes leave behind and a bulk insert does not (see finish()). */
  finish(): Promise<void>;
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
    account(email) {
      const row = sqlite.prepare('select id, password_hash from accounts where email_normalized = ?').get(email);
      if (row === undefined) return Promise.reject(new Error(`no account ${email}`));
      return Promise.resolve(row as { id: string; password_hash: string });
    },
    finish() {
      // The insert triggers fill the client search index a row at a time, in many small
      // segments; FTS5's optimize merges them, as the search index is after a rebuild.
      sqlite.exec("insert into clients_fts (clients_fts) values ('optimize')");
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
    async account(email) {
      const { rows } = await client.query<{ id: string; password_hash: string }>(
        'select id, password_hash from accounts where email_normalized = $1',
        [email],
      );
      const row = rows[0];
      if (row === undefined) throw new Error(`no account ${email}`);
      return row;
    },
    async finish() {
      // Autovacuum would vacuum and analyze the bulk-loaded tables a little later (PostgreSQL 13+
      // vacuums after inserts too): without statistics the planner picks scans, and without the
      // visibility map an index-only scan still reads every row's heap page. The bench measures
      // the settled database a studio runs on. (SQLite databases the app builds are never
      // analyzed, so neither is the bench's.)
      await client.query('vacuum analyze');
    },
    async close() {
      await client.end();
    },
  };
}

/** Seeds `galleries` galleries into a fresh database (SQLite file or empty PostgreSQL database). */
/** Where `lightbox` keeps its data for the environment `env` (the defaults of src/config.ts). */
function places(env: NodeJS.ProcessEnv): { database: { sqlite: string } | { url: string }; mediaDir: string } {
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const url = env.DATABASE_URL;
  const storage = env.MEDIA_STORAGE;
  if (storage?.startsWith('s3://') === true) throw new Error('the bench seeds local media storage only');
  return {
    database:
      url === undefined
        ? { sqlite: path.join(dataDir, 'lightbox.db') }
        : url.startsWith('sqlite:')
          ? { sqlite: path.resolve(url.slice('sqlite:'.length).replace(/^\/\//, '')) }
          : { url },
    mediaDir: storage === undefined ? path.join(dataDir, 'media') : path.resolve(storage),
  };
}

async function cli(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<string> {
  const result = await lightboxCli(args, env, input);
  if (result.code !== 0) throw new Error(`lightbox ${args.join(' ')}: exit ${String(result.code)}\n${result.stderr}${result.stdout}`); // prettier-ignore
  return result.stdout;
}

/** Seeds `galleries` galleries into the fresh database of `env` (`lightbox`'s environment). */
export async function seed(
  env: NodeJS.ProcessEnv,
  galleries: number,
  log: (line: string) => void,
  now = Date.now(),
): Promise<Seeded> {
  const started = performance.now();
  const { database, mediaDir } = places(env);
  await cli(['migrate'], env);
  await cli(['accounts', 'create', '--name', 'Big Studio', '--email', BIG_ACCOUNT_EMAIL], env, `${PASSWORD}\n`);
  const writer = 'sqlite' in database ? sqliteWriter(database.sqlite) : await postgresWriter(database.url);
  // The other 99 share the heavy account's password, so its hash too: 99 scrypt runs saved.
  const big = await writer.account(BIG_ACCOUNT_EMAIL);
  const passwordHash = big.password_hash;
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
      listings.push(row as unknown as Row);
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
  await writer.finish();
  await writer.close();

  // Every media row has its bytes, where the local storage keeps them (decision 0002's invariant).
  for (const key of mediaKeys) {
    const file = path.join(mediaDir, ...key.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, TINY_PNG);
  }

  // The counts the services maintain as they write, rewritten from the rows (and then checked).
  const doctor = (await cli(['doctor', '--fix'], env)).trim().split('\n');
  log(`lightbox doctor --fix: ${doctor.length} line(s), last: ${doctor.at(-1) ?? ''}`);
  const countsRecomputed = true;

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
