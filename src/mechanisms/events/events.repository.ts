// The event log's rows (docs/api.md §15). Which endpoints an event goes to is decided when it is
// recorded, from the account's enabled endpoints as they are then, and kept on the event
// (`fanout`): the log reads the endpoint table for that and nothing else of the webhooks feature.
import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';
import type { EventsTable } from '../../db/schema.ts';

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

export async function insertEvents(db: Executor, rows: Insertable<EventsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('events').values(rows).execute();
}
