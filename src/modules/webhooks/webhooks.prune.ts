// The pruning of 30-day-old events (docs/api.md §15) with their deliveries: an operator's batch
// across every account, so one transaction per batch, outside any one account's write (it is
// named in the allowlist beside the unit of work's lint rule, eslint.config.js). Each account's
// share of the batch still goes through the unit of work (`writes.within`), whose epilogue takes
// off the pruned events' counts last, in sorted order (decisions/0005).
import type { Deps } from '../../deps.ts';
import type { EventType } from '../../db/schema.ts';
import { eventsRecorded, type Counter, type CountDeltas } from '../../mechanisms/counts/counters.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import * as repo from './webhooks.repository.ts';

/** Events are kept this long (docs/api.md §15), then pruned with their deliveries. */
const EVENT_RETENTION_MS = 30 * 24 * 3_600_000;
const PRUNE_BATCH = 1000;

/** Deletes events older than 30 days (their deliveries go with them), a batch at a time. */
export async function pruneEvents({
  db,
  clock,
  writes,
}: Pick<Deps, 'db' | 'clock'> & { writes: Writes }): Promise<number> {
  const before = clock.iso(-EVENT_RETENTION_MS);
  let total = 0;
  for (;;) {
    const deleted = await db.kysely.transaction().execute(async (trx) => {
      const rows = await repo.deleteEventsBefore(trx, before, PRUNE_BATCH);
      const byAccount = new Map<string, EventType[]>();
      for (const row of rows) {
        if (row.listed !== 1) continue;
        const list = byAccount.get(row.account_id) ?? [];
        list.push(row.type as EventType);
        byAccount.set(row.account_id, list);
      }
      // Sorted by account: concurrent pruners (several nodes) take the counter rows in one order.
      for (const [accountId, types] of [...byAccount].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const gone: CountDeltas = {};
        for (const [counter, n] of Object.entries(eventsRecorded(types)) as [Counter, number][]) gone[counter] = -n;
        await writes.within(trx, accountId, {}, (w) => w.count(gone));
      }
      return rows.length;
    });
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}
