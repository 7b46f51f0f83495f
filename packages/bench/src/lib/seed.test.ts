// The bench's bulk seed (seed.ts, data.ts) writes rows straight into the schema, so nothing but
// this test notices when a migration changes what a row must hold. It seeds a small size through
// the same path as `npm run bench` (lightbox migrate, accounts create, bulk insert, doctor --fix)
// and checks what the product says about the result: `lightbox doctor --fix` within the seed
// finds every maintained count, the search index and the stored media exact once the counts are
// rewritten (else it exits 1 and the seed throws), and the API serves the heavy account's
// galleries and clients with the totals the seed reports. On PostgreSQL when DATABASE_URL is set.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { benchEnv, call, cleanup, lightboxCli, startServe } from './procs.ts';
import { createPgDatabase, dropPgDatabase } from './pg.ts';
import { BIG_ACCOUNT_EMAIL, seed } from './seed.ts';

const GALLERIES = 300;

test('the bench seed leaves data that lightbox doctor finds exact and the API serves', async () => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-seed-'));
  const database = process.env.DATABASE_URL === undefined ? undefined : `lightbox_bench_seed_test_${process.pid}`;
  after(async () => {
    await cleanup();
    if (database !== undefined) await dropPgDatabase(database);
    await rm(work, { recursive: true, force: true });
  });
  const env = benchEnv(work, path.join(work, 'data'), 'warn', {
    ...(database === undefined ? {} : { DATABASE_URL: await createPgDatabase(database) }),
  });

  const lines: string[] = [];
  const seeded = await seed(env, GALLERIES, (line) => lines.push(line));
  assert.equal(seeded.galleries, GALLERIES);
  assert.equal(seeded.clients, Math.ceil(GALLERIES / 9));
  assert.equal(seeded.media, 3, 'one gallery in 100 has a photo');
  assert.ok(seeded.bigAccountGalleries >= GALLERIES * 0.85, `heavy account: ${seeded.bigAccountGalleries}`);
  assert.ok(seeded.galleryIds.length > 0 && seeded.clientIds.length > 0);
  assert.match(lines.join('\n'), /lightbox doctor --fix: .*repaired \d+ difference/);

  const key = (await lightboxCli(['keys', 'create', '--account', BIG_ACCOUNT_EMAIL, '--name', 'test'], env)).stdout.trim(); // prettier-ignore
  const { port } = await startServe(env, path.join(work, 'serve.log'));
  const listings = await call(port, 'GET', '/v1/listings?limit=1', key);
  assert.equal(listings.status, 200, listings.text);
  assert.equal((JSON.parse(listings.text) as { pagination: { total: number } }).pagination.total, seeded.bigAccountGalleries); // prettier-ignore
  const clients = await call(port, 'GET', '/v1/clients?limit=1', key);
  assert.equal(clients.status, 200, clients.text);
  assert.equal((JSON.parse(clients.text) as { pagination: { total: number } }).pagination.total, seeded.bigAccountClients); // prettier-ignore
  const gallery = await call(port, 'GET', `/v1/listings/${seeded.galleryIds[0] ?? ''}`, key);
  assert.equal(gallery.status, 200, gallery.text);
});
