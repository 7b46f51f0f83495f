// Fast bulk rows for tests and measurements: plain multi-row INSERTs in one transaction, with
// the maintained counts changed in that same transaction (the SQLite search index follows by
// its triggers), so the database stays exactly as consistent as the API would leave it.
import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { ClientsTable, ListingsTable } from '../../src/db/schema.ts';
import { optimizeClientSearchIndex } from '../../src/db/search.ts';
import { newId } from '../../src/lib/ids.ts';
import { newPortalToken } from '../../src/modules/portals/portals.entry.ts';
import { addCounts } from '../../src/mechanisms/counts/counts.repository.ts';

export interface SeedClient {
  name: string;
  email: string;
}

/** Inserts clients into one account, oldest first; returns their ids in that order. */
export async function seedClients(db: Db, accountId: string, clients: readonly SeedClient[]): Promise<string[]> {
  const ids: string[] = [];
  const start = Date.now() - clients.length;
  // Bound parameters per statement stay under SQLite's and PostgreSQL's limits.
  const BATCH = 500;
  await db.kysely.transaction().execute(async (trx) => {
    for (let i = 0; i < clients.length; i += BATCH) {
      const rows: Insertable<ClientsTable>[] = clients.slice(i, i + BATCH).map((c, j) => {
        const id = newId('cli');
        ids.push(id);
        const at = new Date(start + i + j).toISOString();
        return {
          id,
          account_id: accountId,
          name: c.name,
          name_normalized: c.name.toLowerCase(),
          email: c.email,
          email_normalized: c.email.toLowerCase(),
          phone: null,
          company: null,
          notes: null,
          portal_token: newPortalToken(),
          created_at: at,
          updated_at: at,
        };
      });
      await trx.insertInto('clients').values(rows).execute();
    }
    await addCounts(trx, accountId, { clients: clients.length });
  });
  await optimizeClientSearchIndex(db.kysely, db.dialect);
  return ids;
}

const FIRST = ['Ana', 'Ben', 'Chloé', 'Dmitri', 'Eun-ji', 'Fatima', 'Gus', 'Hana', 'Ivo', 'Jalen', 'Kofi', 'Lea'];
const LAST = ['Whitfield', 'Moss', 'Stone', 'Okafor', 'Nakamura', 'Lindqvist', 'Ortega', 'Brandt', 'Kowalski', 'Singh'];

/** A plausible, unique client for index `i` (deterministic). */
export function plausibleClient(i: number): SeedClient {
  const first = FIRST[i % FIRST.length] ?? 'Ana';
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length] ?? 'Moss';
  return {
    name: `${first} ${last} ${i.toString(36)}`,
    email: `${first
      .normalize('NFD')
      .replace(/[^A-Za-z]/g, '')
      .toLowerCase()}.${i}@studio${i % 97}.example`,
  };
}

/** Inserts `n` galleries into one account with statuses in turn; the counts follow. */
export async function seedListings(db: Db, accountId: string, n: number): Promise<void> {
  const statuses = ['draft', 'active', 'archived'] as const;
  const start = Date.now() - n;
  const BATCH = 1000;
  const made = { draft: 0, active: 0, archived: 0 };
  await db.kysely.transaction().execute(async (trx) => {
    for (let i = 0; i < n; i += BATCH) {
      const rows: Insertable<ListingsTable>[] = [];
      for (let j = i; j < Math.min(n, i + BATCH); j += 1) {
        const status = statuses[j % 3] ?? 'draft';
        made[status] += 1;
        const at = new Date(start + j).toISOString();
        rows.push({
          id: newId('lst'),
          account_id: accountId,
          client_id: null,
          address: `${j} Harbour Road`,
          beds: j % 5,
          baths: j % 3,
          sqft: 800 + (j % 2000),
          status,
          description: null,
          mls_number: null,
          created_at: at,
          updated_at: at,
        });
      }
      await trx.insertInto('listings').values(rows).execute();
    }
    await addCounts(trx, accountId, { listings: n }, ...statuses.map((s) => ({ [`listings:${s}`]: made[s] })));
  });
}
