// Migration 2026-12-08-0300 (docs/api.md §29, online payment): the Stripe settings and handled
// Checkout sessions, unique by session and by event, the pay links' key; down() takes them away
// and up() again works (on SQLite and, with DATABASE_URL, PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-08-0120-photo-analysis';
const THIS = '2026-12-08-0300-stripe';

let upgrade: Upgrade;
before(async () => {
  upgrade = await startUpgrade();
});
after(() => upgrade.stop());

test('stripe_checkouts refuses a second row of a session or an event; down() and up() again', async () => {
  const { migrator, deps } = upgrade;
  const db = deps.db.kysely;
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'Ana@X.test', 'ana@x.test', '!', ${t}, ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const insert = (session: string, event: string) =>
    sql`insert into stripe_checkouts (session_id, event_id, account_id, invoice_id, created_at)
        values (${session}, ${event}, 'acc_01A', 'ivc_1', ${t}) on conflict do nothing`.execute(db);
  await insert('cs_1', 'evt_1');
  await insert('cs_1', 'evt_2');
  await insert('cs_2', 'evt_1');
  const rows = (await sql<{ n: number | string }>`select count(*) as n from stripe_checkouts`.execute(db)).rows;
  assert.equal(Number(rows[0]?.n), 1);
  const key = await sql<{ value: string }>`select value from instance_secrets where name = 'pay_link_key'`.execute(db);
  assert.match(key.rows[0]?.value ?? '', /^[A-Za-z0-9_-]{43}$/);

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const left = await sql<{ value: string }>`select value from instance_secrets where name = 'pay_link_key'`.execute(db);
  assert.equal(left.rows.length, 0);
  await assert.rejects(sql`select 1 from stripe_accounts`.execute(db));
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
});
