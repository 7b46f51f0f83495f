import type { Insertable, Selectable } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { forUpdate } from '../../db/locking.ts';
import type { AccountsTable } from '../../db/schema.ts';

export type AccountRow = Selectable<AccountsTable>;

/** A studio as the services hand it out (its row without the secrets and the normalised email). */
export interface Account {
  id: string;
  name: string;
  email: string;
  sender_name: string | null;
  /** ISO 4217 (docs/api.md §29). */
  currency: string;
  created_at: string;
  updated_at: string;
  /** false for a studio's test account (docs/api.md §20). */
  livemode: boolean;
}

export async function insertAccount(db: Executor, row: Insertable<AccountsTable>): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccountByEmail(db: Executor, emailNormalized: string): Promise<AccountRow | undefined> {
  // A test account is no one's to sign in to (docs/api.md §20).
  return db
    .selectFrom('accounts')
    .selectAll()
    .where('email_normalized', '=', emailNormalized)
    .where('live_account_id', 'is', null)
    .executeTakeFirst();
}

/** The account's row, locked until the transaction ends (PostgreSQL; SQLite has one writer). */
export async function lockAccount(db: Executor, dialect: Dialect, id: string): Promise<AccountRow | undefined> {
  return forUpdate(dialect, db.selectFrom('accounts').selectAll().where('id', '=', id)).executeTakeFirst();
}

export async function findAccount(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every studio, oldest first (the one made at setup leads); test accounts are not studios. */
export async function listAccounts(db: Executor): Promise<AccountRow[]> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where('live_account_id', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** A studio's test account (docs/api.md §20), if it has one yet. */
export async function findTestAccount(db: Executor, liveAccountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('live_account_id', '=', liveAccountId).executeTakeFirst();
}

/**
 * Makes the studio's test account unless it exists (two first test requests may race: the unique
 * index on live_account_id keeps one). Its name and sender name follow the studio's (updateStudio);
 * its normalized email is no address, and its password hash verifies nothing, so no one signs in
 * to it or resets its password.
 */
export async function insertTestAccount(db: Executor, live: AccountRow, id: string, now: string): Promise<void> {
  await db
    .insertInto('accounts')
    .values({
      id,
      name: live.name,
      email: live.email,
      email_normalized: `test-mode:${live.id}`,
      password_hash: '!',
      sender_name: live.sender_name,
      currency: live.currency,
      created_at: now,
      updated_at: now,
      live_account_id: live.id,
    })
    .onConflict((oc) => oc.column('live_account_id').doNothing())
    .execute();
}

/** Deletes the test account row: every row of its data goes with it (foreign keys cascade). */
export async function deleteTestAccount(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('accounts').where('id', '=', id).where('live_account_id', 'is not', null).execute();
}

/** Whether any account exists: cheaper than a count, and all the setup rule needs. */
export async function hasAnyAccount(db: Executor): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Fails with a unique violation when a setup has already happened (or is committing now). */
export async function insertSetupMarker(db: Executor, accountId: string, now: string): Promise<void> {
  await db.insertInto('setup_marker').values({ id: 'first-account', account_id: accountId, created_at: now }).execute();
}

export async function updateStudio(
  db: Executor,
  id: string,
  values: { name: string; sender_name: string | null; currency?: string; updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('accounts').set(values).where('id', '=', id).executeTakeFirst();
  // The studio's test account signs its emails with the same names (docs/api.md §20) and
  // counts in the same currency (docs/api.md §29).
  await db.updateTable('accounts').set(values).where('live_account_id', '=', id).execute();
  return Number(result.numUpdatedRows) > 0;
}

/** docs/api.md §30: the studio's stored room order (JSON), null while it keeps the default. */
export async function findRoomOrder(db: Executor, id: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('accounts').select('room_order').where('id', '=', id).executeTakeFirst();
  return row?.room_order;
}

export async function updateRoomOrder(
  db: Executor,
  id: string,
  values: { room_order: string | null; updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('accounts').set(values).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
