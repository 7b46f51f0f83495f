// Client search through the search index (decisions/0005): the contract's case-insensitive
// substring of name or email, with `%`, `_` and `\` matching themselves, checked against a
// reference model of today's semantics (JavaScript toLowerCase on both sides, then includes),
// and the query plan proven to use the index on each dialect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import {
  call,
  createAccount,
  createTestContext,
  isPostgres,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { plausibleClient, seedClients, type SeedClient } from '../../../test/support/seed.ts';
import { clientMatches } from '../../db/search.ts';
import { checkCounts } from '../../mechanisms/counts/counts.service.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());

interface Page {
  data: { id: string }[];
  pagination: { page: number; limit: number; total: number; total_exact: boolean; next_cursor: string | null };
}

/** Today's semantics, the reference: lower-case both sides, then a plain substring test. */
const matches = (c: SeedClient, term: string): boolean =>
  term === '' ||
  c.name.toLowerCase().includes(term.toLowerCase()) ||
  c.email.toLowerCase().includes(term.toLowerCase());

async function search(key: string, term: string, query = ''): Promise<Page> {
  const res = await call(ctx, 'GET', `/v1/clients?search=${encodeURIComponent(term)}&limit=100${query}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Page>();
}

/** The ids the reference model expects, newest first (seeded oldest first). */
const expected = (clients: readonly SeedClient[], ids: readonly string[], term: string): string[] =>
  ids.filter((_, i) => matches(clients[i]!, term)).reverse();

describe('client search through the index', () => {
  test('literal %, _, \\ and " ; short terms; terms spanning a space; case in both directions', async () => {
    const account = await createAccount(ctx);
    const clients: SeedClient[] = [
      { name: '100% Real', email: 'p@x.example' },
      { name: '1000 Real', email: 'q@x.example' },
      { name: 'Under', email: 'a_b@x.com' },
      { name: 'Other', email: 'axb@x.com' },
      { name: 'Back\\slash', email: 'bs@x.example' },
      { name: 'Say "Cheese"', email: 'quote@x.example' },
      { name: 'MIXED Case Name', email: 'MiXeD@Example.COM' },
    ];
    const ids = await seedClients(ctx.deps.db, account.accountId, clients);
    const terms = ['%', '0%', '100%', '0% r', '_', 'a_b', '\\', 'k\\s', '"', '"cheese"', 'y "c', 'x', 'ab', 'xb@'];
    for (const term of [...terms, 'mixed c', 'MIXED CASE', 'e@ex', 'D@EXAMPLE.c', 'nobody', '%%', '__']) {
      const page = await search(account.key, term);
      assert.deepEqual(
        page.data.map((c) => c.id),
        expected(clients, ids, term),
        `search ${JSON.stringify(term)}`,
      );
      assert.equal(page.pagination.total, expected(clients, ids, term).length, `total of ${JSON.stringify(term)}`);
    }
  });

  test('Unicode: accents, ß, dotted İ, Greek and emoji fold exactly as JavaScript toLowerCase does', async () => {
    const account = await createAccount(ctx);
    const clients: SeedClient[] = [
      { name: 'ÉLODIE Çavuşoğlu', email: 'elodie@x.example' },
      { name: 'Jörg Straße', email: 'jorg@x.example' },
      { name: 'İstanbul Stüdyo', email: 'ist@x.example' },
      { name: 'ΟΔΥΣΣΕΥΣ Παπαδόπουλος', email: 'odysseus@x.example' },
      { name: 'Sunny 📷 Studio', email: 'sun@x.example' },
      { name: 'Elodie Plain', email: 'plain@x.example' },
    ];
    const ids = await seedClients(ctx.deps.db, account.accountId, clients);
    for (const term of [
      'élodie',
      'ÉLO',
      'elodie',
      'çavuş',
      'ÇAVUŞ',
      'straße',
      'STRASSE',
      'STRAßE',
      'i̇stanbul',
      'İSTAN',
      'istanbul',
      'οδυσσευσ',
      'ΟΔΥΣ',
      'παπαδό',
      '📷',
      'y 📷 s',
      '📷 st',
      'ö',
    ]) {
      const page = await search(account.key, term);
      assert.deepEqual(
        page.data.map((c) => c.id),
        expected(clients, ids, term),
        `search ${JSON.stringify(term)}`,
      );
      assert.equal(page.pagination.total, expected(clients, ids, term).length);
    }
  });

  test('random names and terms agree with the reference model, pages and totals included', async () => {
    const account = await createAccount(ctx);
    // A small alphabet makes overlaps, repeats and near misses common.
    const char = fc.constantFrom('a', 'b', 'A', 'B', ' ', '%', '_', '\\', '"', 'é', 'É', 'ß', '📷', '.', '@');
    const text = fc.array(char, { minLength: 1, maxLength: 12 }).map((cs) => cs.join(''));
    const clients = fc
      .sample(fc.record({ name: text, email: text }), { numRuns: 80, seed: 7 })
      // Emails are unique per account; a number keeps them so without matching any term.
      .map((c, i) => ({ name: c.name, email: `${c.email}${i}@x.example` }));
    const ids = await seedClients(ctx.deps.db, account.accountId, clients);
    const terms = fc.sample(
      fc.array(char, { minLength: 1, maxLength: 5 }).map((cs) => cs.join('')),
      {
        numRuns: 150,
        seed: 11,
      },
    );
    for (const term of terms) {
      const want = expected(clients, ids, term);
      const page = await ctx.services.clients.list(account.accountId, { search: term, limit: 100 });
      assert.deepEqual(
        page.data.map((c) => c.id),
        want,
        `search ${JSON.stringify(term)}`,
      );
      assert.equal(page.pagination.total, want.length, `total of ${JSON.stringify(term)}`);
    }
    // A page past the end has no rows and still the true total.
    const past = await ctx.services.clients.list(account.accountId, { search: 'ab', limit: 100, page: 9 });
    assert.deepEqual(past, {
      data: [],
      pagination: {
        page: 9,
        limit: 100,
        total: expected(clients, ids, 'ab').length,
        total_exact: true,
        next_cursor: null,
      },
    });
    const long = clients.map((c) => Array.from(c.name.toLowerCase())).find((cs) => cs.length >= 3) ?? [];
    const indexedTerm = long.slice(0, 3).join('');
    const pastIndexed = await ctx.services.clients.list(account.accountId, {
      search: indexedTerm,
      limit: 100,
      page: 9,
    });
    assert.equal(pastIndexed.pagination.total, expected(clients, ids, indexedTerm).length);
    assert.ok(pastIndexed.pagination.total > 0);
    // Paging a search walks the same rows, newest first; its total counts through the page, exact
    // on the last (docs/api.md §19), while the dashboard's count says how many match in all.
    const term = 'a';
    const want = expected(clients, ids, term);
    assert.ok(want.length > 7, 'more than one page');
    const walked: string[] = [];
    for (let page = 1; walked.length < want.length; page += 1) {
      const p = await ctx.services.clients.list(account.accountId, { search: term, limit: 7, page });
      walked.push(...p.data.map((c) => c.id));
      assert.equal(p.pagination.total, walked.length, `page ${page}`);
      assert.equal(p.pagination.total_exact, walked.length === want.length, `page ${page}`);
      assert.equal(p.pagination.next_cursor === null, walked.length === want.length, `page ${page}`);
      const counted = await ctx.services.clients.list(
        account.accountId,
        { search: term, limit: 7, page },
        { countMatches: true },
      );
      assert.deepEqual([counted.pagination.total, counted.pagination.total_exact], [want.length, true]);
    }
    assert.deepEqual(walked, want);
    // By cursor: the same, the cursor carrying what the pages before it held.
    const byCursor: string[] = [];
    let cursor: string | null = null;
    do {
      const ask: { search: string; limit: number; cursor?: string } = { search: term, limit: 7 };
      if (cursor !== null) ask.cursor = cursor;
      const p = await ctx.services.clients.list(account.accountId, ask);
      byCursor.push(...p.data.map((c) => c.id));
      cursor = p.pagination.next_cursor;
      assert.deepEqual([p.pagination.total, p.pagination.total_exact], [byCursor.length, cursor === null]);
    } while (cursor !== null);
    assert.deepEqual(byCursor, want);
  });

  test('renamed, re-addressed and deleted clients are found by what they are now', async () => {
    const account = await createAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/clients', {
      key: account.key,
      body: { name: 'Quintessa Vale', email: 'qv@old.example' },
    });
    const id = created.json<{ id: string }>().id;
    assert.deepEqual(
      (await search(account.key, 'quintessa')).data.map((c) => c.id),
      [id],
    );
    await call(ctx, 'PATCH', `/v1/clients/${id}`, {
      key: account.key,
      body: { name: 'Rosalind Vale', email: 'rv@new.example' },
    });
    assert.equal((await search(account.key, 'quintessa')).pagination.total, 0);
    assert.equal((await search(account.key, 'old.example')).pagination.total, 0);
    assert.deepEqual(
      (await search(account.key, 'rosalind')).data.map((c) => c.id),
      [id],
    );
    assert.deepEqual(
      (await search(account.key, 'new.exa')).data.map((c) => c.id),
      [id],
    );
    await call(ctx, 'DELETE', `/v1/clients/${id}`, { key: account.key });
    assert.equal((await search(account.key, 'rosalind')).pagination.total, 0);
    assert.ok((await checkCounts(ctx.deps.db)).ok);
  });

  test('the query plan uses the trigram index (FTS5 on SQLite, pg_trgm GIN on PostgreSQL)', async () => {
    const account = await createAccount(ctx);
    const other = await createAccount(ctx);
    // Enough rows that PostgreSQL's planner prefers an index to reading the table.
    await seedClients(
      ctx.deps.db,
      account.accountId,
      Array.from({ length: 3000 }, (_, i) => plausibleClient(i)),
    );
    await seedClients(
      ctx.deps.db,
      other.accountId,
      Array.from({ length: 3000 }, (_, i) => plausibleClient(i + 5000)),
    );
    const db = ctx.deps.db;
    if (isPostgres) await sql`analyze clients`.execute(db.kysely);
    const plan = async (term: string): Promise<string> => {
      const query = clientMatches(db.kysely, db.dialect, account.accountId, term)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(20)
        .compile();
      const explain = isPostgres ? 'explain ' : 'explain query plan ';
      const { rows } = await db.kysely.executeQuery<Record<string, unknown>>({
        ...query,
        sql: explain + query.sql,
      });
      return rows.map((r) => String(isPostgres ? r['QUERY PLAN'] : r.detail)).join('\n');
    };
    // A selective term (one client): the planner's choice, not forced.
    const one = plausibleClient(1234).name;
    const indexed = await plan(one.toLowerCase());
    if (isPostgres) assert.match(indexed, /clients_(name|email)_trgm_idx/, indexed);
    else assert.match(indexed, /VIRTUAL TABLE INDEX .*clients_fts|SCAN clients_fts VIRTUAL TABLE INDEX/, indexed);
    assert.doesNotMatch(indexed, /SCAN clients\b(?! USING)/, indexed);
    // A term too short for a trigram reads the account's clients only, by its index.
    const short = await plan('wh');
    if (!isPostgres) assert.match(short, /clients USING INDEX|clients_account/, short);
    // And the answers through the index are right at this size too.
    for (const term of [one, 'Whitfield 1', 'wh']) {
      const page = await search(account.key, term);
      const want = Array.from({ length: 3000 }, (_, i) => plausibleClient(i)).filter((c) => matches(c, term));
      // Through the page (100 at most), exact when nothing follows (docs/api.md §19).
      assert.deepEqual(
        [page.pagination.total, page.pagination.total_exact],
        [Math.min(want.length, 100), want.length <= 100],
        term,
      );
      assert.ok(want.length > 0);
      const counted = await ctx.services.clients.list(account.accountId, { search: term }, { countMatches: true });
      assert.equal(counted.pagination.total, want.length, `${term}, counted`);
    }
  });
});
