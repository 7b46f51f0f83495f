// The pay-to-unlock migration (docs/api.md §29) up and down on a database with photos: up adds
// `mark` (null on every variant made before) and the index the lock's query uses; down removes the
// previews (their bytes through the cleanup ledger) and their jobs, and leaves the photos' own
// variants as they were.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import type { MediaVariantsTable } from '../../db/schema.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0120-photo-analysis';
const THIS = '2026-12-08-0200-pay-to-unlock';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

const t = '2026-01-01T00:00:00.000Z';
const variant = (name: MediaVariantsTable['name']) => ({
  media_id: 'med_1',
  name,
  account_id: 'acc_A',
  listing_id: 'lst_1',
  storage_key: `k_med_1-${name}`,
  content_type: 'image/jpeg',
  width: 1,
  height: 1,
  size: 1,
  created_at: t,
});

test('up adds the mark, null before; down removes the previews and their jobs only', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  await db
    .insertInto('accounts')
    .values({
      id: 'acc_A',
      name: 'A',
      email: 'a@x.test',
      email_normalized: 'a@x.test',
      password_hash: 'x',
      created_at: t,
      updated_at: t,
    }) // prettier-ignore
    .execute();
  await db
    .insertInto('listings')
    .values({ id: 'lst_1', account_id: 'acc_A', address: '1 Old Road', status: 'active', created_at: t, updated_at: t })
    .execute();
  await db
    .insertInto('media')
    .values({
      id: 'med_1',
      account_id: 'acc_A',
      listing_id: 'lst_1',
      kind: 'photo',
      filename: 'a.jpg',
      content_type: 'image/jpeg',
      size: 1,
      sha256: 'x',
      width: null,
      height: null,
      position: 1,
      storage_key: 'k_med_1',
      variants_status: 'ready',
      crc32: null,
      created_at: t,
    }) // prettier-ignore
    .execute();
  for (const name of ['thumb', 'large', 'mls'] as const) {
    await db.insertInto('media_variants').values(variant(name)).execute();
  }

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const marks = await db.selectFrom('media_variants').select(['name', 'mark']).orderBy('name').execute();
  assert.deepEqual(marks, [
    { name: 'large', mark: null },
    { name: 'mls', mark: null },
    { name: 'thumb', mark: null },
  ]);
  for (const name of ['thumb_wm', 'large_wm'] as const) {
    await db
      .insertInto('media_variants')
      .values({ ...variant(name), mark: 'm' })
      .execute();
  }
  await db
    .insertInto('jobs')
    .values({
      id: 'job_wm',
      kind: 'media.watermark',
      account_id: 'acc_A',
      subject_id: 'med_1',
      group_key: null,
      run_at: t,
      attempts: 0,
      lease: null,
      last_error: null,
      created_at: t,
      updated_at: t,
    }) // prettier-ignore
    .execute();

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const left = await db.selectFrom('media_variants').select('name').orderBy('name').execute();
  assert.deepEqual(
    left.map((r) => r.name),
    ['large', 'mls', 'thumb'],
  );
  const ledger = await db.selectFrom('media_cleanup').select('storage_key').orderBy('storage_key').execute();
  assert.deepEqual(
    ledger.map((r) => r.storage_key),
    ['k_med_1-large_wm', 'k_med_1-thumb_wm'],
  );
  assert.equal((await db.selectFrom('jobs').select('id').execute()).length, 0);
  // And up again.
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
});
