// The event log's entry point for every other feature's writes (docs/api.md §15): events are
// recorded in the transaction of the change they report, from the service that makes it, so a
// rollback announces nothing and a crash loses nothing. Each event gets one delivery (and one job
// on the durable queue) per enabled endpoint that wants it, made by the delivery runner's fan-out
// (webhooks.fanout.ts) from the endpoint ids kept on the event. Writers announce events to their unit
// of work (src/mechanisms/writes/writes.ts, `w.announce`), which records them here at the write's end.
import type { Executor } from '../../db/executor.ts';
import type { EventType } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './events.repository.ts';

export interface NewEvent {
  type: EventType;
  /** The resource as its API read returns it now (one serializer per resource), or `{id}` for a deletion. */
  object: unknown;
}

/** Rows per statement (far below every driver's parameter limit). */
const BATCH = 300;

/** Whether an endpoint's `events` (a JSON array, or ["*"]) includes `type`. */
function wants(events: string, type: string): boolean {
  const list = JSON.parse(events) as string[];
  return list.includes('*') || list.includes(type);
}

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

/**
 * Records events of one account in the caller's transaction. Which endpoints get each event is
 * decided here, from the endpoints as they are now (enabled, subscribed to its type), and kept
 * on the event (`fanout`); the delivery runner makes those deliveries and their jobs in batches
 * (webhooks.fanout.ts, decisions/0012), so a write's share stays one row per event whatever the
 * number of endpoints. An event no endpoint wants is written with nothing to fan out.
 */
async function record(trx: Executor, accountId: string, events: readonly NewEvent[], now: string): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await repo.subscribers(trx, accountId);
  const rows = events.map((e) => {
    const to = endpoints.filter((endpoint) => wants(endpoint.events, e.type)).map((endpoint) => endpoint.id);
    return {
      id: newId('evt'),
      account_id: accountId,
      type: e.type,
      data: JSON.stringify({ object: e.object }),
      listed: 1,
      created_at: now,
      fanout: to.length === 0 ? null : JSON.stringify(to),
    };
  });
  await inBatches(rows, (batch) => repo.insertEvents(trx, batch));
}

/**
 * The events of one write, recorded by its unit of work (src/mechanisms/writes/writes.ts) at its end, which also
 * applies their counts (`eventsRecorded`) in its one sorted count upsert.
 */
export async function recordEvents(
  trx: Executor,
  accountId: string,
  events: readonly NewEvent[],
  now: string,
): Promise<void> {
  await record(trx, accountId, events, now);
}

/**
 * An event that is delivered but never listed (`webhook.test`), for the caller to deliver itself:
 * nothing is fanned out from it. Its row.
 */
export async function recordUnlisted(
  trx: Executor,
  accountId: string,
  type: 'webhook.test',
  object: unknown,
  now: string,
): Promise<{ id: string; account_id: string; type: 'webhook.test'; created_at: string }> {
  const event = {
    id: newId('evt'),
    account_id: accountId,
    type,
    data: JSON.stringify({ object }),
    listed: 0,
    created_at: now,
    fanout: null,
  };
  await repo.insertEvents(trx, [event]);
  return event;
}
