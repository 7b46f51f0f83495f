// An existing database upgrades in place: rows written before migration 0005 are counted and
// searchable after it (the migration backfills both), and its down() undoes it cleanly.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Migrator } from 'kysely/migration';
import type { Insertable } from 'kysely';
import type { ClientsTable } from '../../db/schema.ts';
import { createServices, type Services } from '../../services.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';
import { checkCounts } from './counts.service.ts';

const BEFORE = '2026-11-22-0002-media';
const THIS = '2026-11-22-0005-counts-and-search';

let upgrade: Upgrade;
let deps: Deps;
let services: Services;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
  services = createServices(deps);
});
after(() => upgrade.stop());

const at = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

test('rows from before 0005 are counted and searchable after it; down() and up() again agree', async () => {
  const { error } = await migrator.migrateTo(BEFORE);
  assert.equal(error, undefined);
  const db = deps.db.kysely;
  const accounts = ['acc_A', 'acc_B'];
  for (const id of accounts) {
    await db
      .insertInto('accounts')
      .values({
        id,
        name: id,
        email: `${id}@x.test`,
        email_normalized: `${id}@x.test`,
        password_hash: 'x',
        created_at: at(0),
        updated_at: at(0),
      })
      .execute();
  }
  const statuses = ['draft', 'active', 'active', 'archived', 'active'] as const;
  for (const [i, status] of statuses.entries()) {
    await db
      .insertInto('listings')
      .values({
        id: `lst_${i}`,
        account_id: 'acc_A',
        address: `${i} Old Road`,
        status,
        media_count: i === 1 ? 2 : 0,
        created_at: at(i),
        updated_at: at(i),
      })
      .execute();
  }
  for (const n of [1, 2]) {
    await db
      .insertInto('media')
      .values({
        id: `med_${n}`,
        account_id: 'acc_A',
        listing_id: 'lst_1',
        kind: 'document',
        filename: 'a.pdf',
        content_type: 'application/pdf',
        size: 1,
        sha256: 'x',
        width: null,
        height: null,
        position: n,
        storage_key: `k${n}`,
        created_at: at(n),
      })
      .execute();
  }
  const people = [
    ['cli_1', 'acc_A', 'Ingrid Oldfield', 'ingrid@old.example'],
    ['cli_2', 'acc_A', 'Björn Åkesson', 'bjorn@old.example'],
    ['cli_3', 'acc_B', 'Ingrid Other', 'ingrid@b.example'],
  ] as const;
  for (const [i, [id, account, name, email]] of people.entries()) {
    await db
      .insertInto('clients')
      // The clients of that time: no portal token yet (2026-12-07-1200 gives every client one).
      .values({
        id,
        account_id: account,
        name,
        name_normalized: name.toLowerCase(),
        email,
        email_normalized: email,
        created_at: at(i),
        updated_at: at(i),
      } as Insertable<ClientsTable>)
      .execute();
  }
  for (const [i, status] of (['queued', 'sent', 'sent', 'failed'] as const).entries()) {
    await db
      .insertInto('notifications')
      .values({
        id: `ntf_${i}`,
        account_id: 'acc_A',
        client_id: 'cli_1',
        listing_id: 'lst_0',
        to_email: 'ingrid@old.example',
        status,
        message_id: `<${i}@x>`,
        // The column of this schema version (later moved to the job queue).
        next_attempt_at: at(i),
        created_at: at(i),
        updated_at: at(i),
      } as never)
      .execute();
  }

  const check = async (): Promise<void> => {
    assert.deepEqual(await checkCounts(deps.db), { counters: [], mediaCounts: [], searchIndex: [], ok: true });
    assert.deepEqual(await services.counts.counts('acc_A'), {
      listings: { total: 5, draft: 1, active: 3, archived: 1 },
      clients: 2,
      media: 2,
      notifications: { total: 4, queued: 1, sent: 2, failed: 1, cancelled: 0 },
    });
    assert.equal((await services.listings.list('acc_A', { status: 'active' })).pagination.total, 3);
    assert.equal((await services.notifications.list('acc_A', { status: 'sent' })).pagination.total, 2);
    const found = await services.clients.list('acc_A', { search: 'INGRID' });
    assert.deepEqual(
      found.data.map((c) => c.id),
      ['cli_1'],
    );
    assert.equal((await services.clients.list('acc_A', { search: 'åkess' })).pagination.total, 1);
    assert.equal((await services.clients.list('acc_B', {})).pagination.total, 1);
  };

  // Up, down and up again over the old rows, then to the latest schema: a later migration
  // (2026-12-07-2000-gallery-links) cannot be undone, so the round trip is made before it.
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const tables = await db.introspection.getTables();
  assert.ok(!tables.some((t) => t.name === 'account_counts' || t.name === 'clients_search_keys'));
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  await migrateToLatest(deps.db);
  await check();
});
