// Account versions (docs/api.md §17, docs/decisions/0014-account-versions.md): the number the
// ETag of every /v1 JSON read is built on. Nothing here raises it: database triggers do, in the
// transaction of every write to a row a /v1 read shows (migration 2026-11-26-0014), so no write
// path can forget to.
import type { Db } from '../../db/database.ts';
import { coalesce } from '../../lib/coalesce.ts';
import { readVersions, type AccountVersion } from './versions.repository.ts';

export type { AccountVersion };

export type VersionsService = ReturnType<typeof createVersionsService>;

export function createVersionsService({ db }: { db: Pick<Db, 'kysely'> }) {
  // The requests of one turn of the event loop share one read per turn (src/lib/coalesce.ts): it
  // begins after each of them asked, so each still sees every write committed before it arrived.
  const reads = coalesce((accountIds: string[]) => readVersions(db.kysely, accountIds));
  return {
    /**
     * The account's current versions, from a read of the database that begins after this call
     * (never cached: every node must see another node's write at once).
     */
    current: (accountId: string): Promise<AccountVersion> => reads.get(accountId),
  };
}
