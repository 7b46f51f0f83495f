// Migration 2026-12-07-1200 (docs/api.md §28): every client there before it gets a portal token of
// its own (32 URL-safe characters, unique), galleries get `tours` (none), and down() takes both
// away (on SQLite and, with DATABASE_URL, PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-12-07-1000-page-view-versions';
const THIS = '2026-12-07-1200-portals-and-tours';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('existing clients get unique portal tokens, galleries no tours; down() removes both', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'Ana@X.test', 'ana@x.test', '!', ${t}, ${t})`.execute(db);
  // More than one batch of the backfill (500).
  for (let i = 0; i < 1201; i += 400) {
    const n = Math.min(400, 1201 - i);
    const rows = Array.from({ length: n }, (_, j) => {
      const k = i + j;
      return sql`(${`cli_${k}`}, 'acc_01A', 'C', 'c', ${`c${k}@x.test`}, ${`c${k}@x.test`}, ${t}, ${t})`;
    });
    await sql`insert into clients (id, account_id, name, name_normalized, email, email_normalized, created_at, updated_at)
              values ${sql.join(rows)}`.execute(db);
  }
  await sql`insert into listings (id, account_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', '1 Main St', 'active', ${t}, ${t})`.execute(db);

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const tokens = (await sql<{ portal_token: string | null }>`select portal_token from clients`.execute(db)).rows;
  assert.equal(tokens.length, 1201);
  assert.ok(tokens.every((r) => r.portal_token !== null && /^[A-Za-z0-9_-]{32}$/.test(r.portal_token)));
  assert.equal(new Set(tokens.map((r) => r.portal_token)).size, 1201, 'each client its own');
  const listing = (await sql<{ tours: string | null }>`select tours from listings`.execute(db)).rows[0];
  assert.equal(listing?.tours, null);
  // The token is unique: a second client cannot be given the same one.
  const first = tokens[0]?.portal_token ?? '';
  await assert.rejects(sql`update clients set portal_token = ${first} where id = 'cli_1'`.execute(db));

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  await assert.rejects(sql`select portal_token from clients`.execute(db));
  await assert.rejects(sql`select tours from listings`.execute(db));
  assert.equal((await migrator.migrateTo(THIS)).error, undefined, 'and up again');
});
