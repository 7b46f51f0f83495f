import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';

/**
 * An account's three versions: `version`, raised by every change a /v1 read shows but those
 * below; `views`, raised by public page activity alone (a gallery's view and download counters, a
 * property page's views: migration 2026-12-07-1000); `events`, raised by the event log's rows and
 * counts and the webhook deliveries alone (migration 2026-12-07-1200). All 0 before the account's
 * first such write.
 */
export interface AccountVersion {
  version: number;
  views: number;
  events: number;
}

const NONE: AccountVersion = { version: 0, views: 0, events: 0 };
const COLUMNS = ['version', 'views_version', 'events_version'] as const;

const versionQuery = prepared((db, p: { accountId: string }) =>
  db.selectFrom('account_versions').select(COLUMNS).where('account_id', '=', p.accountId),
);

/** The account's versions: one primary-key lookup. */
async function readVersion(db: Executor, accountId: string): Promise<AccountVersion> {
  const row = await versionQuery.first(db, { accountId });
  return row === undefined ? NONE : { version: row.version, views: row.views_version, events: row.events_version };
}

/** Several accounts' versions in one statement. */
export async function readVersions(db: Executor, accountIds: readonly string[]): Promise<Map<string, AccountVersion>> {
  const out = new Map<string, AccountVersion>();
  const only = accountIds.length === 1 ? accountIds[0] : undefined;
  if (only !== undefined) {
    out.set(only, await readVersion(db, only));
    return out;
  }
  for (const id of accountIds) out.set(id, NONE);
  if (accountIds.length === 0) return out;
  const rows = await db
    .selectFrom('account_versions')
    .select(['account_id', ...COLUMNS])
    .where('account_id', 'in', [...accountIds])
    .execute();
  for (const row of rows) {
    out.set(row.account_id, { version: row.version, views: row.views_version, events: row.events_version });
  }
  return out;
}
