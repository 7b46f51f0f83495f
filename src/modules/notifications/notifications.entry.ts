// The notifications feature's entry points for other features' writes. Each takes the caller's
// unit of work (src/mechanisms/writes/writes.ts) and announces its count changes and jobs to it: the rules (which
// emails a change cancels or re-addresses, and how that moves the counts) live here, not in
// listings or clients.
import type { Write } from '../../mechanisms/writes/writes.ts';
import { newId } from '../../lib/ids.ts';
import { notificationsMoved, notificationsQueued } from '../../mechanisms/counts/counters.ts';
import { dropJobs } from '../../mechanisms/queue/queue.ts';

/** Ids per statement when dropping jobs (far below every driver's parameter limit). */
const DROP_BATCH = 500;
import * as repo from './notifications.repository.ts';

export interface QueueNotificationInput {
  clientId: string;
  listingId: string;
  to: string;
  /** Host part of the Message-ID, kept for every retry of this notification. */
  messageIdHost: string;
}

/** Records the assignment email (the outbox row the worker sends), due now. Its id. */
export async function queueAssignmentNotification(w: Write, input: QueueNotificationInput): Promise<string> {
  const id = newId('ntf');
  await repo.insertNotification(w.trx, {
    id,
    account_id: w.accountId,
    client_id: input.clientId,
    share_link_id: null,
    listing_id: input.listingId,
    to_email: input.to,
    status: 'queued',
    last_error: null,
    message_id: `<${id}@${input.messageIdHost}>`,
    created_at: w.now,
    updated_at: w.now,
    sent_at: null,
  });
  // Sent by its job (notifications.worker.ts); a cancelled notification's job finds nothing to send.
  w.enqueue({ kind: 'notification.send', accountId: w.accountId, subjectId: id, runAt: w.now });
  w.count(notificationsQueued());
  return id;
}

/** docs/api.md §28: records a share link's email to its recipient (the outbox row), due now. Its id. */
export async function queueShareLinkNotification(
  w: Write,
  input: { shareLinkId: string; listingId: string; to: string; messageIdHost: string },
): Promise<string> {
  const id = newId('ntf');
  await repo.insertNotification(w.trx, {
    id,
    account_id: w.accountId,
    client_id: null,
    share_link_id: input.shareLinkId,
    listing_id: input.listingId,
    to_email: input.to,
    status: 'queued',
    last_error: null,
    message_id: `<${id}@${input.messageIdHost}>`,
    created_at: w.now,
    updated_at: w.now,
    sent_at: null,
  });
  w.enqueue({ kind: 'notification.send', accountId: w.accountId, subjectId: id, runAt: w.now });
  w.count(notificationsQueued());
  return id;
}

/**
 * docs/api.md §29: records an invoice's email to its client (at issue) or its receipt (once paid),
 * due now; the worker attaches the invoice's PDF as it is when sent. Its id.
 */
export async function queueInvoiceNotification(
  w: Write,
  input: {
    kind: 'invoice' | 'receipt';
    invoiceId: string;
    clientId: string;
    listingId: string;
    to: string;
    messageIdHost: string;
  },
): Promise<string> {
  const id = newId('ntf');
  await repo.insertNotification(w.trx, {
    id,
    account_id: w.accountId,
    client_id: input.clientId,
    share_link_id: null,
    listing_id: input.listingId,
    to_email: input.to,
    status: 'queued',
    last_error: null,
    message_id: `<${id}@${input.messageIdHost}>`,
    created_at: w.now,
    updated_at: w.now,
    sent_at: null,
    kind: input.kind,
    invoice_id: input.invoiceId,
  });
  w.enqueue({ kind: 'notification.send', accountId: w.accountId, subjectId: id, runAt: w.now });
  w.count(notificationsQueued());
  return id;
}

/** Which unsent emails a change makes moot. */
export type CancelScope =
  | { clientId: string; listingId?: undefined } /* the client was deleted */
  | { listingId: string; clientId?: string } /* the gallery was deleted, or unassigned from that client */
  | { listingId: string; notClientId: string } /* the gallery now belongs to another client */
  | { shareLinkId: string }; /* the share link was deleted */

/** Cancels the emails not yet sent that `scope` makes moot. */
export async function cancelQueuedNotifications(w: Write, scope: CancelScope): Promise<void> {
  const cancelled = await repo.cancelQueued(w.trx, w.accountId, scope, w.now);
  // Their delivery jobs go too; one in flight finds its lease gone and records nothing but a send.
  for (let i = 0; i < cancelled.length; i += DROP_BATCH) {
    await dropJobs(w.trx, 'notification.send', cancelled.slice(i, i + DROP_BATCH));
  }
  w.count(notificationsMoved('queued', 'cancelled', cancelled.length));
}

/** A client's new address applies to their emails not yet sent. */
export async function readdressQueuedNotifications(w: Write, clientId: string, to: string): Promise<void> {
  await repo.readdressQueued(w.trx, w.accountId, clientId, to, w.now);
}
