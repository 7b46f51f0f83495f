import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { AccountsTable } from '../../db/schema.ts';

export type AccountRow = Selectable<AccountsTable>;

export async function insertAccount(db: Executor, row: Insertable<AccountsTable>): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccountByEmail(db: Executor, emailNormalized: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email_normalized', '=', emailNormalized).executeTakeFirst();
}

export async function findAccount(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every account, oldest first (the one made at setup leads). */
export async function listAccounts(db: Executor): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
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
  values: { name: string; sender_name: string | null; updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('accounts').set(values).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function updatePasswordHash(db: Executor, id: string, passwordHash: string, now: string): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).execute();
}
