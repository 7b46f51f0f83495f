// What a refused request must leave as it found: every row of every table and every object in
// the media storage. Shared by the security and tenant-isolation suites.
import { sql } from 'kysely';
import type { TestContext } from './test-app.ts';
import { storedKeys } from './media-helpers.ts';

export type Snapshot = Record<string, string[]>;

/**
 * Every row of every table (api_keys without last_used_at, which reads may move), and every
 * object in the media storage.
 */
export async function takeSnapshot(ctx: TestContext): Promise<Snapshot> {
  const db = ctx.deps.db.kysely;
  const tables = (await db.introspection.getTables()).map((t) => t.name).sort();
  const out: Snapshot = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    out[table] = rows
      .map((row) => {
        const copy = { ...row };
        if (table === 'api_keys') delete copy.last_used_at;
        return JSON.stringify(copy);
      })
      .sort();
  }
  out['(media storage)'] = await storedKeys(ctx);
  return out;
}
