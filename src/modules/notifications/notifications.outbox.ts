// The outbox: a notification row recorded in the same transaction as the assignment that
// causes it. A background worker (a later issue) delivers queued rows.
import type { Executor } from '../../db/executor.ts';
import { newId } from '../../lib/ids.ts';
import { insertNotification } from './notifications.repository.ts';

export interface QueueNotificationInput {
  accountId: string;
  clientId: string;
  listingId: string;
  to: string;
  now: string;
  /** Host part of the Message-ID, kept for every retry of this notification. */
  messageIdHost: string;
}

export async function queueAssignmentNotification(db: Executor, input: QueueNotificationInput): Promise<string> {
  const id = newId('ntf');
  await insertNotification(db, {
    id,
    account_id: input.accountId,
    client_id: input.clientId,
    listing_id: input.listingId,
    to_email: input.to,
    status: 'queued',
    last_error: null,
    message_id: `<${id}@${input.messageIdHost}>`,
    next_attempt_at: input.now,
    created_at: input.now,
    updated_at: input.now,
    sent_at: null,
  });
  return id;
}
