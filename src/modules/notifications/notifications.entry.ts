// The notifications feature's entry points for other features' writes. Each runs in the caller's
// transaction and returns the count changes it made, for the caller's one sorted count upsert at
// the end of that transaction (src/mechanisms/counts/): the rules (which emails a change cancels or
// re-addresses, and how that moves the counts) live here, not in listings or clients.
import type { Executor } from '../../db/executor.ts';
import { newId } from '../../lib/ids.ts';
import { notificationsMoved, notificationsQueued, type CountDeltas } from '../../mechanisms/counts/counters.ts';
import { dropJobs, enqueue } from '../../mechanisms/queue/queue.ts';

/** Ids per statement when dropping jobs (far below every driver's parameter limit). */
const DROP_BATCH = 500;
import * as repo from './notifications.repository.ts';

export interface QueueNotificationInput {
  accountId: string;
  clientId: string;
  listingId: string;
  to: string;
  now: string;
  /** Host part of the Message-ID, kept for every retry of this notification. */
  messageIdHost: string;
}

/** Records the assignment email (the outbox row the worker sends), due now. */
export async function queueAssignmentNotification(
  db: Executor,
  input: QueueNotificationInput,
): Promise<{ id: string; counts: CountDeltas }> {
  const id = newId('ntf');
  await repo.insertNotification(db, {
    id,
    account_id: input.accountId,
    client_id: input.clientId,
    listing_id: input.listingId,
    to_email: input.to,
    status: 'queued',
    last_error: null,
    message_id: `<${id}@${input.messageIdHost}>`,
    created_at: input.now,
    updated_at: input.now,
    sent_at: null,
  });
  // Sent by its job (notifications.worker.ts); a cancelled notification's job finds nothing to send.
  await enqueue(
    db,
    { kind: 'notification.send', accountId: input.accountId, subjectId: id, runAt: input.now },
    input.now,
  );
  return { id, counts: notificationsQueued() };
}

/** Which unsent emails a change makes moot. */
export type CancelScope =
  | { clientId: string; listingId?: undefined } /* the client was deleted */
  | { listingId: string; clientId?: string } /* the gallery was deleted, or unassigned from that client */
  | { listingId: string; notClientId: string }; /* the gallery now belongs to another client */

/** Cancels the emails not yet sent that `scope` makes moot. */
export async function cancelQueuedNotifications(
  db: Executor,
  accountId: string,
  scope: CancelScope,
  now: string,
): Promise<CountDeltas> {
  const cancelled = await repo.cancelQueued(db, accountId, scope, now);
  // Their delivery jobs go too; one in flight finds its lease gone and records nothing but a send.
  for (let i = 0; i < cancelled.length; i += DROP_BATCH) {
    await dropJobs(db, 'notification.send', cancelled.slice(i, i + DROP_BATCH));
  }
  return notificationsMoved('queued', 'cancelled', cancelled.length);
}

/** A client's new address applies to their emails not yet sent. */
export async function readdressQueuedNotifications(
  db: Executor,
  accountId: string,
  clientId: string,
  to: string,
  now: string,
): Promise<void> {
  await repo.readdressQueued(db, accountId, clientId, to, now);
}
