// Account versions (contract section 17, docs/decisions/0014-account-versions.md): the number the
// ETag of every /v1 JSON read is built on. Nothing here raises it: database triggers do, in the
// transaction of every write to a row a /v1 read shows (migration 2026-11-26-0014), so no write
// path can forget to.
import type { Db } from '../../db/database.ts';
import { readVersion } from './versions.repository.ts';

export type VersionsService = ReturnType<typeof createVersionsService>;

export function createVersionsService({ db }: { db: Pick<Db, 'kysely'> }) {
  return {
    /**
     * The account's current version, read fresh from the database on every call (never cached:
     * every node must see another node's write at once).
     */
    current: (accountId: string): Promise<number> => readVersion(db.kysely, accountId),
  };
}
