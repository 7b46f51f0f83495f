// docs/api.md §31: the MLS migration upgrades in place (existing galleries have no profile) and
// down() removes its tables and the gallery's column, on either dialect.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0600-watermark-logo';
const THIS = '2026-12-09-0100-mls-profiles';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('an existing gallery has no profile; down() removes the tables and the column', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'a@x.test', 'a@x.test', '!', ${t}, ${t})`.execute(db);
  await sql`insert into listings (id, account_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', '1 Road', 'active', ${t}, ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const { rows } = await sql<{ mls_profile_id: string | null }>`select mls_profile_id from listings`.execute(db);
  assert.deepEqual(rows, [{ mls_profile_id: null }]);
  await sql`insert into mls_profiles (id, account_id, name, max_long_edge, min_long_edge, max_bytes, max_photos,
              forbid_text, forbid_qr_codes, forbid_people, first_photo_exterior, disclose_staging, created_at, updated_at)
            values ('mlp_01A', 'acc_01A', 'M', 2048, 1024, 10000000, 50, 1, 1, 1, 1, 1, ${t}, ${t})`.execute(db);
  await sql`update listings set mls_profile_id = 'mlp_01A'`.execute(db);
  await sql`insert into listing_compliance (listing_id, profile_id, account_id, status, checked_at)
            values ('lst_01A', 'mlp_01A', 'acc_01A', 'pass', ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const tables = await db.introspection.getTables();
  assert.ok(!tables.some((x) => x.name === 'mls_profiles' || x.name === 'listing_compliance'));
  const columns = tables.find((x) => x.name === 'listings')?.columns ?? [];
  assert.ok(!columns.some((c) => c.name === 'mls_profile_id'));
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
});
