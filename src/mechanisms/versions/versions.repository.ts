import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';

const versionQuery = prepared((db, p: { accountId: string }) =>
  db.selectFrom('account_versions').select('version').where('account_id', '=', p.accountId),
);

/** The account's version: one primary-key lookup (0 before its first versioned write). */
async function readVersion(db: Executor, accountId: string): Promise<number> {
  const row = await versionQuery.first(db, { accountId });
  return row === undefined ? 0 : row.version;
}

/** Several accounts' versions in one statement (0 for an account with no versioned write yet). */
export async function readVersions(db: Executor, accountIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const only = accountIds.length === 1 ? accountIds[0] : undefined;
  if (only !== undefined) {
    out.set(only, await readVersion(db, only));
    return out;
  }
  for (const id of accountIds) out.set(id, 0);
  if (accountIds.length === 0) return out;
  const rows = await db
    .selectFrom('account_versions')
    .select(['account_id', 'version'])
    .where('account_id', 'in', [...accountIds])
    .execute();
  for (const row of rows) out.set(row.account_id, row.version);
  return out;
}
