// docs/api.md §31: the staging columns upgrade in place (existing media are not staged and name no
// original) and down() removes them, on either dialect.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0600-watermark-logo';
const THIS = '2026-12-09-0200-virtual-staging';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('existing media are not staged and name no original; down() removes both columns', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'a@x.test', 'a@x.test', '!', ${t}, ${t})`.execute(db);
  await sql`insert into listings (id, account_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', '1 Road', 'active', ${t}, ${t})`.execute(db);
  await sql`insert into media (id, account_id, listing_id, kind, filename, content_type, size, sha256, position, storage_key, created_at)
            values ('med_01A', 'acc_01A', 'lst_01A', 'photo', 'a.jpg', 'image/jpeg', 1, ${'0'.repeat(64)}, 1, 'k', ${t})`.execute(
    db,
  );
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const { rows } = await sql<{
    virtually_staged: number;
    original_media_id: string | null;
  }>`select virtually_staged, original_media_id from media`.execute(db);
  assert.deepEqual(
    rows.map((r) => [Number(r.virtually_staged as unknown), r.original_media_id]),
    [[0, null]],
  );
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const columns = (await db.introspection.getTables()).find((x) => x.name === 'media')?.columns ?? [];
  assert.ok(!columns.some((c) => c.name === 'virtually_staged' || c.name === 'original_media_id'));
  assert.ok(columns.some((c) => c.name === 'hidden'));
});
