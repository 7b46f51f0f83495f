// Migration 2026-12-07-1000: a property page's view counter raises the account's views version,
// not its version; any other change to the row still raises the version; down() restores the
// one version for both (on SQLite and, with DATABASE_URL, PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-11-28-1000-team';
const THIS = '2026-12-07-1000-page-view-versions';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

const versionRow = async () =>
  (
    await sql<{
      version: number | string;
      views_version?: number | string;
    }>`select * from account_versions where account_id = 'acc_01A'`.execute(deps.db.kysely)
  ).rows[0];

const views = () =>
  sql`update property_pages set views = views + 1 where listing_id = 'lst_01A'`.execute(deps.db.kysely);
const retoken = (token: string) =>
  sql`update property_pages set token = ${token} where listing_id = 'lst_01A'`.execute(deps.db.kysely);

test('a page view raises the views version alone; down() makes it raise the version again', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'Ana@X.test', 'ana@x.test', '!', ${t}, ${t})`.execute(db);
  await sql`insert into listings (id, account_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', '1 Main St', 'active', ${t}, ${t})`.execute(db);
  await sql`insert into property_pages (listing_id, account_id, token, unbranded_token, published_at)
            values ('lst_01A', 'acc_01A', 'tok1', 'untok1', ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);

  const start = await versionRow();
  assert.equal(Number(start?.views_version), 0);
  await views();
  const viewed = await versionRow();
  assert.equal(Number(viewed?.version), Number(start?.version), 'a view leaves the version');
  assert.equal(Number(viewed?.views_version), 1);
  await retoken('tok2');
  const changed = await versionRow();
  assert.equal(Number(changed?.version), Number(start?.version) + 1, 'another change raises it');
  assert.equal(Number(changed?.views_version), 1);

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const down = await versionRow();
  assert.equal(down?.views_version, undefined, 'the column is gone');
  await views();
  assert.equal(Number((await versionRow())?.version), Number(down?.version) + 1);
});
