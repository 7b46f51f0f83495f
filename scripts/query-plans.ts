// node scripts/query-plans.ts [galleries] > plans.md: the query plans of docs/api.md §19's lists, as
// the repositories write them, on a database holding `galleries` galleries (default 1,000,000) in
// one account (and a few in others). SQLite by default (a temporary file); PostgreSQL when
// DATABASE_URL says so (a database of its own is created and dropped). The queries are captured
// from the real repository functions (a logging Kysely on the same database) and explained with
// their parameters: EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL after ANALYZE.
// docs/query-plans.md holds its output. With `--time`, each query is also run 25 times as
// captured and its median time printed (the query's own cost, without HTTP). PLANS_KEEP=<SQLite
// file or PostgreSQL database name> keeps the seeded database and reuses it on the next run.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Db } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { Database } from '../src/db/schema.ts';
import { listingRows, queryListings, type ListingQuery } from '../src/modules/listings/listings.list.repository.ts';
import { queryClients } from '../src/modules/clients/clients.list.repository.ts';

const args = process.argv.slice(2);
const timed = args.includes('--time');
const galleries = Number(args.find((a) => !a.startsWith('--')) ?? 1_000_000);
const keep = process.env.PLANS_KEEP;
const base = process.env.DATABASE_URL;
const postgres = base?.startsWith('postgres') === true;
const ACCOUNT = 'acc_plans';

let drop: () => Promise<void>;
let config: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
if (postgres) {
  const name = keep ?? `lbx_plans_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  config = { kind: 'postgres', url: url.toString() };
  drop = async () => {
    if (keep !== undefined) return;
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
} else if (keep !== undefined) {
  config = { kind: 'sqlite', file: keep };
  drop = () => Promise.resolve();
} else {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lbx-plans-'));
  config = { kind: 'sqlite', file: path.join(dir, 'plans.db') };
  drop = () => Promise.resolve(rmSync(dir, { recursive: true, force: true }));
}

const db: Db = openDatabase(config);
try {
  await migrateToLatest(db);
  const seeded = await db.kysely.selectFrom('accounts').select('id').where('id', '=', ACCOUNT).executeTakeFirst();
  if (seeded === undefined) {
    const started = Date.now();
    await seed(db);
    process.stderr.write(`seeded ${galleries} galleries in ${Math.round((Date.now() - started) / 1000)} s\n`);
    await sql`analyze`.execute(db.kysely);
  }

  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect:
      config.kind === 'sqlite'
        ? new SqliteDialect({ database: new SQLite(config.file) })
        : new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url, max: 1 }) }),
    log: (event) => {
      if (event.level === 'query') captured.push(event.query);
    },
  });
  const at = new Date(Date.parse('2026-11-01T00:00:00.000Z') + galleries * 30_000).toISOString();
  const page: { fetch: number; offset: number; after: { value: string; id: string } | undefined } = {
    fetch: 21,
    offset: 0,
    after: undefined,
  };
  const deep = { fetch: 21, offset: 0, after: { value: at, id: 'lst_zzzzzzzzzzzzzzzzzzzzzz' } };
  const newest = { column: 'created_at', desc: true } as const;
  const cases: [string, () => Promise<unknown>][] = [];
  // Every query the repository runs for the list: the page, and its total unless a maintained
  // count gives it (no filter but `status`, as the service does).
  const listings = (title: string, q: ListingQuery, p: typeof page = page): void => {
    const counted = Object.keys(q).every((k) => k === 'sort' || k === 'status');
    cases.push([
      title,
      () =>
        counted ? listingRows(logging, db.dialect, ACCOUNT, q, p) : queryListings(logging, db.dialect, ACCOUNT, q, p),
    ]);
  };
  listings('galleries, sort=-created_at, by cursor (deep)', { sort: newest }, deep);
  listings('galleries, sort=updated_at, by cursor (deep)', { sort: { column: 'updated_at', desc: false } }, deep);
  listings(
    'galleries, sort=-updated_at, status=active',
    { status: 'active', sort: { column: 'updated_at', desc: true } },
    page,
  );
  listings('galleries, client_id=cli_...', { clientId: 'cli_plans_9', sort: newest });
  listings('galleries, client_id=none, sort=updated_at', {
    clientId: null,
    sort: { column: 'updated_at', desc: false },
  });
  listings('galleries, mls_number=MLS-123456', { mlsNumber: 'mls-123456', sort: newest });
  listings('galleries, search=12340 harbour (a rare term)', { search: '12340 harbour', sort: newest });
  listings('galleries, search=harbour (one gallery in 20)', { search: 'harbour', sort: newest });
  listings('galleries, created_since', { createdSince: at, sort: newest });
  listings('galleries, updated_since, sort=updated_at (incremental sync)', {
    updatedSince: at,
    sort: { column: 'updated_at', desc: false },
  });
  listings('galleries, updated_since (all match), sort=-updated_at', {
    updatedSince: '2000-01-01T00:00:00.000Z',
    sort: { column: 'updated_at', desc: true },
  });
  cases.push([
    'clients, sort=-updated_at, by cursor',
    () => queryClients(logging, db.dialect, ACCOUNT, { sort: { column: 'updated_at', desc: true } }, deep),
  ]);
  cases.push([
    'clients, created_since',
    () => queryClients(logging, db.dialect, ACCOUNT, { createdSince: at, sort: newest }, page),
  ]);

  const out: string[] = [
    `## ${config.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${galleries.toLocaleString('en')} galleries in one account`,
    '',
  ];
  for (const [title, run] of cases) {
    captured.length = 0;
    await run();
    for (const query of [...captured]) {
      const heading = /^select count\(\*\)/.test(query.sql) ? `${title}: its total` : title;
      await explainOne(heading, query);
    }
  }
  async function explainOne(title: string, query: CompiledQuery): Promise<void> {
    const explain = config.kind === 'sqlite' ? 'explain query plan ' : 'explain ';
    const plan = await logging.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw(explain + query.sql, [...query.parameters]),
    );
    const lines =
      config.kind === 'sqlite' ? plan.rows.map((r) => String(r.detail)) : plan.rows.map((r) => String(r['QUERY PLAN']));
    out.push(`### ${title}`, '', '```sql', query.sql, '```', '', '```', ...lines, '```', '');
    if (timed) {
      const ms: number[] = [];
      for (let i = 0; i < 25; i += 1) {
        const t = performance.now();
        await logging.executeQuery(CompiledQuery.raw(query.sql, [...query.parameters]));
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      out.push(`Median of 25 runs: ${(ms[12] ?? 0).toFixed(3)} ms`, '');
    }
  }
  await logging.destroy();
  process.stdout.write(out.join('\n'));
} finally {
  await db.destroy();
  await drop();
}

/** The account's galleries (a quarter of them assigned to 250 clients; one in 20 on Harbour Road). */
async function seed(db: Db): Promise<void> {
  const k = db.kysely;
  await k
    .insertInto('accounts')
    .values({
      id: ACCOUNT,
      name: 'Plans',
      email: 'plans@example.test',
      email_normalized: 'plans@example.test',
      password_hash: 'x',
      sender_name: null,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
    })
    .execute();
  const clients = 1000;
  await sql`
    insert into clients (id, account_id, name, name_normalized, email, email_normalized, phone, company, notes, created_at, updated_at)
    select 'cli_plans_' || n, ${ACCOUNT}, 'Client ' || n, 'client ' || n, 'c' || n || '@x.test', 'c' || n || '@x.test',
      null, null, null, ${'2026-11-01T00:00:00.000Z'}, ${'2026-11-01T00:00:00.000Z'}
    from ${series(clients)}
  `.execute(k);
  // created_at 30 s apart; updated_at a pseudo-random shuffle of the same range.
  const ts = (expr: string) =>
    db.dialect === 'sqlite'
      ? sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01T00:00:00Z', '+' || ((${expr}) * 30) || ' seconds')`)
      : sql.raw(
          `to_char((timestamp '2026-11-01' + ((${expr}) * interval '30 seconds')), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        );
  const batch = 100_000;
  for (let start = 0; start < galleries; start += batch) {
    const count = Math.min(batch, galleries - start);
    await sql`
      insert into listings (id, account_id, client_id, address, beds, baths, sqft, status, description, mls_number,
        media_count, cover_media_id, created_at, updated_at)
      select 'lst_plans_' || (n + ${sql.raw(String(start))}), ${ACCOUNT},
        case when (n + ${sql.raw(String(start))}) % 4 = 0 then 'cli_plans_' || (((n + ${sql.raw(String(start))}) % ${sql.raw(String(clients))}) + 1) else null end,
        (n + ${sql.raw(String(start))}) || case when (n + ${sql.raw(String(start))}) % 20 = 0 then ' Harbour Road' else ' Maple Street' end || ', Unit ' || ((n + ${sql.raw(String(start))}) % 97), 3, 2, 1200,
        case (n + ${sql.raw(String(start))}) % 3 when 0 then 'draft' when 1 then 'active' else 'archived' end,
        null, 'MLS-' || (n + ${sql.raw(String(start))}), 0, null,
        ${ts(`n + ${start}`)}, ${ts(`((n + ${start}) * 7919) % ${galleries}`)}
      from ${series(count)}
    `.execute(k);
  }
}

function series(n: number) {
  return db.dialect === 'sqlite'
    ? sql.raw(`(with recursive s(n) as (select 1 union all select n + 1 from s where n < ${n}) select n from s) as s`)
    : sql.raw(`generate_series(1::bigint, ${n}) as s(n)`);
}
