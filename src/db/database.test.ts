// The SQLite statement cache: statements are reused by SQL text, never while one is busy, and
// the cache stays bounded. SQLite-only by nature (PostgreSQL has no such wrapper), so it runs on
// a temporary SQLite file whatever DATABASE_URL says; so does the check of the settings
// openDatabase gives a SQLite file.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Generated } from 'kysely';
import { directSqlite, openDatabase, withStatementCache } from './database.ts';

describe('withStatementCache', () => {
  let dir: string;
  let sqlite: SQLite.Database;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-stmt-'));
    sqlite = new SQLite(path.join(dir, 'cache.db'));
    sqlite.exec('create table t (id integer primary key, name text not null)');
    sqlite.exec("insert into t (name) values ('a'), ('b'), ('c')");
  });

  after(async () => {
    sqlite.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('hands back the same statement for the same SQL text', () => {
    const db = withStatementCache(sqlite, 4);
    const first = db.prepare('select name from t where id = ?');
    assert.equal(db.prepare('select name from t where id = ?'), first);
    assert.notEqual(db.prepare('select name from t where id > ?'), first);
    assert.deepEqual(first.all([2]), [{ name: 'b' }]);
    assert.deepEqual(db.prepare('select name from t where id = ?').all([3]), [{ name: 'c' }]);
  });

  test('prepares a fresh statement while the cached one is iterating', () => {
    const db = withStatementCache(sqlite, 4);
    const cached = db.prepare('select name from t order by id');
    const iterator = cached.iterate([]);
    assert.deepEqual(iterator.next().value, { name: 'a' });
    const other = db.prepare('select name from t order by id');
    assert.notEqual(other, cached);
    assert.deepEqual(other.all([]), [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    iterator.return?.();
    assert.equal(db.prepare('select name from t order by id'), cached, 'the cached one is reused once free');
  });

  test('keeps at most `size` statements, dropping the oldest', () => {
    const db = withStatementCache(sqlite, 2);
    const a = db.prepare('select 1');
    const b = db.prepare('select 2');
    db.prepare('select 3');
    assert.notEqual(db.prepare('select 1'), a, 'the oldest was dropped and is prepared again');
    assert.notEqual(db.prepare('select 2'), b);
  });

  test('serves Kysely reads, writes and transactions with reused statements', async () => {
    const kysely = new Kysely<{ t: { id: Generated<number>; name: string } }>({
      dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    });
    for (let i = 0; i < 3; i++) {
      await kysely
        .insertInto('t')
        .values({ name: `n${i}` })
        .execute();
    }
    const updated = await kysely.updateTable('t').set({ name: 'z' }).where('name', '=', 'n1').executeTakeFirst();
    assert.equal(updated.numUpdatedRows, 1n);
    await assert.rejects(
      kysely.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ name: 'rolled back' }).execute();
        throw new Error('undo');
      }),
      /undo/,
    );
    const rows = await kysely.selectFrom('t').select('name').where('id', '>', 3).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => r.name),
      ['n0', 'z', 'n2'],
    );
    const count = await sql<{ n: number }>`select count(*) as n from t`.execute(kysely);
    assert.equal(count.rows[0]?.n, 6);
    // Kysely's destroy closes the database through the wrapper; reopen it for after().
    await kysely.destroy();
    assert.equal(sqlite.open, false);
    sqlite = new SQLite(path.join(dir, 'cache.db'));
  });
});

describe('openDatabase on SQLite', () => {
  test('WAL, synchronous NORMAL, foreign keys, a busy timeout and journals in memory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-open-'));
    const db = openDatabase({ kind: 'sqlite', file: path.join(dir, 'open.db') });
    try {
      const direct = directSqlite(db.kysely);
      assert.ok(direct);
      const pragma = (name: string): unknown => Object.values(direct.prepare(`pragma ${name}`).get() as object)[0];
      assert.equal(pragma('journal_mode'), 'wal');
      assert.equal(pragma('synchronous'), 1);
      assert.equal(pragma('foreign_keys'), 1);
      assert.equal(pragma('busy_timeout'), 5000);
      // decisions/0018, 7: a write's savepoint journal never spills to a temporary file.
      assert.equal(pragma('temp_store'), 2);
    } finally {
      await db.kysely.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
