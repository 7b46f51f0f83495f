// Frozen: never import application code here, never edit once released.
// docs/api.md §15's fan-out, taken out of the write's transaction (decisions/0012): an event that some
// endpoints want is written with the ids of those endpoints in `fanout` (decided from the
// endpoints as they are at the event's time); the delivery runner turns such events into their
// deliveries and jobs in batches, and clears `fanout`. The partial index holds only the events
// still to fan out, so finding them costs nothing once they are done, and an event no endpoint
// wants (fanout null) adds no entry to it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('fanout', 'text').execute();
  await db.schema
    .createIndex('events_fanout_idx')
    .on('events')
    .columns(['created_at', 'id'])
    .where(sql.ref('fanout'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_fanout_idx').execute();
  await db.schema.alterTable('events').dropColumn('fanout').execute();
}
