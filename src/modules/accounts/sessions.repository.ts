import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { SessionsTable } from '../../db/schema.ts';

export type SessionRow = Selectable<SessionsTable>;

export async function insertSession(db: Executor, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function findSession(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Records activity, at most once per `olderThan` window across every node. */
export async function touchSession(db: Executor, tokenHash: string, now: string, olderThan: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now })
    .where('token_hash', '=', tokenHash)
    .where('last_seen_at', '<', olderThan)
    .execute();
}

export async function setOneTime(db: Executor, tokenHash: string, sealed: string): Promise<void> {
  await db.updateTable('sessions').set({ one_time: sealed }).where('token_hash', '=', tokenHash).execute();
}

/** Clears the value if it is still `sealed`: true for exactly one of two requests that race for it. */
export async function takeOneTime(db: Executor, tokenHash: string, sealed: string): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ one_time: null })
    .where('token_hash', '=', tokenHash)
    .where('one_time', '=', sealed)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/** Sessions past their absolute end or idle too long: nobody can use them any more. */
export async function deleteDeadSessions(db: Executor, now: string, idleSince: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
    .execute();
}

export async function countSessionsOfAccount(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}
