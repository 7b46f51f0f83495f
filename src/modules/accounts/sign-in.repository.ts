import type { Executor } from '../../db/executor.ts';
import type { SignInScope } from '../../db/schema.ts';

export interface Subject {
  scope: SignInScope;
  subject: string;
}

export async function insertFailures(
  db: Executor,
  rows: (Subject & { id: string; created_at: string })[],
): Promise<void> {
  await db.insertInto('sign_in_failures').values(rows).execute();
}

export async function deleteFailures(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('sign_in_failures').where('id', 'in', ids).execute();
}

/** Forgets a subject's failures (an account's, once its owner signs in). */
export async function clearSubject(db: Executor, subject: Subject): Promise<void> {
  await db
    .deleteFrom('sign_in_failures')
    .where('scope', '=', subject.scope)
    .where('subject', '=', subject.subject)
    .execute();
}

/** The subject's failures since `since`, newest first, at most `limit` + 1 of them. */
export async function recentFailures(db: Executor, subject: Subject, since: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('sign_in_failures')
    .select('created_at')
    .where('scope', '=', subject.scope)
    .where('subject', '=', subject.subject)
    .where('created_at', '>', since)
    .orderBy('created_at', 'desc')
    .limit(limit + 1)
    .execute();
  return rows.map((r) => r.created_at);
}

export async function deleteFailuresBefore(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('created_at', '<=', before).execute();
}
