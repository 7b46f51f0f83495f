// An existing database upgrades in place (docs/api.md §25): videos uploaded before video variants
// existed become pending with one media.variants job each (none twice, documents untouched), so a
// running service makes their poster and web rendition by itself; down() gives them back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-11-27-1000-link-controls';
const THIS = '2026-11-27-2300-video-variants';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('videos from before become pending with one job each; documents and photos are left alone; down() undoes it', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
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
  const media = [
    ['med_v1', 'video', 'video/mp4', null],
    ['med_v2', 'video', 'video/webm', null],
    ['med_d', 'document', 'application/pdf', null],
    ['med_p', 'photo', 'image/jpeg', 'ready'],
  ] as const;
  for (const [i, [id, kind, type, status]] of media.entries()) {
    await db
      .insertInto('media')
      .values({
        id,
        account_id: 'acc_A',
        listing_id: 'lst_1',
        kind,
        filename: id,
        content_type: type,
        size: 1,
        sha256: 'x',
        width: null,
        height: null,
        position: i + 1,
        storage_key: `k_${id}`,
        variants_status: status,
        crc32: null,
        created_at: t,
      }) // prettier-ignore
      .execute();
  }
  // One video already has a job (queued by a newer node during a rolling upgrade): not twice.
  await db
    .insertInto('jobs')
    .values({
      id: 'job_x',
      kind: 'media.variants',
      account_id: 'acc_A',
      subject_id: 'med_v2',
      group_key: null,
      run_at: t,
      attempts: 0,
      lease: null,
      last_error: null,
      created_at: t,
      updated_at: t,
    }) // prettier-ignore
    .execute();

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const rows = await db.selectFrom('media').select(['id', 'variants_status']).orderBy('id').execute();
  assert.deepEqual(rows, [
    { id: 'med_d', variants_status: null },
    { id: 'med_p', variants_status: 'ready' },
    { id: 'med_v1', variants_status: 'pending' },
    { id: 'med_v2', variants_status: 'pending' },
  ]);
  const jobs = await db.selectFrom('jobs').select(['kind', 'subject_id', 'account_id']).orderBy('subject_id').execute();
  assert.deepEqual(jobs, [
    { kind: 'media.variants', subject_id: 'med_v1', account_id: 'acc_A' },
    { kind: 'media.variants', subject_id: 'med_v2', account_id: 'acc_A' },
  ]);

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const back = await db.selectFrom('media').select(['id', 'variants_status']).orderBy('id').execute();
  assert.deepEqual(back, [
    { id: 'med_d', variants_status: null },
    { id: 'med_p', variants_status: 'ready' },
    { id: 'med_v1', variants_status: null },
    { id: 'med_v2', variants_status: null },
  ]);
  assert.deepEqual(await db.selectFrom('jobs').select('id').execute(), []);
});
