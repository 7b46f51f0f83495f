// Conditional requests stay correct after every write path (docs/api.md §17): the API's writes, the
// dashboard's forms, the command line, the background jobs (variants, emails, webhook deliveries,
// event pruning) and the client gallery's view and download counters. Before and after each
// write, every JSON read of the account is fetched; wherever a body changed, its ETag must have
// changed too, and the old tag must then answer 200, not 304 (a stale 304 is the defect this
// catches). Each write also names reads it must change, so no step passes by changing nothing.
// Two app instances on one database (two nodes) agree on every tag, and a write through one
// changes the other's tags at once. A table the reads show without the version trigger fails.
// The app's response cache (decisions/0016) is on throughout: each read after a write is also
// compared with what an app without the cache answers, so a stale cached body fails the step.
// One file, one world: the steps run in order and share the account's resources.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { closeDeps, createDeps, type Deps } from '../src/deps.ts';
import type { App } from '../src/http/types.ts';
import { Browser } from './support/dashboard-browser.ts';
import { linkPath, visit, type ClientLinkJson } from './support/gallery.ts';
import {
  call,
  createAccount,
  createTestContext,
  isPostgres,
  offlineResolver,
  type TestAccount,
  type TestContext,
} from './support/test-app.ts';
import { jpeg, multipart, pdf } from './support/media-fixtures.ts';
import { makeVariantsNow } from './support/media-helpers.ts';
import { workerOf } from './support/notification-helpers.ts';
import { truncatedJpeg } from './support/photos.ts';
import { deliveryRunner } from './support/webhooks.ts';

const BIN = fileURLToPath(new URL('../bin/lightbox.js', import.meta.url));
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
let owner: TestAccount;
/** The owner's resources, by name; made in `before`, some added by the steps. */
const ids: Record<string, string> = {};

async function ok(method: string, url: string, body?: unknown): Promise<any> {
  const res = await call(ctx, method, url, { key: owner.key, ...(body === undefined ? {} : { body }) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body === '' ? null : res.json();
}

async function upload(listingId: string, filename: string, data: Buffer): Promise<string> {
  const { body, contentType } = multipart([{ filename, data }]);
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/v1/listings/${listingId}/media`,
    headers: { authorization: `Bearer ${owner.key}`, 'content-type': contentType },
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ data: { id: string }[] }>().data[0]!.id;
}

const email = (): string => `c.${randomBytes(4).toString('hex')}@clients.test`;

/** Every JSON read of the owner's account worth watching (lists, filtered lists, each resource). */
function reads(): string[] {
  const l = ids.listing!;
  return [
    '/v1/listings',
    '/v1/listings?status=active',
    '/v1/listings?limit=1&page=2',
    `/v1/listings/${l}`,
    `/v1/listings/${ids.spare}`,
    `/v1/listings/${l}/media`,
    `/v1/listings/${l}/media/${ids.document}`,
    `/v1/listings/${l}/media/${ids.photo}`,
    `/v1/listings/${l}/media/${ids.broken}`,
    '/v1/clients',
    '/v1/clients?search=ada',
    `/v1/clients/${ids.client}`,
    `/v1/clients/${ids.client}/listings`,
    `/v1/clients/${ids.other}`,
    '/v1/notifications',
    `/v1/notifications/${ids.notification}`,
    '/v1/webhook_endpoints',
    `/v1/webhook_endpoints/${ids.endpoint}`,
    `/v1/webhook_endpoints/${ids.endpoint}/deliveries`,
    '/v1/events',
    '/v1/events?type=listing.updated',
    `/v1/events/${ids.event}`,
  ];
}

interface Seen {
  status: number;
  etag: string | undefined;
  body: string;
}

async function look(app: App = ctx.app): Promise<Map<string, Seen>> {
  const seen = new Map<string, Seen>();
  for (const url of reads()) {
    const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${owner.key}` } });
    seen.set(url, { status: res.statusCode, etag: res.headers.etag, body: res.body });
  }
  return seen;
}

/**
 * Runs a write and checks every read: a changed body has a changed tag (and the old tag answers
 * 200 with the new body), each read in `changes` did change, and every body the app (its response
 * cache warmed by the reads before the write) sends is the body an app without the cache builds.
 */
async function step(changes: string[], write: () => Promise<unknown>): Promise<void> {
  const before = await look();
  await write();
  const now = await look();
  const fresh = await look(uncached.app);
  for (const [url, was] of before) {
    const is = now.get(url)!;
    // Errors are never cached (and carry their request's id).
    if (is.status === 200) {
      assert.equal(is.body, fresh.get(url)?.body, `${url}: a cached body went stale after the write`);
      assert.equal(is.etag, fresh.get(url)?.etag, url);
    }
    if (was.status !== 200) continue;
    if (is.status === 200 && is.body !== was.body) {
      assert.notEqual(is.etag, was.etag, `${url}: the body changed but its ETag did not`);
    }
    if (is.etag === was.etag) assert.equal(is.body, was.body, url);
    const res = await call(ctx, 'GET', url, { key: owner.key, headers: { 'if-none-match': String(was.etag) } });
    if (is.body !== was.body || is.status !== 200) {
      assert.notEqual(res.statusCode, 304, `${url}: a stale 304 after the write`);
    }
  }
  for (const url of changes) {
    const resolved = url.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!);
    const was = before.get(resolved);
    const is = now.get(resolved);
    assert.ok(was !== undefined && is !== undefined, `${resolved} is watched`);
    assert.ok(is.body !== was.body || is.status !== was.status, `${resolved}: the write should show here`);
  }
}

/** The `lightbox` command on this test's database and data folder. */
function lightbox(args: string[]): Promise<string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATA_DIR: ctx.dataDir, LOG_LEVEL: 'warn' };
  if (ctx.config.database.kind === 'postgres') env.DATABASE_URL = ctx.config.database.url;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

/** A second app on the same database with no response cache: what every read should answer. */
let uncached: { app: App; deps: Deps };

before(async () => {
  ctx = await createTestContext();
  const deps = createDeps(
    { ...ctx.config, http: { ...ctx.config.http, responseCacheBytes: 0 } },
    { resolve: offlineResolver },
  );
  const { app } = await buildApp(deps, { logStream: new PassThrough() });
  await app.ready();
  uncached = { app, deps };
  owner = await createAccount(ctx, 'Versioned studio');
  const listing: string = (await ok('POST', '/v1/listings', { address: '1 Harbour Road', status: 'active' })).id;
  ids.listing = listing;
  ids.spare = (await ok('POST', '/v1/listings', { address: '2 Spare Lane' })).id;
  ids.client = (await ok('POST', '/v1/clients', { name: 'Ada Client', email: email() })).id;
  ids.other = (await ok('POST', '/v1/clients', { name: 'Bo Client', email: email() })).id;
  ids.document = await upload(listing, 'plan.pdf', pdf('plan'));
  ids.photo = await upload(listing, 'front.jpg', await jpeg(64, 48));
  // A photo whose original is then damaged in storage: its variants will fail.
  ids.broken = await upload(listing, 'broken.jpg', await jpeg(40, 30));
  const { storage_key: key } = await ctx.deps.db.kysely
    .selectFrom('media')
    .select('storage_key')
    .where('id', '=', ids.broken)
    .executeTakeFirstOrThrow();
  await ctx.deps.storage.put(key, Readable.from([await truncatedJpeg()]), { contentType: 'image/jpeg' });
  ids.endpoint = (await ok('POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.test/in' })).id;
  const event = await ctx.deps.db.kysely
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', owner.accountId)
    .where('type', '=', 'listing.created')
    .executeTakeFirstOrThrow();
  ids.event = event.id;
});

after(async () => {
  await uncached.app.close();
  await closeDeps(uncached.deps);
  await ctx.close();
});

describe('every write path changes the ETag of every read it changes', () => {
  test('API: galleries, clients, assignment, links, notifications', async () => {
    await step(['/v1/listings'], () => ok('POST', '/v1/listings', { address: '3 New Street' }));
    await step(['/v1/listings/{listing}', '/v1/listings?status=active'], () =>
      ok('PATCH', `/v1/listings/${ids.listing}`, { beds: 3 }),
    );
    await step(['/v1/clients'], () => ok('POST', '/v1/clients', { name: 'Cy Client', email: email() }));
    await step(['/v1/clients/{other}'], () => ok('PATCH', `/v1/clients/${ids.other}`, { company: 'Acme' }));
    await step(['/v1/listings/{listing}', '/v1/clients/{client}', '/v1/notifications'], () =>
      ok('POST', `/v1/clients/${ids.client}/listings/${ids.listing}`),
    );
    const notification = await ctx.deps.db.kysely
      .selectFrom('notifications')
      .select('id')
      .where('account_id', '=', owner.accountId)
      .executeTakeFirstOrThrow();
    ids.notification = notification.id;
    await step(['/v1/notifications'], () => ok('POST', `/v1/clients/${ids.client}/listings/${ids.listing}/notify`));
    await step(['/v1/listings/{listing}'], () => ok('POST', `/v1/listings/${ids.listing}/client_link`));
    await step(['/v1/listings/{spare}'], () =>
      ok('POST', `/v1/clients/${ids.other}/listings/${ids.spare}?notify=false`),
    );
    await step(['/v1/listings/{spare}', '/v1/clients/{other}'], () =>
      ok('DELETE', `/v1/clients/${ids.other}/listings/${ids.spare}`),
    );
  });

  test('API: media', async () => {
    await step(['/v1/listings/{listing}', '/v1/listings/{listing}/media'], () =>
      upload(ids.listing!, 'more.pdf', pdf('more')),
    );
    await step(['/v1/listings/{listing}/media/{document}'], () =>
      ok('PATCH', `/v1/listings/${ids.listing}/media/${ids.document}`, { caption: 'The plan' }),
    );
    await step(['/v1/listings/{listing}/media'], async () => {
      const list = await ok('GET', `/v1/listings/${ids.listing}/media`);
      const order = (list.data as { id: string }[]).map((m) => m.id).reverse();
      return ok('PUT', `/v1/listings/${ids.listing}/media/order`, { media_ids: order });
    });
    await step(['/v1/listings/{listing}'], () =>
      ok('PATCH', `/v1/listings/${ids.listing}`, { cover_media_id: ids.photo }),
    );
  });

  test('API: webhook endpoints and deliveries', async () => {
    await step(['/v1/webhook_endpoints'], () =>
      ok('POST', '/v1/webhook_endpoints', { url: 'https://b.example.test/' }),
    );
    await step(['/v1/webhook_endpoints/{endpoint}'], () =>
      ok('PATCH', `/v1/webhook_endpoints/${ids.endpoint}`, { description: 'CRM' }),
    );
    await step([], () => ok('POST', `/v1/webhook_endpoints/${ids.endpoint}/rotate_secret`));
    await step(['/v1/webhook_endpoints/{endpoint}/deliveries'], async () => {
      ids.delivery = (await ok('POST', `/v1/webhook_endpoints/${ids.endpoint}/test`)).id;
    });
  });

  test('background jobs: variants, emails, webhook deliveries, event pruning', async () => {
    await step(['/v1/listings/{listing}/media/{photo}', '/v1/listings/{listing}/media/{broken}'], () =>
      makeVariantsNow(ctx),
    );
    await step(['/v1/notifications/{notification}', '/v1/notifications'], () => workerOf(ctx).drain());
    // The host resolves nowhere: the attempt fails, its count and error are recorded.
    await step(['/v1/webhook_endpoints/{endpoint}/deliveries'], async () => {
      const runner = deliveryRunner(ctx.deps);
      await runner.drain();
      await runner.close();
    });
    await step(['/v1/webhook_endpoints/{endpoint}/deliveries'], () =>
      ok('POST', `/v1/webhook_endpoints/${ids.endpoint}/deliveries/${ids.delivery}/retry`),
    );
    // An event aged past 30 days (the aging is itself a write: the step starts after it).
    await ctx.deps.db.kysely
      .updateTable('events')
      .set({ created_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', ids.event!)
      .execute();
    await step(['/v1/events/{event}', '/v1/events'], () => ctx.services.webhooks.pruneEvents());
  });

  test("the client gallery: a view and a download counted on the gallery's client_link", async () => {
    const gallery = await ok('GET', `/v1/listings/${ids.listing}`);
    const path = linkPath(gallery.client_link as ClientLinkJson);
    await step(['/v1/listings/{listing}'], async () => {
      assert.equal((await visit(ctx, path)).statusCode, 200);
    });
    await step(['/v1/listings/{listing}'], async () => {
      const res = await visit(ctx, `${path}/media/${ids.document}/download`);
      assert.equal(res.statusCode, 200);
    });
  });

  test('the dashboard: a webhook endpoint added, an email resent', async () => {
    const browser = new Browser(ctx.app);
    assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
    await step(['/v1/webhook_endpoints'], async () => {
      await browser.get('/dashboard/settings/webhooks');
      const res = await browser.post('/dashboard/settings/webhooks', {
        url: 'https://dash.example.test/hook',
        events: 'all',
        description: '',
      });
      assert.equal(res.statusCode, 303, res.body);
    });
    await step(['/v1/notifications'], async () => {
      await browser.get('/dashboard');
      const res = await browser.post(`/dashboard/clients/${ids.client}/galleries/${ids.listing}/resend`, {});
      assert.equal(res.statusCode, 303, res.body);
    });
  });

  test('the command line: variants queued again, counts repaired', async () => {
    await step(['/v1/listings/{listing}/media/{broken}'], () => lightbox(['media', 'variants', '--failed']));
    // A wrong stored total, then the version set by hand (to one never used, so no cached body
    // answers for it), so that only `doctor --fix` can move it from there.
    const { version } = await ctx.deps.db.kysely
      .selectFrom('account_versions')
      .select('version')
      .where('account_id', '=', owner.accountId)
      .executeTakeFirstOrThrow();
    await sql`update account_counts set n = n + 7 where account_id = ${owner.accountId} and counter = 'clients'`.execute(
      ctx.deps.db.kysely,
    );
    await ctx.deps.db.kysely
      .updateTable('account_versions')
      .set({ version: version + 500 })
      .where('account_id', '=', owner.accountId)
      .execute();
    await step(['/v1/clients'], () => lightbox(['doctor', '--fix']));
  });

  test('API: deletions', async () => {
    await step(['/v1/listings/{listing}/media', '/v1/listings/{listing}/media/{document}'], () =>
      ok('DELETE', `/v1/listings/${ids.listing}/media/${ids.document}`),
    );
    await step(['/v1/clients/{client}', '/v1/listings/{listing}', '/v1/clients'], () =>
      ok('DELETE', `/v1/clients/${ids.client}`),
    );
    await step(['/v1/webhook_endpoints/{endpoint}', '/v1/webhook_endpoints'], () =>
      ok('DELETE', `/v1/webhook_endpoints/${ids.endpoint}`),
    );
    await step(['/v1/listings/{spare}', '/v1/listings'], () => ok('DELETE', `/v1/listings/${ids.spare}`));
  });
});

describe('two nodes on one database', () => {
  let second: { app: App; deps: Deps } | undefined;

  after(async () => {
    if (second === undefined) return;
    await second.app.close();
    await closeDeps(second.deps);
  });

  test('agree on every tag, and a write through one changes the other at once', async () => {
    const deps = createDeps(ctx.config, { resolve: offlineResolver });
    const { app } = await buildApp(deps, { logStream: new PassThrough() });
    await app.ready();
    second = { app, deps };
    const onA = await look(ctx.app);
    const onB = await look(app);
    for (const [url, seen] of onA) assert.equal(onB.get(url)?.etag, seen.etag, url);

    // Node b answers 304 to node a's tags while nothing changes...
    const url = `/v1/listings/${ids.listing}`;
    const tag = String(onA.get(url)?.etag);
    const headers = { authorization: `Bearer ${owner.key}`, 'if-none-match': tag };
    assert.equal((await app.inject({ method: 'GET', url, headers })).statusCode, 304);
    // ...and 200 with the new body right after a write through node a.
    await ok('PATCH', url, { baths: 2 });
    const res = await app.inject({ method: 'GET', url, headers });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json<{ baths: number }>().baths, 2);
    assert.notEqual(res.headers.etag, tag);
    // A write through b: a sees it at once.
    const listTag = String((await look(ctx.app)).get('/v1/listings')?.etag);
    const created = await app.inject({
      method: 'POST',
      url: '/v1/listings',
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ address: 'Node B Road' }),
    });
    assert.equal(created.statusCode, 201);
    const onASide = await call(ctx, 'GET', '/v1/listings', { key: owner.key, headers: { 'if-none-match': listTag } });
    assert.equal(onASide.statusCode, 200);
    assert.ok(onASide.body.includes('Node B Road'));
  });
});

describe('the version trigger covers every table the reads show', () => {
  /** Tables no /v1 JSON read shows (a new table must be placed on one side or the other). */
  const UNSHOWN = new Set([
    'accounts',
    'api_keys',
    'jobs',
    'media_cleanup',
    // Resumable uploads' state is read by tus HEAD (Upload-Offset), not by a JSON read; the media
    // row a completed upload becomes raises the version through its own table.
    'uploads',
    'sessions',
    'sign_in_failures',
    // Wrong passwords on a protected client link: counted for the gallery page's limit, never read by the API.
    'gallery_link_password_failures',
    'setup_marker',
    ...['password_resets', 'idempotency_keys', 'account_versions'],
    'clients_search_keys',
    // The galleries' search index (docs/api.md §19), kept from the listings rows, which have the trigger.
    'listings_search_keys',
    'kysely_migration',
    'kysely_migration_lock',
    // The deployment's cursor-signing secret (docs/api.md §19): no account's data.
    'instance_secrets',
    // The dashboard's team and two-factor sign-in (docs/api.md §27): no /v1 read shows them. And
    // (§29) the per-account counter behind invoice numbers and the Stripe Checkout sessions claimed
    // (the invoice and payments rows have the trigger), and (§31) each gallery's last compliance status.
    ...['users', 'invitations', 'recovery_codes', 'two_factor_challenges', 'invoice_numbers', 'stripe_checkouts'],
    'listing_compliance',
  ]);

  test('each other table raises the version on insert, update and delete', async () => {
    const db = ctx.deps.db.kysely;
    const tables = isPostgres
      ? (
          await sql<{ name: string }>`
            select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
        ).rows.map((r) => r.name)
      : (
          await sql<{ name: string }>`
            select name from sqlite_master where type = 'table' and name not like 'sqlite_%'
              and sql not like 'CREATE VIRTUAL TABLE%' and name not like 'clients_fts_%' and name not like 'listings_fts_%'`.execute(
            db,
          )
        ).rows.map((r) => r.name);
    const triggers = isPostgres
      ? (
          await sql<{ table: string; events: string }>`
            select event_object_table as table, string_agg(event_manipulation, ',') as events
            from information_schema.triggers where trigger_name like '%_version'
            group by event_object_table`.execute(db)
        ).rows
      : (
          await sql<{ table: string; events: string }>`
            select tbl_name as "table", group_concat(name, ',') as events from sqlite_master
            where type = 'trigger' and name like '%_version_%' group by tbl_name`.execute(db)
        ).rows;
    const covered = new Map(triggers.map((t) => [t.table, t.events.toLowerCase()]));
    assert.ok(tables.includes('listings') && tables.includes('events'), tables.join());
    assert.ok(covered.size >= 10, [...covered.keys()].join());
    for (const table of tables) {
      if (UNSHOWN.has(table)) {
        assert.ok(!covered.has(table), `${table} is not shown, yet versioned`);
        continue;
      }
      const events = covered.get(table);
      assert.ok(events !== undefined, `${table}: no version trigger; add one, or list it as not shown by any read`);
      for (const event of ['insert', 'update', 'delete']) assert.ok(events.includes(event), `${table}: ${event}`);
    }
  });
});
