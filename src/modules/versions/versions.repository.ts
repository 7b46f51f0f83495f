import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';

const versionQuery = prepared((db, p: { accountId: string }) =>
  db.selectFrom('account_versions').select('version').where('account_id', '=', p.accountId),
);

/** The account's version: one primary-key lookup (0 before its first versioned write). */
export async function readVersion(db: Executor, accountId: string): Promise<number> {
  const row = await versionQuery.first(db, { accountId });
  return row === undefined ? 0 : row.version;
}
