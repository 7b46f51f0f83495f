import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { NotificationsTable } from '../../db/schema.ts';

export async function insertNotification(db: Executor, row: Insertable<NotificationsTable>): Promise<void> {
  await db.insertInto('notifications').values(row).execute();
}

/** Cancels notifications not yet sent, to a client, optionally only those about one gallery. */
export async function cancelQueued(
  db: Executor,
  accountId: string,
  where: { clientId?: string; listingId?: string; notClientId?: string },
  now: string,
): Promise<number> {
  let q = db
    .updateTable('notifications')
    .set({ status: 'cancelled', updated_at: now })
    .where('account_id', '=', accountId)
    .where('status', '=', 'queued');
  if (where.clientId !== undefined) q = q.where('client_id', '=', where.clientId);
  if (where.listingId !== undefined) q = q.where('listing_id', '=', where.listingId);
  if (where.notClientId !== undefined) q = q.where('client_id', '<>', where.notClientId);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
