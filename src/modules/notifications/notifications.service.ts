// Notification history, as the API shows it. Delivery itself is notifications.worker.ts.
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { hasIdShape } from '../../lib/ids.ts';
import { listCursors } from '../../db/keyset.ts';
import { cursorPage, pageRequest } from '../../lib/cursor-page.ts';
import type { Page } from '../../lib/pagination.ts';
import type { NotificationListQueryType, NotificationType } from './notifications.schemas.ts';
import { notificationsCounter } from '../../mechanisms/counts/counters.ts';
import { readCount } from '../../mechanisms/counts/counts.repository.ts';
import * as repo from './notifications.repository.ts';
import type { Executor } from '../../db/executor.ts';

const toNotification = (row: repo.NotificationRow): NotificationType => ({
  id: row.id,
  client_id: row.client_id,
  share_link_id: row.share_link_id,
  listing_id: row.listing_id,
  to: row.to_email,
  status: row.status,
  attempts: row.attempts,
  last_error: row.last_error,
  created_at: row.created_at,
  sent_at: row.sent_at,
});

// The notification is a resource of the unit of work: its delivery announces it by id, and the
// unit of work loads it through loadNotification (registered in src/services.ts), as its GET does.
declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    notification: NotificationType;
  }
}

/** A notification as the dashboard lists it: with its gallery's address, if it still exists. */
export type LatestNotification = NotificationType & { listing_address: string | null };

/** The notification object as its GET returns it, read in `db` (a transaction, for a write's answer). */
export async function loadNotification(
  db: Executor,
  accountId: string,
  id: string,
): Promise<NotificationType | undefined> {
  const row = await repo.findNotification(db, accountId, id);
  return row === undefined ? undefined : toNotification(row);
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

export function createNotificationsService({ db }: Pick<Deps, 'db'>) {
  return {
    /** The newest notifications with their gallery's address, for the dashboard's overview. */
    async latest(accountId: string, limit: number): Promise<LatestNotification[]> {
      const rows = await repo.latestNotifications(db.kysely, accountId, limit);
      return rows.map((row) => ({ ...toNotification(row), listing_address: row.listing_address }));
    },

    /** A gallery's newest notifications (the dashboard's gallery activity). */
    async ofListing(accountId: string, listingId: string, limit: number): Promise<NotificationType[]> {
      const rows = await repo.notificationsOfListing(db.kysely, accountId, listingId, limit);
      return rows.map(toNotification);
    },

    async list(accountId: string, query: NotificationListQueryType): Promise<Page<NotificationType>> {
      const codec = await listCursors(db);
      const filter = { status: query.status };
      const scope = { list: 'notifications', accountId, params: { status: query.status } };
      const request = pageRequest(query, codec, scope);
      const [rows, total] = await Promise.all([
        repo.listNotifications(db.kysely, accountId, filter, {
          limit: request.fetch,
          offset: request.offset,
          after: request.after,
        }),
        readCount(db.kysely, accountId, notificationsCounter(filter.status)),
      ]);
      const position = (row: { created_at: string; id: string }) => ({ value: row.created_at, id: row.id });
      return cursorPage(rows, request, total, codec, scope, position, toNotification);
    },

    async get(accountId: string, id: string): Promise<NotificationType> {
      const row = hasIdShape('ntf', id) ? await repo.findNotification(db.kysely, accountId, id) : undefined;
      if (row === undefined) throw notFound('Notification');
      return toNotification(row);
    },
  };
}
