import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { PasswordResetsTable } from '../../db/schema.ts';

export async function insertReset(db: Executor, row: Insertable<PasswordResetsTable>): Promise<void> {
  await db.insertInto('password_resets').values(row).execute();
}

/** The person of a link still valid at `now`, or undefined (unknown, used or expired). */
export async function findLiveReset(db: Executor, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('password_resets')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id ?? undefined;
}

/** Uses a link up: true for exactly one of any number of requests that race with it. */
export async function consumeReset(db: Executor, tokenHash: string, now: string): Promise<boolean> {
  const result = await db
    .deleteFrom('password_resets')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Every link of the person stops working (their password was just set). */
export async function deleteResetsOfUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', userId).execute();
}

export async function deleteExpiredResets(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
}
