// Measures what decisions/0005 rests on, on one large account: COUNT(*) against the maintained
// count, list pages 1 and 1000 (with their totals), client search latency, and the doctor check.
// Not the benchmark suite (that is `npm run bench`): a quick look at the data layer alone.
//
//   node scripts/measure-counts-search.ts [--galleries 500000] [--clients 100000]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/measure-counts-search.ts
//
// On PostgreSQL it creates a scratch database next to the one named and drops it at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createServices } from '../src/services.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { closeDeps, createDeps } from '../src/deps.ts';
import { listListings } from '../src/modules/listings/listings.repository.ts';
import { readCount } from '../src/mechanisms/counts/counts.repository.ts';
import { checkCounts } from '../src/mechanisms/counts/counts.service.ts';
import { createTestDatabase } from '../test/support/test-app.ts';
import { plausibleClient, seedClients, seedListings } from '../test/support/seed.ts';

const { values } = parseArgs({
  options: { galleries: { type: 'string', default: '500000' }, clients: { type: 'string', default: '100000' } },
});
const GALLERIES = Number(values.galleries);
const CLIENTS = Number(values.clients);

/** Median and 95th percentile of `runs` timed calls, in milliseconds (after a few warm-ups). */
async function time(fn: () => Promise<unknown>, runs = 200): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < Math.min(5, runs); i += 1) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(runs / 2)] ?? 0, p95: samples[Math.floor(runs * 0.95)] ?? 0 };
}

const rows: [string, string, string][] = [];
const report = (what: string, t: { p50: number; p95: number }): void => {
  rows.push([what, t.p50.toFixed(3), t.p95.toFixed(3)]);
};

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-measure-'));
const database = await createTestDatabase();
const deps = createDeps(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...database.env }));
try {
  await migrateToLatest(deps.db);
  const services = createServices(deps);
  const db = deps.db.kysely;
  const big = await services.accounts.create({
    name: 'Big',
    email: 'big@studio.test',
    password: 'correct horse battery',
  });
  const small = await services.accounts.create({
    name: 'Small',
    email: 's@studio.test',
    password: 'correct horse battery',
  });
  let t = Date.now();
  await seedListings(deps.db, big.id, GALLERIES);
  await seedListings(deps.db, small.id, Math.ceil(GALLERIES / 10));
  const clients = Array.from({ length: CLIENTS }, (_, i) => plausibleClient(i));
  await seedClients(deps.db, big.id, clients);
  await seedClients(
    deps.db,
    small.id,
    Array.from({ length: Math.ceil(CLIENTS / 10) }, (_, i) => plausibleClient(i)),
  );
  if (deps.db.dialect === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
  console.log(`${deps.db.dialect}: seeded ${GALLERIES} galleries and ${CLIENTS} clients in ${Date.now() - t} ms`);

  const count = (status?: 'active') => {
    let q = db
      .selectFrom('listings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', big.id);
    if (status !== undefined) q = q.where('status', '=', status);
    return q.executeTakeFirstOrThrow();
  };
  report(`COUNT(*) galleries of the account (${GALLERIES})`, await time(() => count(), 20));
  report(`COUNT(*) galleries, status=active (${Math.round(GALLERIES / 3)})`, await time(() => count('active'), 20));
  report('maintained count: galleries', await time(() => readCount(db, big.id, 'listings'), 2000));
  report(
    'maintained count: galleries, status=active',
    await time(() => readCount(db, big.id, 'listings:active'), 2000),
  );
  report('page 1 query (20 rows)', await time(() => listListings(db, big.id, {}, { limit: 20, offset: 0 }), 2000));
  report(
    'page 1000 query (OFFSET 19,980)',
    await time(() => listListings(db, big.id, {}, { limit: 20, offset: 19_980 })),
  );
  report(
    'page 1000 query, status=active',
    await time(() => listListings(db, big.id, { status: 'active' }, { limit: 20, offset: 19_980 })),
  );
  report('list service page 1 (rows + total)', await time(() => services.listings.list(big.id, {}), 2000));
  report('list service page 1000 (rows + total)', await time(() => services.listings.list(big.id, { page: 1000 })));

  // Search: what a person types, rare to common; every answer includes its exact total.
  const search = (term: string) => services.clients.list(big.id, { search: term });
  const someone = (i: number): string => plausibleClient(i).name.split(' ').slice(1).join(' ').toLowerCase();
  let next = 0;
  const picks = Array.from({ length: 400 }, (_, i) => (i * 7919) % CLIENTS);
  report(
    'search: one client by surname and suffix (1 match)',
    await time(() => search(someone(picks[next++ % 400] ?? 0)), 400),
  );
  report('search: an email (1 match)', await time(() => search(plausibleClient(picks[next++ % 400] ?? 0).email), 400));
  for (const term of ['lindqvist 1a', 'hana okafor', 'studio42.', 'zzqx', 'whitfield', 'ka', 'x']) {
    const total = (await search(term)).pagination.total;
    report(
      `search ${JSON.stringify(term)} (${total} matches)`,
      await time(() => search(term), term.length < 3 || total > 5000 ? 20 : 200),
    );
  }
  t = Date.now();
  const check = await checkCounts(deps.db);
  console.log(`doctor check: ${check.ok ? 'ok' : 'MISMATCH'} in ${Date.now() - t} ms`);

  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(`${'what'.padEnd(width)}  p50 ms   p95 ms`);
  for (const [what, p50, p95] of rows) console.log(`${what.padEnd(width)}  ${p50.padStart(7)}  ${p95.padStart(7)}`);
} finally {
  await closeDeps(deps);
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
}
