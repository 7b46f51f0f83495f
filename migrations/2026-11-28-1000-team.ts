// Frozen: never import application code here, never edit once released.
// docs/api.md §27: a team, and two-factor sign-in. A studio (account) has people (users), each
// with their own email, password and role; the owner is the account's existing sign-in, moved
// here so it keeps working. Sessions and reset links name the person they are for, so removing
// a member ends their sessions at once. Invitations, recovery codes and pending second-factor
// sign-ins hold only SHA-256 hashes of what the browser or the person holds.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    // One person, one sign-in: an email belongs to one team across the installation.
    .addColumn('email_normalized', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    // Sealed (AES-256-GCM, the deployment's totp_secret_key); set while setting up
    // (totp_enabled 0) and once on. Never shown after set-up.
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    // The last time step whose code was accepted: neither it nor an older one is accepted again.
    .addColumn('totp_last_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_account_idx').on('users').columns(['account_id', 'created_at']).execute();
  // Every studio's sign-in becomes its owner (a test account is no one's to sign in to).
  await sql`insert into users (id, account_id, email, email_normalized, role, password_hash, totp_enabled,
              created_at, updated_at)
            select 'usr_' || substr(id, 5), id, email, email_normalized, 'owner', password_hash, 0,
              created_at, updated_at
            from accounts where live_account_id is null`.execute(db);

  // No foreign key (SQLite could not drop the column again): removing a person deletes these rows
  // in the same transaction.
  for (const table of ['sessions', 'password_resets']) {
    await db.schema.alterTable(table).addColumn('user_id', 'text').execute();
    await sql`update ${sql.table(table)} set user_id = (
                select u.id from users u where u.account_id = ${sql.ref(`${table}.account_id`)} and u.role = 'owner')`.execute(
      db,
    );
    await db.schema.createIndex(`${table}_user_idx`).on(table).columns(['user_id']).execute();
  }

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('invitations_account_email_idx')
    .on('invitations')
    .columns(['account_id', 'email_normalized'])
    .unique()
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();

  // The key that seals TOTP secrets at rest: a row of users read alone (a log, an export)
  // opens nobody's second factor.
  await db
    .insertInto('instance_secrets')
    .values({ name: 'totp_secret_key', value: randomBytes(32).toString('base64url') })
    .execute();

  // A sign-in whose password was right and whose code is awaited (a cookie of its own holds it).
  await db.schema
    .createTable('two_factor_challenges')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('instance_secrets').where('name', '=', 'totp_secret_key').execute();
  for (const table of ['two_factor_challenges', 'recovery_codes', 'invitations']) {
    await db.schema.dropTable(table).execute();
  }
  for (const table of ['password_resets', 'sessions']) {
    // A member's sessions and links go: only the owner was there before.
    await sql`delete from ${sql.table(table)} where user_id in (select id from users where role <> 'owner')`.execute(
      db,
    );
    await db.schema.dropIndex(`${table}_user_idx`).execute();
    await db.schema.alterTable(table).dropColumn('user_id').execute();
  }
  // The owner's password, which may have changed since, goes back to the account.
  await sql`update accounts set password_hash = (
              select u.password_hash from users u where u.account_id = accounts.id and u.role = 'owner')
            where exists (select 1 from users u where u.account_id = accounts.id and u.role = 'owner')`.execute(db);
  await db.schema.dropTable('users').execute();
}
