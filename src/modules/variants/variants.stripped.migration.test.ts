// An existing database upgrades in place (docs/api.md §25, issue 37 §3): a ready video made before
// the stripped copy existed (a poster, no web rendition) gets one media.variants job, so a running
// service makes the copy the unbranded page plays; a video with a web rendition, one still
// pending or failed, one already queued, and photos are left alone. down() removes the copies,
// their bytes through the cleanup ledger.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-07-1000-page-view-versions';
const THIS = '2026-12-07-1400-stripped-videos';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('ready videos with no web rendition get one job each; the rest are left alone; down() removes the copies', async () => {
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
    ['med_asis', 'video', 'ready', ['poster']],
    ['med_web', 'video', 'ready', ['poster', 'web']],
    ['med_queued', 'video', 'ready', ['poster']],
    ['med_pending', 'video', 'pending', []],
    ['med_failed', 'video', 'failed', []],
    ['med_photo', 'photo', 'ready', ['thumb', 'large', 'mls']],
  ] as const;
  for (const [i, [id, kind, status, variants]] of media.entries()) {
    await db
      .insertInto('media')
      .values({
        id,
        account_id: 'acc_A',
        listing_id: 'lst_1',
        kind,
        filename: `STUDIO-${id}`,
        content_type: kind === 'video' ? 'video/mp4' : 'image/jpeg',
        size: 1,
        sha256: 'x',
        width: null,
        height: null,
        position: i + 1,
        storage_key: `k_${id}`,
        variants_status: status,
        crc32: null,
        created_at: t,
      })
      .execute();
    for (const name of variants) {
      await db
        .insertInto('media_variants')
        .values({
          media_id: id,
          name,
          account_id: 'acc_A',
          listing_id: 'lst_1',
          storage_key: `k_${id}-${name}`,
          content_type: 'image/jpeg',
          width: 1,
          height: 1,
          size: 1,
          created_at: t,
        }) // prettier-ignore
        .execute();
    }
  }
  // Queued already (a remake, or a newer node during a rolling upgrade): not twice.
  for (const id of ['med_queued', 'med_pending']) {
    await db
      .insertInto('jobs')
      .values({
        id: `job_${id}`,
        kind: 'media.variants',
        account_id: 'acc_A',
        subject_id: id,
        group_key: null,
        run_at: t,
        attempts: 0,
        lease: null,
        last_error: null,
        created_at: t,
        updated_at: t,
      }) // prettier-ignore
      .execute();
  }
  const statuses = await db.selectFrom('media').select(['id', 'variants_status']).orderBy('id').execute();

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const jobs = await db.selectFrom('jobs').select(['id', 'kind', 'subject_id', 'account_id']).orderBy('subject_id').execute(); // prettier-ignore
  assert.deepEqual(
    jobs.map((j) => [j.kind, j.subject_id, j.account_id, j.id.startsWith('job_med_') ? 'before' : 'new']),
    [
      ['media.variants', 'med_asis', 'acc_A', 'new'],
      ['media.variants', 'med_pending', 'acc_A', 'before'],
      ['media.variants', 'med_queued', 'acc_A', 'before'],
    ],
  );
  // Still ready (the poster stays served) until the job replaces the variants.
  assert.deepEqual(await db.selectFrom('media').select(['id', 'variants_status']).orderBy('id').execute(), statuses);

  // The job has made the copy; going down removes it and hands its bytes to the cleanup ledger.
  await db
    .insertInto('media_variants')
    .values({
      media_id: 'med_asis',
      name: 'stripped',
      account_id: 'acc_A',
      listing_id: 'lst_1',
      storage_key: 'k_med_asis-stripped',
      content_type: 'video/mp4',
      width: 1,
      height: 1,
      size: 1,
      created_at: t,
    }) // prettier-ignore
    .execute();
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const left = await db.selectFrom('media_variants').select(['media_id', 'name']).where('media_id', '=', 'med_asis').execute(); // prettier-ignore
  assert.deepEqual(left, [{ media_id: 'med_asis', name: 'poster' }]);
  const ledger = await db.selectFrom('media_cleanup').select('storage_key').execute();
  assert.deepEqual(
    ledger.map((r) => r.storage_key),
    ['k_med_asis-stripped'],
  );
});
