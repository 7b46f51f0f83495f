// Migration 2026-12-07-1000: a property page's view counter raises the account's views version,
// not its version; any other change to the row still raises the version; down() restores the
// one version for both. Migration 2026-12-07-1200: the event log's rows, its counts and the
// webhook deliveries raise the events version, every other count the version; down() restores the
// version for all (on SQLite and, with DATABASE_URL, PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';

const BEFORE = '2026-11-28-1000-team';
const THIS = '2026-12-07-1000-page-view-versions';
const EVENT_LOG = '2026-12-07-1200-event-log-versions';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

const versionRow = async () =>
  (
    await sql<{
      version: number | string;
      views_version?: number | string;
      events_version?: number | string;
    }>`select * from account_versions where account_id = 'acc_01A'`.execute(deps.db.kysely)
  ).rows[0];

const views = () =>
  sql`update property_pages set views = views + 1 where listing_id = 'lst_01A'`.execute(deps.db.kysely);
const retoken = (token: string) =>
  sql`update property_pages set token = ${token} where listing_id = 'lst_01A'`.execute(deps.db.kysely);

test('a page view raises the views version alone; down() makes it raise the version again', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'Ana@X.test', 'ana@x.test', '!', ${t}, ${t})`.execute(db);
  await sql`insert into listings (id, account_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', '1 Main St', 'active', ${t}, ${t})`.execute(db);
  await sql`insert into property_pages (listing_id, account_id, token, unbranded_token, published_at)
            values ('lst_01A', 'acc_01A', 'tok1', 'untok1', ${t})`.execute(db);
  assert.equal((await migrator.migrateTo(THIS)).error, undefined);

  const start = await versionRow();
  assert.equal(Number(start?.views_version), 0);
  await views();
  const viewed = await versionRow();
  assert.equal(Number(viewed?.version), Number(start?.version), 'a view leaves the version');
  assert.equal(Number(viewed?.views_version), 1);
  await retoken('tok2');
  const changed = await versionRow();
  assert.equal(Number(changed?.version), Number(start?.version) + 1, 'another change raises it');
  assert.equal(Number(changed?.views_version), 1);

  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const down = await versionRow();
  assert.equal(down?.views_version, undefined, 'the column is gone');
  await views();
  assert.equal(Number((await versionRow())?.version), Number(down?.version) + 1);
});

test('the event log, its counts and the deliveries raise the events version alone; down() undoes it', async () => {
  // The account of the test above, at the version before 2026-12-07-1000.
  assert.equal((await migrator.migrateTo(EVENT_LOG)).error, undefined);
  const db = deps.db.kysely;
  const t = '2026-01-01T00:00:00.000Z';
  const event = (id: string, type: string) =>
    sql`insert into events (id, account_id, type, data, listed, created_at)
        values (${id}, 'acc_01A', ${type}, '{"object":{}}', 1, ${t})`.execute(db);
  const count = (counter: string) =>
    sql`insert into account_counts (account_id, counter, n) values ('acc_01A', ${counter}, 1)
        on conflict (account_id, counter) do update set n = account_counts.n + 1`.execute(db);
  const delivery = (id: string, eventId: string) =>
    sql`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, status, created_at)
        values (${id}, 'acc_01A', 'whe_01A', ${eventId}, 'client_link.viewed', 'pending', ${t})`.execute(db);
  const numbers = async () => {
    const row = await versionRow();
    return { version: Number(row?.version), events: Number(row?.events_version) };
  };

  await sql`insert into webhook_endpoints (id, account_id, url, events, enabled, secret, created_at, updated_at)
            values ('whe_01A', 'acc_01A', 'https://x.test/', '["*"]', 1, 's', ${t}, ${t})`.execute(db);
  const start = await numbers();
  assert.equal(start.events, 0);
  // A view's share of its transaction (its event and counts, created then raised), its delivery
  // and that delivery's attempt, another type's event, and the pruning of the view.
  const steps = [
    () => event('evt_01A', 'client_link.viewed'),
    () => count('events'),
    () => count('events:client_link.viewed'),
    () => count('events'),
    () => delivery('whd_01A', 'evt_01A'),
    () => sql`update webhook_deliveries set attempts = 1 where id = 'whd_01A'`.execute(db),
    () => event('evt_01B', 'listing.updated'),
    () => sql`delete from events where id = 'evt_01A'`.execute(db),
    () => sql`update account_counts set n = n - 1 where counter like 'events%'`.execute(db),
    () => sql`delete from account_counts where counter = 'events:client_link.viewed'`.execute(db),
  ];
  for (const [i, step] of steps.entries()) {
    const was = await numbers();
    await step();
    const is = await numbers();
    assert.equal(is.version, start.version, `step ${i} leaves the version`);
    assert.ok(is.events > was.events, `step ${i} raises the events version`);
  }

  const logged = await numbers();
  await count('clients');
  await sql`update account_counts set n = n + 1 where counter = 'clients'`.execute(db);
  const other = await numbers();
  assert.deepEqual(other, { version: logged.version + 2, events: logged.events }, 'any other count: the version');

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);
  const down = await versionRow();
  assert.equal(down?.events_version, undefined, 'the column is gone');
  await event('evt_01C', 'client_link.viewed');
  await count('events');
  await delivery('whd_01C', 'evt_01C');
  assert.equal(Number((await versionRow())?.version), Number(down?.version) + 3);
});
