// Deliveries of the webhooks feature that do not come from the event log's fan-out
// (webhooks.fanout.ts): the shape of a delivery row, and the test event an endpoint asks for.
import type { EventType } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { recordUnlisted } from '../../mechanisms/events/events.entry.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import * as repo from './webhooks.repository.ts';

/** A delivery row of an event to an endpoint, pending, due now. */
export function newDelivery(
  event: { id: string; account_id: string; type: EventType | 'webhook.test'; created_at: string },
  endpointId: string,
  now: string,
) {
  return {
    id: newId('whd'),
    account_id: event.account_id,
    endpoint_id: endpointId,
    event_id: event.id,
    event_type: event.type,
    status: 'pending' as const,
    response_status: null,
    response_excerpt: null,
    last_error: null,
    next_attempt_at: now,
    created_at: event.created_at,
    delivered_at: null,
  };
}

/**
 * In the endpoint's write: a webhook.test event for one endpoint, delivered and retried like any
 * other, never listed. Its delivery id.
 */
export async function recordTestEvent(w: Write, endpointId: string): Promise<string | undefined> {
  const { trx, accountId, now } = w;
  const endpoint = await repo.findEndpoint(trx, accountId, endpointId);
  if (endpoint === undefined || endpoint.enabled !== 1) return undefined;
  const event = await recordUnlisted(
    trx,
    accountId,
    'webhook.test',
    { message: 'This is a test event from Lightbox.' },
    now,
  );
  // One delivery, made here at once (the endpoint asked for it now; nothing to fan out).
  const delivery = newDelivery(event, endpointId, now);
  await repo.insertDeliveries(trx, [delivery]);
  w.enqueue({ kind: 'webhook.deliver', accountId, subjectId: delivery.id, groupKey: endpointId, runAt: now });
  return delivery.id;
}
