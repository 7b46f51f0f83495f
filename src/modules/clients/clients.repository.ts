import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Dialect } from '../../db/database.ts';
import { clientMatches } from '../../db/search.ts';
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

const hasSearch = (filter: ClientFilter): filter is { search: string } =>
  filter.search !== undefined && filter.search !== '';

/** A page of the account's clients, newest first; with a search, through the search index. */
export async function listClients(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  filter: ClientFilter,
  page: { limit: number; offset: number },
): Promise<ClientItemRow[]> {
  if (!hasSearch(filter)) {
    return db
      .selectFrom('clients')
      .select(CLIENT_ITEM_COLUMNS)
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }
  // The page's ids first (from the index alone on SQLite), then only those rows are read.
  const ids = clientMatches(db, dialect, accountId, filter.search)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset);
  return db
    .selectFrom(ids.as('m'))
    .innerJoin('clients as c', 'c.id', 'm.id')
    .select(CLIENT_ITEM_COLUMNS.map((column) => `c.${column}` as const))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .execute();
}

/** How many of the account's clients match a search (counted through the search index). */
export async function countClientMatches(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  search: string,
): Promise<number> {
  const row = await db
    .selectFrom(clientMatches(db, dialect, accountId, search).as('m'))
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
