import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import { prepared } from '../../db/prepared.ts';
import type { Position } from '../../lib/cursor.ts';
import type {
  DeliveryStatus,
  EventsTable,
  EventType,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../../db/schema.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type EventRow = Selectable<EventsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

// ---- endpoints

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findEndpoint(db: Executor, accountId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listEndpoints(
  db: Executor,
  accountId: string,
  page: { limit: number; offset: number; after?: Position | undefined },
): Promise<EndpointRow[]> {
  let q = db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId);
  if (page.after !== undefined) q = q.where(keysetAfter('created_at', 'id', true, page.after));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function updateEndpoint(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<
    Pick<
      EndpointRow,
      | 'url'
      | 'events'
      | 'description'
      | 'enabled'
      | 'disabled_reason'
      | 'secret'
      | 'previous_secret'
      | 'previous_secret_until'
      | 'updated_at'
    >
  >,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ---- events (the event log itself is src/mechanisms/events/)

export async function findEvent(db: Executor, accountId: string, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('listed', '=', 1)
    .executeTakeFirst();
}

export async function listEvents(
  db: Executor,
  accountId: string,
  type: EventType | undefined,
  page: { limit: number; offset: number; after?: Position | undefined; createdSince?: string | undefined },
): Promise<EventRow[]> {
  let q = db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('listed', '=', 1);
  if (type !== undefined) q = q.where('type', '=', type);
  if (page.createdSince !== undefined) q = q.where('created_at', '>=', page.createdSince);
  if (page.after !== undefined) q = q.where(keysetAfter('created_at', 'id', true, page.after));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

/** The account's listed events since a time (of a type): `created_since` has no maintained count. */
export async function countEventsSince(
  db: Executor,
  accountId: string,
  type: EventType | undefined,
  createdSince: string,
): Promise<number> {
  let q = db
    .selectFrom('events')
    .where('account_id', '=', accountId)
    .where('listed', '=', 1)
    .where('created_at', '>=', createdSince);
  if (type !== undefined) q = q.where('type', '=', type);
  const row = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Events older than `before`, a batch at a time (30-day retention): deleted, with what they were. */
export async function deleteEventsBefore(
  db: Executor,
  before: string,
  limit: number,
): Promise<Pick<EventRow, 'account_id' | 'type' | 'listed'>[]> {
  const ids = db.selectFrom('events').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit);
  return db.deleteFrom('events').where('id', 'in', ids).returning(['account_id', 'type', 'listed']).execute();
}

// ---- fan-out (decisions/0012)

export type EventToFanOut = Pick<EventRow, 'id' | 'account_id' | 'type' | 'created_at'> & { fanout: string };

/** The oldest events whose deliveries are still to be made. */
export async function eventsToFanOut(db: Executor, limit: number): Promise<EventToFanOut[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'account_id', 'type', 'created_at', 'fanout'])
    .where('fanout', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows as EventToFanOut[];
}

/** Marks events fanned out; only those still marked (another node may have been first). */
export async function clearFanOut(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('events')
    .set({ fanout: null })
    .where('id', 'in', [...ids])
    .where('fanout', 'is not', null)
    .execute();
}

/** Which of these endpoints still exist (a deleted endpoint's deliveries are never made). */
export async function existingEndpointIds(db: Executor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Inserts deliveries, skipping any (event, endpoint) that has one already; the ids inserted. */
export async function insertNewDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((r) => r.id);
}

// ---- deliveries

export async function insertDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export async function findDelivery(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findDeliveryOf(
  db: Executor,
  accountId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listDeliveries(
  db: Executor,
  endpointId: string,
  status: DeliveryStatus | undefined,
  page: { limit: number; offset: number; after?: Position | undefined },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  let q = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (status !== undefined) q = q.where('status', '=', status);
  const paged = page.after === undefined ? q : q.where(keysetAfter('created_at', 'id', true, page.after));
  const [rows, count] = await Promise.all([
    paged
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    // Bounded by the 30-day retention of events (their deliveries go with them), counted on its index.
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
}

const toSendQuery = prepared((db, p: { id: string }) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select([
      'd.id',
      'd.status',
      'd.attempts',
      'd.endpoint_id',
      'w.url',
      'w.enabled',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_until',
      'd.event_id',
      'e.type as event_type',
      'e.data as event_data',
      'e.created_at as event_created_at',
      // A test account's events are test events (docs/api.md §20).
      'a.live_account_id',
    ])
    .where('d.id', '=', p.id),
);

/** A delivery with what sending it needs (its endpoint and its event): one read per attempt. */
export interface DeliveryToSend {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  endpoint_id: string;
  url: string;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  event_id: string;
  event_type: EventRow['type'];
  event_data: string;
  event_created_at: string;
  /** Set when the event is of test data. */
  live_account_id: string | null;
}

/** Undefined when the delivery is gone (its endpoint deleted, its event pruned: they cascade). */
export async function deliveryToSend(db: Executor, id: string): Promise<DeliveryToSend | undefined> {
  return toSendQuery.first(db, { id });
}

const attemptQuery = prepared(
  (
    db,
    p: {
      id: string;
      status: DeliveryStatus;
      responseStatus: number | null;
      excerpt: string | null;
      error: string | null;
      nextAttemptAt: string | null;
      deliveredAt: string | null;
    },
  ) =>
    db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: p.status,
        attempts: eb('attempts', '+', 1),
        response_status: p.responseStatus,
        response_excerpt: p.excerpt,
        last_error: p.error,
        next_attempt_at: p.nextAttemptAt,
        delivered_at: p.deliveredAt,
      }))
      .where('id', '=', p.id),
);

export async function recordAttempt(
  db: Executor,
  id: string,
  outcome: {
    status: DeliveryStatus;
    responseStatus: number | null;
    excerpt: string | null;
    error: string | null;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
  },
): Promise<void> {
  await attemptQuery.run(db, { id, ...outcome });
}

/** A manual retry: pending again, due now. */
export async function markPendingNow(db: Executor, id: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * A receiver answered 410 Gone: the endpoint is disabled at once (docs/api.md §22), in the transaction
 * that records the attempt. An endpoint already disabled keeps its reason.
 */
export async function disableGone(db: Executor, endpointId: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: 'gone', updated_at: now })
    .where('id', '=', endpointId)
    .where('enabled', '=', 1)
    .execute();
}

/** The deliveries of an endpoint still to be made (re-enabled: they are due again). */
export async function pendingDeliveryIds(db: Executor, endpointId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
  return rows.map((r) => r.id);
}
