// Migration 2026-12-07-2000 (docs/api.md §28): client links become the `client` rows of gallery_links
// with their tokens (so their URLs), counters, controls, favorites and password answers unchanged;
// one client link per gallery still; a link's counters still raise the views version alone; the
// notifications take a share link's email (no client) and keep every row, index and trigger (on
// SQLite and, with DATABASE_URL, PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import type { Deps } from '../../deps.ts';
import { startUpgrade, type Upgrade } from '../../../test/support/upgrade.ts';
import { isPostgres } from '../../../test/support/test-app.ts';

const BEFORE = '2026-12-07-1000-page-view-versions';
const THIS = '2026-12-07-2000-gallery-links';

let upgrade: Upgrade;
let deps: Deps;
let migrator: Migrator;

before(async () => {
  upgrade = await startUpgrade();
  ({ deps, migrator } = upgrade);
});
after(() => upgrade.stop());

const t = '2026-01-01T00:00:00.000Z';
const TOKEN = 'tokTOKENtokTOKENtokTOKENtokTOKEN';

const versions = async () => {
  const row = (
    await sql<{
      version: number | string;
      views_version: number | string;
    }>`select version, views_version from account_versions where account_id = 'acc_01A'`.execute(deps.db.kysely)
  ).rows[0];
  return { version: Number(row?.version), views: Number(row?.views_version) };
};

test('client links move to gallery_links unchanged; notifications take share links', async () => {
  assert.equal((await migrator.migrateTo(BEFORE)).error, undefined);
  const db = deps.db.kysely;
  await sql`insert into accounts (id, name, email, email_normalized, password_hash, created_at, updated_at)
            values ('acc_01A', 'A', 'ana@x.test', 'ana@x.test', '!', ${t}, ${t})`.execute(db);
  await sql`insert into clients (id, account_id, name, name_normalized, email, email_normalized, created_at, updated_at)
            values ('cli_01A', 'acc_01A', 'Cleo', 'cleo', 'cleo@x.test', 'cleo@x.test', ${t}, ${t})`.execute(db);
  await sql`insert into listings (id, account_id, client_id, address, status, created_at, updated_at)
            values ('lst_01A', 'acc_01A', 'cli_01A', '1 Main St', 'active', ${t}, ${t})`.execute(db);
  await sql`insert into media (id, account_id, listing_id, kind, filename, content_type, size, sha256, position,
              storage_key, created_at)
            values ('med_01A', 'acc_01A', 'lst_01A', 'photo', 'a.jpg', 'image/jpeg', 10, 'x', 1, 'k', ${t})`.execute(
    db,
  );
  await sql`insert into client_links (listing_id, account_id, client_id, token, views, downloads, first_viewed_at,
              last_viewed_at, created_at, expires_at, password_hash, downloads_enabled, favorites_note,
              favorites_submitted_at, favorites_updated_at)
            values ('lst_01A', 'acc_01A', 'cli_01A', ${TOKEN}, 7, 3, ${t}, '2026-01-02T00:00:00.000Z', ${t},
              '2027-01-01T00:00:00.000Z', 'scrypt$hash', 0, 'A note', ${t}, ${t})`.execute(db);
  await sql`insert into client_link_favorites (listing_id, media_id, account_id, created_at)
            values ('lst_01A', 'med_01A', 'acc_01A', ${t})`.execute(db);
  await sql`insert into client_link_password_failures (listing_id, account_id, address, failed_at)
            values ('lst_01A', 'acc_01A', '10.0.0.1', ${t})`.execute(db);
  await sql`insert into notifications (id, account_id, client_id, listing_id, to_email, status, attempts, last_error,
              message_id, created_at, updated_at, sent_at)
            values ('ntf_01A', 'acc_01A', 'cli_01A', 'lst_01A', 'cleo@x.test', 'sent', 1, null, '<m@x>', ${t}, ${t},
              ${t})`.execute(db);

  assert.equal((await migrator.migrateTo(THIS)).error, undefined);

  const links = await sql<Record<string, unknown>>`select * from gallery_links`.execute(db);
  assert.equal(links.rows.length, 1);
  const link = links.rows[0]!;
  assert.deepEqual(
    {
      id: link.id,
      kind: link.kind,
      listing_id: link.listing_id,
      client_id: link.client_id,
      token: link.token,
      views: Number(link.views),
      downloads: Number(link.downloads),
      first: link.first_viewed_at,
      last: link.last_viewed_at,
      created: link.created_at,
      expires: link.expires_at,
      password: link.password_hash,
      downloads_enabled: Number(link.downloads_enabled),
      favorites_enabled: Number(link.favorites_enabled),
      note: link.favorites_note,
      label: link.label,
      min: link.selection_min,
    },
    {
      id: 'gln_lst_01A',
      kind: 'client',
      listing_id: 'lst_01A',
      client_id: 'cli_01A',
      token: TOKEN,
      views: 7,
      downloads: 3,
      first: t,
      last: '2026-01-02T00:00:00.000Z',
      created: t,
      expires: '2027-01-01T00:00:00.000Z',
      password: 'scrypt$hash',
      downloads_enabled: 0,
      favorites_enabled: 1,
      note: 'A note',
      label: null,
      min: null,
    },
  );
  const favorites = await sql<{ link_id: string; media_id: string }>`
    select link_id, media_id from gallery_link_favorites`.execute(db);
  assert.deepEqual(favorites.rows, [{ link_id: 'gln_lst_01A', media_id: 'med_01A' }]);
  const failures = await sql<{ link_id: string; address: string }>`
    select link_id, address from gallery_link_password_failures`.execute(db);
  assert.deepEqual(failures.rows, [{ link_id: 'gln_lst_01A', address: '10.0.0.1' }]);
  for (const old of ['client_links', 'client_link_favorites', 'client_link_password_failures']) {
    await assert.rejects(sql`select 1 from ${sql.id(old)}`.execute(db), old);
  }

  // One client link per gallery; share links beside it.
  await assert.rejects(
    sql`insert into gallery_links (id, kind, listing_id, account_id, client_id, token, created_at, updated_at)
        values ('gln_2', 'client', 'lst_01A', 'acc_01A', 'cli_01A', 'other-token', ${t}, ${t})`.execute(db),
  );
  await sql`insert into gallery_links (id, kind, listing_id, account_id, label, token, created_at, updated_at)
            values ('shl_01A', 'share', 'lst_01A', 'acc_01A', 'Team', 'share-token', ${t}, ${t})`.execute(db);

  // A view raises the views version alone; another change raises the version.
  const start = await versions();
  await sql`update gallery_links set views = views + 1 where id = 'shl_01A'`.execute(db);
  const viewed = await versions();
  assert.deepEqual(viewed, { version: start.version, views: start.views + 1 });
  await sql`update gallery_links set label = 'Renamed' where id = 'shl_01A'`.execute(db);
  assert.equal((await versions()).version, start.version + 1);
  await sql`insert into gallery_link_comments (link_id, media_id, account_id, text, updated_at)
            values ('shl_01A', 'med_01A', 'acc_01A', 'Nice', ${t})`.execute(db);
  assert.equal((await versions()).version, start.version + 2, 'a comment raises the version');

  // Notifications: every row kept; a share link's email has no client; the table keeps its indexes
  // and its version trigger.
  const kept = await sql<{ id: string; client_id: string; share_link_id: string | null; attempts: number | string }>`
    select id, client_id, share_link_id, attempts from notifications`.execute(db);
  assert.deepEqual(
    kept.rows.map((r) => ({ ...r, attempts: Number(r.attempts) })),
    [{ id: 'ntf_01A', client_id: 'cli_01A', share_link_id: null, attempts: 1 }],
  );
  const before = (await versions()).version;
  await sql`insert into notifications (id, account_id, client_id, share_link_id, listing_id, to_email, status,
              attempts, last_error, message_id, created_at, updated_at, sent_at)
            values ('ntf_01B', 'acc_01A', null, 'shl_01A', 'lst_01A', 'team@x.test', 'queued', 0, null, '<n@x>',
              ${t}, ${t}, null)`.execute(db);
  assert.equal((await versions()).version, before + 1, "the notifications' version trigger is kept");
  if (!isPostgres) {
    const indexes = await sql<{ name: string }>`
      select name from sqlite_master where type = 'index' and tbl_name = 'notifications' and sql is not null
      order by name`.execute(db);
    assert.deepEqual(
      indexes.rows.map((r) => r.name),
      [
        'notifications_account_order_idx',
        'notifications_account_status_order_idx',
        'notifications_client_idx',
        'notifications_listing_status_idx',
      ].sort(),
    );
  }

  // Deleting the gallery takes every link of it, and what hangs on them.
  await sql`delete from listings where id = 'lst_01A'`.execute(db);
  for (const table of ['gallery_links', 'gallery_link_favorites', 'gallery_link_comments']) {
    const n = await sql<{ n: number | string }>`select count(*) as n from ${sql.id(table)}`.execute(db);
    assert.equal(Number(n.rows[0]?.n), 0, table);
  }
});
