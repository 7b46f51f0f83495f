import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { likeContains } from '../../db/like.ts';
import type { ClientsTable } from '../../db/schema.ts';

export type ClientRow = Selectable<ClientsTable>;

export const CLIENT_ITEM_COLUMNS = ['id', 'name', 'email', 'phone', 'company', 'created_at'] as const;
export type ClientItemRow = Pick<ClientRow, (typeof CLIENT_ITEM_COLUMNS)[number]>;

export async function insertClient(db: Executor, row: Insertable<ClientsTable>): Promise<ClientRow> {
  return db.insertInto('clients').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findClient(db: Executor, accountId: string, id: string): Promise<ClientRow | undefined> {
  return db
    .selectFrom('clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface ClientFilter {
  /** Lower-cased substring of the name or the email. */
  search?: string | undefined;
}

function filtered(db: Executor, accountId: string, filter: ClientFilter) {
  let q = db.selectFrom('clients').where('account_id', '=', accountId);
  const term = filter.search;
  if (term !== undefined && term !== '') {
    q = q.where((eb) => eb.or([likeContains('name_normalized', term), likeContains('email_normalized', term)]));
  }
  return q;
}

export async function listClients(
  db: Executor,
  accountId: string,
  filter: ClientFilter,
  page: { limit: number; offset: number },
): Promise<ClientItemRow[]> {
  return filtered(db, accountId, filter)
    .select(CLIENT_ITEM_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countClients(db: Executor, accountId: string, filter: ClientFilter): Promise<number> {
  const row = await filtered(db, accountId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function updateClient(
  db: Executor,
  accountId: string,
  id: string,
  patch: Updateable<ClientsTable>,
): Promise<ClientRow | undefined> {
  return db
    .updateTable('clients')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteClient(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('clients')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every client of the account, for the dashboard's overview. */
export async function countClientsOfAccount(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}
