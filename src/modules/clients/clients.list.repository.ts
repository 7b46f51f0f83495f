// GET /v1/clients with docs/api.md §19's filters, sorts and cursors, on the indexes (account_id,
// created_at, id) and (account_id, updated_at, id) (plans in docs/query-plans.md). The plain list
// and the plain search keep their own queries (clients.repository.ts).
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import { clientMatches } from '../../db/search.ts';
import type { Position } from '../../lib/cursor.ts';
import { CLIENT_ITEM_COLUMNS, type ClientItemRow } from './clients.repository.ts';

export interface ClientQuery {
  /** Lower-cased by the caller. */
  search?: string | undefined;
  createdSince?: string | undefined;
  updatedSince?: string | undefined;
  sort: { column: 'created_at' | 'updated_at'; desc: boolean };
}

export type ClientListRow = ClientItemRow & { updated_at: string };

function filtered(db: Executor, dialect: Dialect, accountId: string, q: ClientQuery) {
  let query = db.selectFrom('clients').where('account_id', '=', accountId);
  if (q.createdSince !== undefined) query = query.where('created_at', '>=', q.createdSince);
  if (q.updatedSince !== undefined) query = query.where('updated_at', '>=', q.updatedSince);
  if (q.search !== undefined) {
    const matches = clientMatches(db, dialect, accountId, q.search).clearSelect().select('m.id');
    query = query.where('id', 'in', matches);
  }
  return query;
}

export async function queryClients(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  q: ClientQuery,
  page: { fetch: number; offset: number; after: Position | undefined },
): Promise<ClientListRow[]> {
  const { column, desc } = q.sort;
  const direction = desc ? 'desc' : 'asc';
  let query = filtered(db, dialect, accountId, q).select([...CLIENT_ITEM_COLUMNS, 'updated_at']);
  if (page.after !== undefined) query = query.where(keysetAfter(column, 'id', desc, page.after));
  return query.orderBy(column, direction).orderBy('id', direction).limit(page.fetch).offset(page.offset).execute();
}

export async function countClients(db: Executor, dialect: Dialect, accountId: string, q: ClientQuery): Promise<number> {
  const row = await filtered(db, dialect, accountId, q)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
