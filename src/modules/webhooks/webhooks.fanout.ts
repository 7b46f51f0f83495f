// The fan-out (decisions/0012): events recorded with endpoints to deliver to (`fanout`, chosen in
// the write's transaction from the endpoints at the event's time) become one delivery row and one
// `webhook.deliver` job per (event, endpoint), a batch of events per transaction, and their
// `fanout` is cleared in the same transaction. The delivery runner does this before each claim,
// so the deliveries are made within one poll of the write's commit, on whichever node runs it.
// Exactly once: the (event, endpoint) pair is unique, inserted with ON CONFLICT DO NOTHING, and
// jobs are made only for the rows this transaction inserted, so two nodes fanning out the same
// events (or a node that crashed mid-batch and rolled back) never make a delivery twice. An
// endpoint deleted since the event gets nothing; one disabled since gets its delivery, which
// waits like any other pending delivery of a disabled endpoint (until it is enabled again).
import type { Db } from '../../db/database.ts';
import { enqueue } from '../../mechanisms/queue/queue.ts';
import { newDelivery } from './webhooks.deliveries.ts';
import * as repo from './webhooks.repository.ts';

/** Events per transaction: a burst fans out in several short transactions, none holding the writer long. */
export const FANOUT_BATCH = 200;

/** Makes the deliveries of up to `limit` events; resolves with how many events it took. */
export async function fanOut(db: Db, now: () => string, limit = FANOUT_BATCH): Promise<number> {
  // Read before the transaction: it then only writes (on SQLite, no read-to-write upgrade that
  // another process could make fail), and every write below is safe to repeat.
  const events = await repo.eventsToFanOut(db.kysely, limit);
  if (events.length === 0) return 0;
  await db.kysely.transaction().execute(async (trx) => {
    const at = now();
    await repo.clearFanOut(
      trx,
      events.map((e) => e.id),
    );
    const wanted = events.map((e) => ({ event: e, to: JSON.parse(e.fanout) as string[] }));
    const exists = await repo.existingEndpointIds(trx, [...new Set(wanted.flatMap((w) => w.to))]);
    const rows = wanted.flatMap(({ event, to }) =>
      to.filter((id) => exists.has(id)).map((endpointId) => newDelivery(event, endpointId, at)),
    );
    for (let i = 0; i < rows.length; i += FANOUT_BATCH) {
      const batch = rows.slice(i, i + FANOUT_BATCH);
      const inserted = new Set(await repo.insertNewDeliveries(trx, batch));
      await enqueue(
        trx,
        batch
          .filter((d) => inserted.has(d.id))
          .map((d) => ({
            kind: 'webhook.deliver' as const,
            accountId: d.account_id,
            subjectId: d.id,
            groupKey: d.endpoint_id,
            runAt: at,
          })),
        at,
      );
    }
  });
  return events.length;
}
