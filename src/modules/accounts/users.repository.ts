// The team's rows (docs/api.md §27): people, invitations, recovery codes and sign-ins waiting
// for a second factor. Every query of a team is scoped by its account.
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { InvitationsTable, UsersTable } from '../../db/schema.ts';

export type UserRow = Selectable<UsersTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type NewUser = Insertable<UsersTable>;

export async function insertUser(db: Executor, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** The person signing in with this email, on a live account (a test account has nobody). */
export async function findUserByEmail(db: Executor, emailNormalized: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email_normalized', '=', emailNormalized).executeTakeFirst();
}

export async function findUser(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserOfAccount(db: Executor, accountId: string, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function findOwner(db: Executor, accountId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirst();
}

/** The team, owner first, then by who joined first. */
export async function listUsers(db: Executor, accountId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('role', 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function updatePassword(db: Executor, id: string, hash: string, now: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash, updated_at: now }).where('id', '=', id).execute();
}

/** A person leaves the team: their sessions, links and codes go in the same transaction. */
export async function deleteMember(db: Executor, accountId: string, id: string): Promise<number> {
  const sessions = await db
    .deleteFrom('sessions')
    .where('account_id', '=', accountId)
    .where('user_id', '=', id)
    .executeTakeFirst();
  await db.deleteFrom('password_resets').where('account_id', '=', accountId).where('user_id', '=', id).execute();
  await db
    .deleteFrom('users')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('role', '=', 'member')
    .execute();
  return Number(sessions.numDeletedRows);
}

export async function deleteSessionsOfUser(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// Two-factor sign-in.

export async function setPendingSecret(db: Executor, id: string, secret: string, now: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_secret: secret, updated_at: now })
    .where('id', '=', id)
    .where('totp_enabled', '=', 0)
    .execute();
}

/** Turns two-factor on with the step of the code that proved the set-up: true if it was off. */
export async function enableTotp(db: Executor, id: string, step: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_enabled: 1, totp_last_step: step, updated_at: now })
    .where('id', '=', id)
    .where('totp_enabled', '=', 0)
    .where('totp_secret', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Turns two-factor off: the secret and every recovery code are forgotten. */
export async function disableTotp(db: Executor, id: string, now: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_enabled: 0, totp_secret: null, totp_last_step: null, updated_at: now })
    .where('id', '=', id)
    .execute();
  await db.deleteFrom('recovery_codes').where('user_id', '=', id).execute();
}

/** Records a used step, if no later one was used meanwhile: true for exactly one of two racers. */
export async function useStep(db: Executor, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function replaceRecoveryCodes(db: Executor, userId: string, hashes: string[], now: string) {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
    .execute();
}

/** Uses a recovery code up: true for exactly one request. */
export async function consumeRecoveryCode(db: Executor, userId: string, hash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('recovery_codes')
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function countRecoveryCodes(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function insertChallenge(
  db: Executor,
  row: { token_hash: string; user_id: string; created_at: string; expires_at: string },
): Promise<void> {
  await db.deleteFrom('two_factor_challenges').where('expires_at', '<=', row.created_at).execute();
  await db.insertInto('two_factor_challenges').values(row).execute();
}

export async function findChallenge(db: Executor, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('two_factor_challenges')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

export async function consumeChallenge(db: Executor, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom('two_factor_challenges').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

// Invitations.

export async function insertInvitation(db: Executor, row: Insertable<InvitationsTable>): Promise<void> {
  // A second invitation to the same email replaces the first: only the newest link works.
  await db
    .deleteFrom('invitations')
    .where('account_id', '=', row.account_id)
    .where('email_normalized', '=', row.email_normalized)
    .execute();
  await db.insertInto('invitations').values(row).execute();
}

export async function listInvitations(db: Executor, accountId: string, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function findLiveInvitation(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function consumeInvitation(db: Executor, tokenHash: string, now: string): Promise<boolean> {
  const result = await db
    .deleteFrom('invitations')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function deleteInvitation(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('invitations')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function deleteExpiredInvitations(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('invitations').where('expires_at', '<=', now).execute();
}

/** A per-deployment secret made by a migration. */
export async function instanceSecret(db: Executor, name: string): Promise<string> {
  const row = await db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}
