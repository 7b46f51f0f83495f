// docs/api.md §32: the kit music column upgrades in place (existing studios have none, null: silent
// videos) and down() removes it, on either dialect.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0600-watermark-logo';
const THIS = '2026-12-09-0400-kit-music';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('an existing studio has no music (null); down() removes the column', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'a@x.test', 'a@x.test', '!', ${t}, ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const { rows } = await sql<{ kit_music_key: string | null }>`select kit_music_key from accounts`.execute(db);
  assert.deepEqual(rows, [{ kit_music_key: null }]);
  await sql`update accounts set kit_music_key = 'acc_01A/music-mp3-x'`.execute(db);
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const columns = (await db.introspection.getTables()).find((x) => x.name === 'accounts')?.columns ?? [];
  assert.ok(!columns.some((c) => c.name === 'kit_music_key'));
  assert.ok(columns.some((c) => c.name === 'watermark_logo_key'));
});
