// docs/api.md §33: the feed's page is read through an index on both dialects: the account's
// photos by (modified_at, id) from media_modified_idx (or one gallery's from
// media_listing_modified_idx), never a scan and sort of the account's media.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createAccount, createTestContext, isPostgres, type TestContext } from '../../../test/support/test-app.ts';
import { feedQuery, type FeedScope } from './reso.repository.ts';

let ctx: TestContext;
let ACCOUNT = '';

before(async () => {
  ctx = await createTestContext();
  const db = ctx.deps.db.kysely;
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  // Other accounts' photos, and this account's: 20 galleries of 100 photos each.
  ACCOUNT = (await createAccount(ctx)).accountId;
  const other = (await createAccount(ctx)).accountId;
  for (const account of [ACCOUNT, other]) {
    for (let g = 0; g < 20; g += 1) {
      const listing = `lst_${account}_${g}`;
      await db
        .insertInto('listings')
        .values({
          id: listing,
          account_id: account,
          address: 'x',
          status: 'active',
          client_id: null,
          beds: null,
          baths: null,
          sqft: null,
          description: null,
          mls_number: null,
          created_at: at(0),
          updated_at: at(0),
        })
        .execute();
      const rows = Array.from({ length: 100 }, (_, i) => ({
        id: `med_${account}_${g}_${i}`,
        account_id: account,
        listing_id: listing,
        kind: 'photo' as const,
        filename: 'a.jpg',
        content_type: 'image/jpeg',
        size: 1,
        sha256: 'x',
        width: 10,
        height: 10,
        position: i + 1,
        storage_key: `k/${account}/${g}/${i}`,
        variants_status: 'ready' as const,
        crc32: 0,
        created_at: at(i),
      }));
      await db.insertInto('media').values(rows).execute();
      await db
        .insertInto('media_variants')
        .values(
          rows.map((r) => ({
            media_id: r.id,
            name: 'mls' as const,
            account_id: account,
            listing_id: listing,
            storage_key: `${r.storage_key}/mls`,
            content_type: 'image/jpeg',
            width: 10,
            height: 10,
            size: 1,
            created_at: at(0),
          })),
        )
        .execute();
    }
  }
  await sql`analyze`.execute(db);
});
after(async () => {
  await ctx?.close();
});

async function plan(scope: Partial<FeedScope>, cursor = false): Promise<string> {
  const db = ctx.deps.db.kysely;
  const position = cursor ? { value: new Date(Date.UTC(2026, 0, 1)).toISOString(), id: 'med_m' } : undefined;
  const compiled = feedQuery(
    db,
    ACCOUNT,
    { listingIds: undefined, after: undefined, atOrAfter: undefined, ...scope },
    position,
    101,
  ).compile();
  const explain = isPostgres ? 'explain' : 'explain query plan';
  const result = await db.executeQuery({ ...compiled, sql: `${explain} ${compiled.sql}`, query: compiled.query });
  return (result.rows as Record<string, unknown>[]).map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n');
}

test('the feed pages through media_modified_idx, and one gallery through media_listing_modified_idx', async () => {
  for (const [scope, cursor] of [
    [{}, false],
    [{}, true],
    [{ after: '2026-01-01T00:00:10.000Z' }, true],
    [{ atOrAfter: '2026-01-01T00:00:10.000Z' }, false],
  ] as const) {
    const text = await plan(scope, cursor);
    assert.match(text, /media_modified_idx/, text);
    assert.doesNotMatch(text, /TEMP B-TREE FOR ORDER BY|Sort\b|Seq Scan on media /, text);
  }
  const one = await plan({ listingIds: [`lst_${ACCOUNT}_3`] }, true);
  // One gallery's photos (a few hundred at most): by its index, sorted or not as the planner prefers.
  assert.match(one, /media_listing_modified_idx|media_account_idx/, one);
  assert.doesNotMatch(one, /Seq Scan on media /, one);
});
