// An existing database upgrades in place: notifications queued before the job queue existed
// become jobs, due when they were, with their attempts and last error; down() gives them back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-11-22-0005-counts-and-search';
const THIS = '2026-11-23-0006-job-queue';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

test('queued notifications become due jobs; sent ones do not; down() restores their due times', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_A', 'A', 'a@x.test', 'a@x.test', 'x', ${t}, ${t})`.execute(db);
  const rows = [
    ['ntf_1', 'queued', '2026-01-01T00:05:00.000Z', 2, '451 later'],
    ['ntf_2', 'sent', '2026-01-01T00:00:00.000Z', 1, null],
  ] as const;
  for (const [id, status, due, attempts, error] of rows) {
    await sql`insert into notifications (id, account_id, client_id, listing_id, to_email, status, attempts,
              last_error, message_id, next_attempt_at, created_at, updated_at)
              values (${id}, 'acc_A', 'cli_1', 'lst_1', 'c@x.test', ${status}, ${attempts}, ${error},
                      ${`<${id}@x>`}, ${due}, ${t}, ${t})`.execute(db);
  }

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const jobs = await db.selectFrom('jobs').selectAll().execute();
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0]?.kind, 'notification.send');
  assert.equal(jobs[0]?.subject_id, 'ntf_1');
  assert.equal(jobs[0]?.run_at, '2026-01-01T00:05:00.000Z');
  assert.equal(jobs[0]?.attempts, 2);
  assert.equal(jobs[0]?.lease, null);
  const columns = (await db.introspection.getTables()).find((x) => x.name === 'notifications')?.columns;
  assert.ok(!columns?.some((c) => c.name === 'next_attempt_at'));

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const { rows: back } = await sql<{
    id: string;
    next_attempt_at: string;
  }>`select id, next_attempt_at from notifications order by id`.execute(db);
  assert.deepEqual(back, [
    { id: 'ntf_1', next_attempt_at: '2026-01-01T00:05:00.000Z' },
    { id: 'ntf_2', next_attempt_at: t },
  ]);
  assert.ok(!(await db.introspection.getTables()).some((x) => x.name === 'jobs'));
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
});
