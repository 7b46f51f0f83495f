import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import type { Position } from '../../lib/cursor.ts';
import type { NotificationStatus, NotificationsTable } from '../../db/schema.ts';

export async function insertNotification(db: Executor, row: Insertable<NotificationsTable>): Promise<void> {
  await db.insertInto('notifications').values(row).execute();
}

/** Cancels notifications not yet sent, to a client, optionally only those about one gallery; their ids. */
export async function cancelQueued(
  db: Executor,
  accountId: string,
  where: { clientId?: string; listingId?: string; notClientId?: string; shareLinkId?: string },
  now: string,
): Promise<string[]> {
  let q = db
    .updateTable('notifications')
    .set({ status: 'cancelled', updated_at: now })
    .where('account_id', '=', accountId)
    .where('status', '=', 'queued');
  if (where.clientId !== undefined) q = q.where('client_id', '=', where.clientId);
  // A gallery's change (deleted, unassigned, reassigned) makes its gallery emails moot, never an
  // invoice's: an invoice is a record of money and outlives its gallery (docs/api.md §29).
  if (where.listingId !== undefined) q = q.where('listing_id', '=', where.listingId).where('kind', '=', 'assignment');
  // Another client's emails: a share link's (no client) are not the client's, and stay.
  if (where.notClientId !== undefined) q = q.where('client_id', '<>', where.notClientId);
  if (where.shareLinkId !== undefined) q = q.where('share_link_id', '=', where.shareLinkId);
  const rows = await q.returning('id').execute();
  return rows.map((r) => r.id);
}

export type NotificationRow = Selectable<NotificationsTable>;

/** A notification by id, for its delivery job (the job carries the account). */
export async function findForDelivery(db: Executor, id: string): Promise<NotificationRow | undefined> {
  return db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Records a delivery (one more finished attempt). It is the truth even if the notification was
 * cancelled meanwhile. Returns the status it left (for the counts), or undefined when it was
 * neither queued nor cancelled.
 */
export async function markSent(db: Executor, id: string, now: string): Promise<'queued' | 'cancelled' | undefined> {
  for (const from of ['queued', 'cancelled'] as const) {
    const result = await db
      .updateTable('notifications')
      .set((eb) => ({
        status: 'sent',
        sent_at: now,
        last_error: null,
        attempts: eb('attempts', '+', 1),
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return from;
  }
  return undefined;
}

/** One more finished attempt that did not succeed, to be retried: its reason is kept. */
export async function recordAttempt(db: Executor, id: string, error: string, now: string): Promise<void> {
  await db
    .updateTable('notifications')
    .set((eb) => ({ last_error: error, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Ends a queued notification as failed (after `attempted` more finished attempts) or cancelled;
 * false when it was no longer queued.
 */
export async function markFinal(
  db: Executor,
  id: string,
  status: 'failed' | 'cancelled',
  error: string,
  attempted: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set((eb) => ({ status, last_error: error, attempts: eb('attempts', '+', attempted), updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Everything the email says, read fresh at sending time: the gallery, its client's link as it is
 * now, the studio, the counts of what the client will see (hidden media are not counted), and the
 * cover (the chosen photo when visible with its variants ready, else the first such photo).
 */
export async function loadEmailContext(db: Executor, row: NotificationRow) {
  const [listing, client, account, counts, link, photos] = await Promise.all([
    db
      .selectFrom('listings')
      .select(['address', 'beds', 'baths', 'sqft', 'description', 'cover_media_id', 'client_id'])
      .where('account_id', '=', row.account_id)
      .where('id', '=', row.listing_id)
      .executeTakeFirst(),
    row.client_id === null
      ? undefined
      : db
          .selectFrom('clients')
          .select(['name', 'portal_token'])
          .where('account_id', '=', row.account_id)
          .where('id', '=', row.client_id)
          .executeTakeFirst(),
    db
      .selectFrom('accounts')
      .select(['name', 'sender_name', 'email', 'live_account_id'])
      .where('id', '=', row.account_id)
      .executeTakeFirst(),
    db
      .selectFrom('media')
      .select(['kind', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', row.account_id)
      .where('listing_id', '=', row.listing_id)
      .where('hidden', '=', 0)
      .groupBy('kind')
      .execute(),
    // The link the email carries: the client's (while the gallery is theirs) or the share link.
    row.share_link_id === null
      ? db
          .selectFrom('gallery_links')
          .select(['token'])
          .where('account_id', '=', row.account_id)
          .where('listing_id', '=', row.listing_id)
          .where('kind', '=', 'client')
          .where('client_id', '=', row.client_id)
          .executeTakeFirst()
      : db
          .selectFrom('gallery_links')
          .select(['token'])
          .where('account_id', '=', row.account_id)
          .where('listing_id', '=', row.listing_id)
          .where('kind', '=', 'share')
          .where('id', '=', row.share_link_id)
          .executeTakeFirst(),
    // With the large variant's size: the cover URL serves that variant, and the email's <img> says its size.
    db
      .selectFrom('media')
      .leftJoin('media_variants', (join) =>
        join
          .onRef('media_variants.media_id', '=', 'media.id')
          .on('media_variants.account_id', '=', row.account_id)
          .on('media_variants.name', '=', 'large'),
      )
      .select(['media.id', 'media_variants.width', 'media_variants.height'])
      .where('media.account_id', '=', row.account_id)
      .where('media.listing_id', '=', row.listing_id)
      .where('media.kind', '=', 'photo')
      .where('media.hidden', '=', 0)
      .where('media.variants_status', '=', 'ready')
      .orderBy('media.position')
      .execute(),
  ]);
  const count = (kind: string): number => counts.find((c) => c.kind === kind)?.n ?? 0;
  const cover = photos.find((p) => p.id === listing?.cover_media_id) ?? photos[0];
  return {
    listing,
    client,
    account,
    /** The link's token: the client's while the gallery is still theirs, or the share link's while it exists. */
    linkToken: row.share_link_id !== null || listing?.client_id === row.client_id ? link?.token : undefined,
    hasCover: cover !== undefined,
    /** The served cover's size, when its large variant is recorded. */
    coverSize:
      cover?.width === null || cover?.width === undefined || cover.height === null
        ? null
        : { width: cover.width, height: cover.height },
    photos: count('photo'),
    videos: count('video'),
    documents: count('document'),
  };
}

export interface NotificationFilter {
  status?: NotificationStatus | undefined;
}

export async function listNotifications(
  db: Executor,
  accountId: string,
  filter: NotificationFilter,
  page: { limit: number; offset: number; after?: Position | undefined },
): Promise<NotificationRow[]> {
  let q = db.selectFrom('notifications').selectAll().where('account_id', '=', accountId);
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  if (page.after !== undefined) q = q.where(keysetAfter('created_at', 'id', true, page.after));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function findNotification(
  db: Executor,
  accountId: string,
  id: string,
): Promise<NotificationRow | undefined> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A client's new address applies to their notifications not yet sent. */
export async function readdressQueued(
  db: Executor,
  accountId: string,
  clientId: string,
  to: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ to_email: to, updated_at: now })
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('status', '=', 'queued')
    .execute();
}

export type LatestNotificationRow = NotificationRow & { listing_address: string | null };

/** The newest notifications with their gallery's address (null once the gallery is deleted). */
export async function latestNotifications(
  db: Executor,
  accountId: string,
  limit: number,
): Promise<LatestNotificationRow[]> {
  return db
    .selectFrom('notifications')
    .leftJoin('listings', (join) =>
      join
        .onRef('listings.id', '=', 'notifications.listing_id')
        .onRef('listings.account_id', '=', 'notifications.account_id'),
    )
    .selectAll('notifications')
    .select('listings.address as listing_address')
    .where('notifications.account_id', '=', accountId)
    .orderBy('notifications.created_at', 'desc')
    .orderBy('notifications.id', 'desc')
    .limit(limit)
    .execute();
}

/** A gallery's notifications, newest first (the dashboard's gallery activity). */
export async function notificationsOfListing(
  db: Executor,
  accountId: string,
  listingId: string,
  limit: number,
): Promise<NotificationRow[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
