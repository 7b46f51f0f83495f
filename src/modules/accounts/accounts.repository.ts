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

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}
