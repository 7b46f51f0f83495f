import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ApiKeysTable } from '../../db/schema.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function insertApiKey(db: Executor, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

/** A key by id whatever its account (the command line, acting as operator). */
export async function findApiKeyById(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Executor, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function deleteApiKey(db: Executor, id: string, accountId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('api_keys')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Records use, at most once per `olderThan` window across every node. */
export async function touchApiKey(db: Executor, id: string, now: string, olderThan: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', olderThan)]))
    .execute();
}

export async function findApiKey(db: Executor, accountId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
