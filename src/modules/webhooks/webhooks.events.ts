// The webhooks feature's entry point for every other feature's writes (section 15): events are
// recorded in the transaction of the change they report, from the service that makes it, so a
// rollback announces nothing and a crash loses nothing. Each event gets one delivery (and one job
// on the durable queue) per enabled endpoint that wants it. The caller applies the returned count
// changes in its one sorted count upsert at the end of the transaction (decisions/0005).
import type { Executor } from '../../db/executor.ts';
import type { EventType } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { eventsRecorded, type CountDeltas } from '../counts/counters.ts';
import { enqueue } from '../queue/queue.ts';
import * as repo from './webhooks.repository.ts';

export interface NewEvent {
  type: EventType;
  /** The resource as its API read returns it now (one serializer per resource), or `{id}` for a deletion. */
  object: unknown;
}

/** Rows per statement (far below every driver's parameter limit). */
const BATCH = 300;

/** Whether an endpoint's `events` (a JSON array, or ["*"]) includes `type`. */
export function wants(events: string, type: string): boolean {
  const list = JSON.parse(events) as string[];
  return list.includes('*') || list.includes(type);
}

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

/**
 * Records events of one account in the caller's transaction and queues their deliveries.
 * `endpointId` limits delivery to that endpoint whatever it subscribes to (webhook.test).
 */
async function record(
  trx: Executor,
  accountId: string,
  events: { type: EventType | 'webhook.test'; object: unknown; listed: boolean }[],
  now: string,
  only?: string,
): Promise<string[]> {
  if (events.length === 0) return [];
  const endpoints = (await repo.enabledEndpoints(trx, accountId)).filter((e) => only === undefined || e.id === only);
  const rows = events.map((e) => ({
    id: newId('evt'),
    account_id: accountId,
    type: e.type,
    data: JSON.stringify({ object: e.object }),
    listed: e.listed ? 1 : 0,
    created_at: now,
  }));
  await inBatches(rows, (batch) => repo.insertEvents(trx, batch));
  const deliveries = rows.flatMap((event) =>
    endpoints
      .filter((endpoint) => only !== undefined || wants(endpoint.events, event.type))
      .map((endpoint) => ({
        id: newId('whd'),
        account_id: accountId,
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_type: event.type,
        status: 'pending' as const,
        response_status: null,
        response_excerpt: null,
        last_error: null,
        next_attempt_at: now,
        created_at: now,
        delivered_at: null,
      })),
  );
  await inBatches(deliveries, async (batch) => {
    await repo.insertDeliveries(trx, batch);
    await enqueue(
      trx,
      batch.map((d) => ({
        kind: 'webhook.deliver' as const,
        accountId,
        subjectId: d.id,
        groupKey: d.endpoint_id,
        runAt: now,
      })),
      now,
    );
  });
  return deliveries.map((d) => d.id);
}

/** In the write's transaction: the events it caused. Returns the count changes to apply last. */
export async function recordEvents(
  trx: Executor,
  accountId: string,
  events: readonly NewEvent[],
  now: string,
): Promise<CountDeltas> {
  await record(
    trx,
    accountId,
    events.map((e) => ({ ...e, listed: true })),
    now,
  );
  return eventsRecorded(events.map((e) => e.type));
}

/** A webhook.test event for one endpoint: delivered and retried like any other, never listed. Its delivery id. */
export async function recordTestEvent(
  trx: Executor,
  accountId: string,
  endpointId: string,
  now: string,
): Promise<string | undefined> {
  const [deliveryId] = await record(
    trx,
    accountId,
    [{ type: 'webhook.test', object: { message: 'This is a test event from Lightbox.' }, listed: false }],
    now,
    endpointId,
  );
  return deliveryId;
}
