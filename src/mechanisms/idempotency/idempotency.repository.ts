// Idempotency records: every query names the account, and changes to an in-flight row name the
// token of the request that holds it.
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { IdempotencyKeysTable } from '../../db/schema.ts';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** Inserts the in-flight row unless one exists for the key: true when this request got it. */
export async function insertInFlight(db: Executor, row: Insertable<IdempotencyKeysTable>): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findRecord(db: Executor, accountId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Deletes the record only if it has expired (another request may have just replaced it). */
export async function deleteIfExpired(db: Executor, accountId: string, key: string, now: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('expires_at', '<=', now)
    .execute();
}

/** Takes over an in-flight row whose lease ran out; true when this request now holds it. */
export async function takeOver(
  db: Executor,
  accountId: string,
  key: string,
  from: { token: string; now: string },
  to: { token: string; lockedUntil: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ token: to.token, locked_until: to.lockedUntil })
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'in_flight')
    .where('token', '=', from.token)
    .where('locked_until', '<=', from.now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function complete(
  db: Executor,
  accountId: string,
  key: string,
  token: string,
  response: { status: number; headers: string; body: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: response.status,
      response_headers: response.headers,
      response_body: response.body,
    })
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'in_flight')
    .where('token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives the key back (the request failed in a way a retry may fix). */
export async function release(db: Executor, accountId: string, key: string, token: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .where('state', '=', 'in_flight')
    .where('token', '=', token)
    .execute();
}

/**
 * Removes up to `limit` expired records of any account (the pruner's maintenance, not a caller's
 * request); returns how many. Batches keep each statement, and its locks, short.
 */
export async function deleteExpired(db: Executor, now: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where((eb) =>
      eb(
        eb.refTuple('account_id', 'idempotency_key'),
        'in',
        eb
          .selectFrom('idempotency_keys')
          .select(['account_id', 'idempotency_key'])
          .where('expires_at', '<=', now)
          .limit(limit)
          .$asTuple('account_id', 'idempotency_key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
