// The event log's rows (docs/api.md §15). Which endpoints an event goes to is decided when it is
// recorded, from the account's enabled endpoints as they are then, and kept on the event
// (`fanout`): the log reads the endpoint table for that and nothing else of the webhooks feature.
import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';
import type { EventsTable, EventType } from '../../db/schema.ts';

const subscribersQuery = prepared((db, p: { accountId: string }) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('account_id', '=', p.accountId)
    .where('enabled', '=', 1),
);

/** The account's enabled endpoints with the events they want (every write reads this). */
export async function subscribers(db: Executor, accountId: string): Promise<{ id: string; events: string }[]> {
  return subscribersQuery.all(db, { accountId });
}

type EventParams = Record<string, string | number | null>;

// One compiled insert per number of rows up to a write's usual few (one, mostly); more go as built.
const PREPARED_EVENT_ROWS = 8;
const eventInserts = Array.from({ length: PREPARED_EVENT_ROWS + 1 }, (_, size) =>
  prepared((db, p: EventParams) =>
    db.insertInto('events').values(
      Array.from({ length: Math.max(size, 1) }, (_x, i) => ({
        id: p[`id${i}`] as string,
        account_id: p[`account${i}`] as string,
        type: p[`type${i}`] as EventType,
        data: p[`data${i}`] as string,
        listed: p[`listed${i}`] as number,
        created_at: p[`at${i}`] as string,
        fanout: p[`fanout${i}`] as string | null,
      })),
    ),
  ),
);

export async function insertEvents(db: Executor, rows: Insertable<EventsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  const insert = eventInserts[rows.length];
  if (insert === undefined) {
    await db.insertInto('events').values(rows).execute();
    return;
  }
  const params: EventParams = {};
  rows.forEach((row, i) => {
    params[`id${i}`] = row.id;
    params[`account${i}`] = row.account_id;
    params[`type${i}`] = row.type;
    params[`data${i}`] = row.data;
    params[`listed${i}`] = row.listed ?? 1;
    params[`at${i}`] = row.created_at;
    params[`fanout${i}`] = row.fanout ?? null;
  });
  await insert.run(db, params);
}
