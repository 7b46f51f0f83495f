// docs/api.md §29: the watermark logo column upgrades in place (existing studios keep the name,
// null) and down() removes it, on either dialect.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0500-room-order';
const THIS = '2026-12-08-0600-watermark-logo';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('an existing studio keeps the name (null); down() removes the column', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'a@x.test', 'a@x.test', '!', ${t}, ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const { rows } = await sql<{ watermark_logo_key: string | null }>`select watermark_logo_key from accounts`.execute(
    db,
  );
  assert.deepEqual(rows, [{ watermark_logo_key: null }]);
  await sql`update accounts set watermark_logo_key = 'acc_01A/logo-png-x'`.execute(db);
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const columns = (await db.introspection.getTables()).find((x) => x.name === 'accounts')?.columns ?? [];
  assert.ok(!columns.some((c) => c.name === 'watermark_logo_key'));
  assert.ok(columns.some((c) => c.name === 'room_order'));
});
