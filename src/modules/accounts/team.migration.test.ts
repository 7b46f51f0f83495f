// An existing database upgrades in place (docs/api.md §27): every studio's sign-in becomes its
// owner with the same email and password hash, its sessions and reset links name that owner,
// and a test account gets nobody. down() gives the owner's password back to the account.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-11-27-2300-video-variants';
const THIS = '2026-11-28-1000-team';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('studios get their owner; sessions and links name them; down() restores the password', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  const later = '2026-01-02T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'Ana@X.test', 'ana@x.test', 'scrypt$a', ${t}, ${t})`.execute(db);
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at,
              live_account_id)
            values ('acc_01T', 'A', 'Ana@X.test', 'test-mode:acc_01A', '!', ${t}, ${t}, 'acc_01A')`.execute(db);
  await sql`insert into sessions (token_hash, account_id, csrf_token, created_at, last_seen_at, expires_at)
            values ('s1', 'acc_01A', 'c', ${t}, ${t}, ${later})`.execute(db);
  await sql`insert into password_resets (token_hash, account_id, created_at, expires_at)
            values ('r1', 'acc_01A', ${t}, ${later})`.execute(db);

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const users = await db.selectFrom('users').selectAll().execute();
  assert.deepEqual(
    users.map((u) => [u.id, u.account_id, u.email, u.email_normalized, u.role, u.password_hash, u.totp_enabled]),
    [['usr_01A', 'acc_01A', 'Ana@X.test', 'ana@x.test', 'owner', 'scrypt$a', 0]],
  );
  assert.equal((await db.selectFrom('sessions').select('user_id').executeTakeFirst())?.user_id, 'usr_01A');
  const key = await db.selectFrom('instance_secrets').select('value').where('name', '=', 'totp_secret_key').execute();
  assert.equal(Buffer.from(key[0]?.value ?? '', 'base64url').length, 32, 'a 256-bit key seals TOTP secrets');
  assert.equal((await db.selectFrom('password_resets').select('user_id').executeTakeFirst())?.user_id, 'usr_01A');

  // A member joins and the owner's password changes; going down keeps the owner's, not the member's.
  await sql`insert into users (id, account_id, email, email_normalized, role, password_hash, totp_enabled,
              created_at, updated_at)
            values ('usr_01M', 'acc_01A', 'm@x.test', 'm@x.test', 'member', 'scrypt$m', 0, ${t}, ${t})`.execute(db);
  await sql`update users set password_hash = 'scrypt$new' where id = 'usr_01A'`.execute(db);
  await sql`insert into sessions (token_hash, account_id, csrf_token, created_at, last_seen_at, expires_at, user_id)
            values ('s2', 'acc_01A', 'c', ${t}, ${t}, ${later}, 'usr_01M')`.execute(db);

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const { rows } = await sql<{ id: string; password_hash: string }>`select id, password_hash from accounts
                                                                     order by id`.execute(db);
  assert.deepEqual(rows, [
    { id: 'acc_01A', password_hash: 'scrypt$new' },
    { id: 'acc_01T', password_hash: '!' },
  ]);
  const { rows: sessions } = await sql<{ token_hash: string }>`select token_hash from sessions`.execute(db);
  assert.deepEqual(sessions, [{ token_hash: 's1' }], "the member's session went with the team");
  assert.ok(!(await db.introspection.getTables()).some((x) => x.name === 'users'));
});
