// A PostgreSQL URL naming a database that does not exist: the start says, in one line, how to
// create it (PostgreSQL never creates it itself). Runs when the suite runs on PostgreSQL
// (DATABASE_URL=postgres://...), against a database name that is never created.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';

const base = process.env.DATABASE_URL;
const onPostgres = base !== undefined && /^postgres(ql)?:/.test(base);

test(
  'a database that does not exist: one line naming it and how to create it',
  { skip: onPostgres ? false : 'runs on PostgreSQL (DATABASE_URL=postgres://...)' },
  async () => {
    const name = `lightbox_missing_${randomBytes(4).toString('hex')}`;
    const url = new URL(base ?? '');
    url.pathname = `/${name}`;
    const db = openDatabase({ kind: 'postgres', url: url.toString() });
    try {
      await assert.rejects(migrateToLatest(db), (err: Error) => {
        assert.equal(
          err.message,
          `database "${name}" does not exist: create it (e.g. createdb "${name}", or in psql: CREATE DATABASE "${name}";) and start again`,
        );
        return true;
      });
    } finally {
      await db.destroy();
    }
  },
);
