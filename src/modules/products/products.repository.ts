// Products' rows (docs/api.md §29), every query scoped by account.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import type { ProductsTable } from '../../db/schema-invoices.ts';
import type { Position } from '../../lib/cursor.ts';

export type ProductRow = Selectable<ProductsTable>;

export async function insertProduct(db: Executor, row: Insertable<ProductsTable>): Promise<void> {
  await db.insertInto('products').values(row).execute();
}

export async function findProduct(db: Executor, accountId: string, id: string): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findProducts(db: Executor, accountId: string, ids: string[]): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('products').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

export async function updateProduct(
  db: Executor,
  accountId: string,
  id: string,
  changes: Updateable<ProductsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('products')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteProduct(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('products')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Newest first (docs/api.md §4), by page or after a cursor's position. */
export async function listProducts(
  db: Executor,
  accountId: string,
  page: { fetch: number; offset: number; after: Position | undefined },
): Promise<ProductRow[]> {
  let query = db.selectFrom('products').selectAll().where('account_id', '=', accountId);
  if (page.after !== undefined) query = query.where(keysetAfter('created_at', 'id', true, page.after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.fetch).offset(page.offset).execute();
}

export async function countProducts(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
