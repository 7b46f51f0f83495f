// The property_pages rows (docs/api.md §25): one per published gallery, scoped by account.
import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';
import type { PropertyPagesTable } from '../../db/schema.ts';

export type PropertyPageRow = Selectable<PropertyPagesTable>;

// Every column, named, as listings.repository.ts explains: a named statement must not select `*`.
const PAGE_COLUMNS = Object.keys({
  listing_id: true,
  account_id: true,
  token: true,
  unbranded_token: true,
  published_at: true,
  views: true,
} satisfies Record<keyof PropertyPagesTable, true>) as (keyof PropertyPagesTable)[];

const pageOfQuery = prepared((db, p: { accountId: string; listingId: string }) =>
  db
    .selectFrom('property_pages')
    .select(PAGE_COLUMNS)
    .where('account_id', '=', p.accountId)
    .where('listing_id', '=', p.listingId),
);

export async function pageOf(db: Executor, accountId: string, listingId: string): Promise<PropertyPageRow | undefined> {
  return pageOfQuery.first(db, { accountId, listingId });
}

const byTokenQuery = prepared((db, p: { token: string }) =>
  db
    .selectFrom('property_pages')
    .select(PAGE_COLUMNS)
    .where((eb) => eb.or([eb('token', '=', p.token), eb('unbranded_token', '=', p.token)])),
);

/** The page a token opens (branded or unbranded), or undefined. */
export async function findByToken(db: Executor, token: string): Promise<PropertyPageRow | undefined> {
  return byTokenQuery.first(db, { token });
}

export async function insertPage(db: Executor, row: Omit<PropertyPageRow, 'views'>): Promise<void> {
  await db.insertInto('property_pages').values(row).execute();
}

/** Unpublishes; false when the gallery had no page. */
export async function deletePage(db: Executor, accountId: string, listingId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('property_pages')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A page load: one more view. Fenced by the token, so a page taken down meanwhile counts nothing. */
export async function countView(db: Executor, accountId: string, listingId: string, token: string): Promise<boolean> {
  const result = await db
    .updateTable('property_pages')
    .set((eb) => ({ views: eb('views', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
