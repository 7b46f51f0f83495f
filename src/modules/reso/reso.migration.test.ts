// docs/api.md §33: media.modified_at upgrades in place (an existing photo's is its created_at), its
// triggers move it from then on, and down() removes the column and the triggers, on either dialect.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0600-watermark-logo';
const THIS = '2026-12-09-0500-reso-media';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test("an existing photo's stamp is its created_at, then moves with its caption; down() undoes it", async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'a@x.test', 'a@x.test', '!', ${t}, ${t})`.execute(db);
  await sql`insert into listings (id, account_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', '1 Road', 'active', ${t}, ${t})`.execute(db);
  await sql`insert into media (id, account_id, listing_id, kind, filename, content_type, size, sha256, position,
              storage_key, created_at)
            values ('med_01A', 'acc_01A', 'lst_01A', 'photo', 'a.jpg', 'image/jpeg', 1, 'x', 1, 'k', ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const stamp = async () =>
    (await sql<{ modified_at: string }>`select modified_at from media`.execute(db)).rows[0]?.modified_at ?? '';
  assert.equal(await stamp(), t);
  await sql`update media set caption = 'Front'`.execute(db);
  assert.ok((await stamp()) > t);
  const moved = await stamp();
  await sql`update media set crc32 = 7`.execute(db);
  assert.equal(await stamp(), moved);
  await sql`update listings set mls_number = 'MLS-1'`.execute(db);
  assert.ok((await stamp()) > moved);
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const columns = (await db.introspection.getTables()).find((x) => x.name === 'media')?.columns ?? [];
  assert.ok(!columns.some((c) => c.name === 'modified_at'));
  await sql`update media set caption = 'Back'`.execute(db);
});

test("2026-12-09-0600: a pay-to-unlock invoice leaving open moves its gallery's stamps; down() undoes it", async () => {
  const NEXT = '2026-12-09-0600-reso-unlock';
  const db = deps.db.kysely;
  assert.equal((await migrator.migrateTo(NEXT)).error, undefined);
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into invoices (id, account_id, number, listing_id, client_id, status, subtotal, discount,
              tax_rate_bps, tax, total, currency, pay_to_unlock, created_at, updated_at)
            values ('inv_01A', 'acc_01A', '1', 'lst_01A', 'cli_01A', 'open', 1, 0, 0, 0, 1, 'USD', 1, ${t}, ${t}),
                   ('inv_01B', 'acc_01A', '2', 'lst_01A', 'cli_01A', 'open', 1, 0, 0, 0, 1, 'USD', 0, ${t}, ${t})`.execute(
    db,
  );
  const stamp = async () =>
    (await sql<{ modified_at: string }>`select modified_at from media`.execute(db)).rows[0]?.modified_at ?? '';
  const start = await stamp();
  await sql`update invoices set status = 'paid' where id = 'inv_01B'`.execute(db);
  assert.equal(await stamp(), start, 'an invoice that never locked moves nothing');
  await sql`update invoices set amount_paid = 1 where id = 'inv_01A'`.execute(db);
  assert.equal(await stamp(), start, 'a part payment keeps it locked');
  await sql`update invoices set status = 'paid' where id = 'inv_01A'`.execute(db);
  const moved = await stamp();
  assert.ok(moved > start);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  await sql`update invoices set status = 'open' where id = 'inv_01A'`.execute(db);
  await sql`update invoices set status = 'void' where id = 'inv_01A'`.execute(db);
  assert.equal(await stamp(), moved, 'no trigger after down()');
});
