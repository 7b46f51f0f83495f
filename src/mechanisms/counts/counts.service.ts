// Maintained counts: read per account (list totals, the dashboard), checked against COUNT(*)
// (`lightbox doctor`, tests, the benchmark after its writes) and rewritten from the rows
// (`lightbox doctor --fix`, after a bulk load that bypassed the services).
import type { Db } from '../../db/database.ts';
import { lockTableForRewrite } from '../../db/locking.ts';
import {
  checkClientSearchIndex,
  optimizeClientSearchIndex,
  rebuildClientSearchIndex,
  verifyClientSearchIndex,
  type SearchIndexProblem,
} from '../../db/search.ts';
import { LISTING_STATUSES, NOTIFICATION_STATUSES } from '../../db/schema.ts';
import type { Counter } from './counters.ts';
import * as repo from './counts.repository.ts';

export interface AccountCounts {
  listings: { total: number; draft: number; active: number; archived: number };
  clients: number;
  media: number;
  notifications: { total: number; queued: number; sent: number; failed: number; cancelled: number };
}

interface CountMismatch {
  account_id: string;
  counter: string;
  stored: number;
  actual: number;
}

export interface CountsReport {
  /** Maintained counters that differ from COUNT(*) of the rows they count. */
  counters: CountMismatch[];
  /** Galleries whose media_count differs from the number of their media rows. */
  mediaCounts: repo.MediaCountRow[];
  /** The client search index out of step with the clients (SQLite). */
  searchIndex: SearchIndexProblem[];
  ok: boolean;
}

type CountsDb = Pick<Db, 'kysely' | 'dialect'>;

function compare(stored: repo.CountRow[], actual: repo.CountRow[]): CountMismatch[] {
  const key = (r: repo.CountRow): string => `${r.account_id}\u0000${r.counter}`;
  const all = new Map<string, CountMismatch>();
  for (const r of stored) all.set(key(r), { account_id: r.account_id, counter: r.counter, stored: r.n, actual: 0 });
  for (const r of actual) {
    const seen = all.get(key(r));
    if (seen === undefined) all.set(key(r), { account_id: r.account_id, counter: r.counter, stored: 0, actual: r.n });
    else seen.actual = r.n;
  }
  return [...all.values()]
    .filter((m) => m.stored !== m.actual)
    .sort((a, b) => a.account_id.localeCompare(b.account_id) || a.counter.localeCompare(b.counter));
}

/**
 * Recomputes every maintained count with COUNT(*) and compares. One snapshot (a repeatable-read
 * transaction on PostgreSQL; SQLite's read transaction is one), so writes committing meanwhile
 * cannot show up as a mismatch: a write and its count change commit together.
 */
export async function checkCounts(db: CountsDb): Promise<CountsReport> {
  const structure = await verifyClientSearchIndex(db.kysely, db.dialect);
  return db.kysely
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const stored = await repo.storedCounts(trx);
      const actual = await repo.actualCounts(trx);
      const mediaCounts = await repo.wrongMediaCounts(trx);
      const searchIndex = [...structure, ...(await checkClientSearchIndex(trx, db.dialect))];
      const counters = compare(stored, actual);
      return {
        counters,
        mediaCounts,
        searchIndex,
        ok: counters.length === 0 && mediaCounts.length === 0 && searchIndex.length === 0,
      };
    });
}

/**
 * Rewrites every maintained count (and galleries' media_count, and the SQLite search index) from
 * the rows. For `lightbox doctor --fix` and for bulk loads that insert rows directly. Writers
 * wait for it on the counters' lock, so it is exact even while the service runs. Returns what
 * was wrong before.
 */
export async function recomputeCounts(db: CountsDb): Promise<CountsReport> {
  const before = await checkCounts(db);
  if (before.ok) return before;
  await db.kysely.transaction().execute(async (trx) => {
    await lockTableForRewrite(trx, db.dialect, 'account_counts');
    await repo.rewriteCounts(trx);
    if (before.mediaCounts.length > 0) await repo.rewriteMediaCounts(trx, new Date().toISOString());
    if (before.searchIndex.length > 0) await rebuildClientSearchIndex(trx, db.dialect);
  });
  return before;
}

export type CountsService = ReturnType<typeof createCountsService>;

export function createCountsService({ db }: { db: CountsDb }) {
  return {
    /** Every maintained count of one account: a handful of keyed rows, at any size. */
    async counts(accountId: string): Promise<AccountCounts> {
      const rows = await repo.readCounts(db.kysely, accountId);
      const n = new Map(rows.map((r) => [r.counter, r.n]));
      const get = (counter: Counter): number => n.get(counter) ?? 0;
      const listings = Object.fromEntries(LISTING_STATUSES.map((s) => [s, get(`listings:${s}`)]));
      const notifications = Object.fromEntries(NOTIFICATION_STATUSES.map((s) => [s, get(`notifications:${s}`)]));
      return {
        listings: { total: get('listings'), ...listings } as AccountCounts['listings'],
        clients: get('clients'),
        media: get('media'),
        notifications: { total: get('notifications'), ...notifications } as AccountCounts['notifications'],
      };
    },

    check: () => checkCounts(db),
    fix: () => recomputeCounts(db),
  };
}
