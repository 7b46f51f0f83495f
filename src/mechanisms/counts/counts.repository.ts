import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared, type PreparedQuery } from '../../db/prepared.ts';
import { mergeDeltas, type Counter, type CountDeltas } from './counters.ts';

type Upsert = PreparedQuery<Record<string, string | number>, unknown>;

// One compiled upsert per number of counters changed at once (a write changes one to four).
const upserts = new Map<number, Upsert>();

function upsertOf(size: number): Upsert {
  let query = upserts.get(size);
  if (query === undefined) {
    query = prepared((db, p: Record<string, string | number>) =>
      db
        .insertInto('account_counts')
        .values(
          Array.from({ length: size }, (_, i) => ({
            account_id: p['account'] as string,
            counter: p[`c${i}`] as string,
            n: p[`n${i}`] as number,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['account_id', 'counter'])
            .doUpdateSet((eb) => ({ n: eb('account_counts.n', '+', eb.ref('excluded.n')) })),
        ),
    );
    upserts.set(size, query);
  }
  return query;
}

/**
 * Applies count changes of one account. Call it as the last write of the transaction that made
 * them: on PostgreSQL the counter rows stay locked until commit (no lost updates), and taking
 * them last, in one statement, in sorted order, means two writers can never wait on each other
 * in a cycle. The first change of a counter creates its row (an upsert).
 */
export async function addCounts(db: Executor, accountId: string, ...changes: CountDeltas[]): Promise<void> {
  const rows = mergeDeltas(...changes);
  if (rows.length === 0) return;
  const params: Record<string, string | number> = { account: accountId };
  rows.forEach(([counter, n], i) => {
    params[`c${i}`] = counter;
    params[`n${i}`] = n;
  });
  await upsertOf(rows.length).run(db, params);
}

const countQuery = prepared((db, p: { accountId: string; counter: Counter }) =>
  db.selectFrom('account_counts').select('n').where('account_id', '=', p.accountId).where('counter', '=', p.counter),
);

/** One counter of one account (0 before its first change). */
export async function readCount(db: Executor, accountId: string, counter: Counter): Promise<number> {
  const row = await countQuery.first(db, { accountId, counter });
  return row === undefined ? 0 : row.n;
}

export interface CountRow {
  account_id: string;
  counter: string;
  n: number;
}

/** Every stored counter of one account. */
export async function readCounts(db: Executor, accountId: string): Promise<CountRow[]> {
  return db.selectFrom('account_counts').selectAll().where('account_id', '=', accountId).execute();
}

/** Every stored counter of every account. */
export async function storedCounts(db: Executor): Promise<CountRow[]> {
  return db.selectFrom('account_counts').selectAll().execute();
}

/** What every counter should say, counted from the rows themselves (COUNT(*), not fast). */
const ACTUAL = sql<CountRow>`
  select account_id, 'listings' as counter, count(*) as n from listings group by account_id
  union all select account_id, 'listings:' || status, count(*) from listings group by account_id, status
  union all select account_id, 'clients', count(*) from clients group by account_id
  union all select account_id, 'media', count(*) from media group by account_id
  union all select account_id, 'notifications', count(*) from notifications group by account_id
  union all select account_id, 'notifications:' || status, count(*) from notifications group by account_id, status
  union all select account_id, 'events', count(*) from events where listed = 1 group by account_id
  union all select account_id, 'events:' || type, count(*) from events where listed = 1 group by account_id, type
`;

export async function actualCounts(db: Executor): Promise<CountRow[]> {
  const { rows } = await ACTUAL.execute(db);
  return rows;
}

/** Replaces every stored counter with the actual count. The caller holds the counters' lock. */
export async function rewriteCounts(db: Executor): Promise<void> {
  await db.deleteFrom('account_counts').execute();
  await sql`insert into account_counts (account_id, counter, n) ${ACTUAL}`.execute(db);
}

export interface MediaCountRow {
  account_id: string;
  listing_id: string;
  media_count: number;
  actual: number;
}

const actualMediaCount = sql<number>`(select count(*) from media m where m.listing_id = listings.id)`;

/** Galleries whose media_count is not the number of their media rows. */
export async function wrongMediaCounts(db: Executor): Promise<MediaCountRow[]> {
  const rows = await db
    .selectFrom('listings')
    .select(['account_id', 'id as listing_id', 'media_count', actualMediaCount.as('actual')])
    .where('media_count', '<>', actualMediaCount)
    .execute();
  return rows;
}

/** A repaired media_count is a change of the gallery: its updated_at moves (docs/api.md §19). */
export async function rewriteMediaCounts(db: Executor, now: string): Promise<number> {
  const result = await db
    .updateTable('listings')
    .set({ media_count: actualMediaCount, updated_at: now })
    .where('media_count', '<>', actualMediaCount)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
