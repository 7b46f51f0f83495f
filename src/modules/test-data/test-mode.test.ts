// Test mode (docs/api.md §20): test keys, the account and events' `livemode`, test mail kept off
// SMTP, and DELETE /v1/test_data. Which ids each mode sees is test/mode-isolation*.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import {
  call,
  createAccount,
  createKey,
  expectError,
  testModeOf,
  type TestAccount,
} from '../../../test/support/test-app.ts';
import {
  assign,
  freshMail,
  newClient,
  newGallery,
  setDue,
  smtpTestContext,
  workerOf,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import { jpeg } from '../../../test/support/media-fixtures.ts';
import { makeVariantsNow, storedKeys, uploaded } from '../../../test/support/media-helpers.ts';
import { takeSnapshot } from '../../../test/support/snapshot.ts';
import { linkedGallery, visit } from '../../../test/support/gallery.ts';
import { Browser } from '../../../test/support/dashboard-browser.ts';
import { deliveryRunner, until, verifyingReceiver, type DeliveryRunner } from '../../../test/support/webhooks.ts';

let env: SmtpTestContext;
let live: TestAccount;
let testMode: TestAccount;
let runner: DeliveryRunner;

before(async () => {
  env = await smtpTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  live = await createAccount(env.ctx, 'Harbour Studio');
  testMode = await testModeOf(env.ctx, live);
  runner = deliveryRunner(env.ctx.deps);
});

after(async () => {
  await runner.close();
  await env.close();
});

interface EventJson {
  id: string;
  type: string;
  livemode: boolean;
  data: { object: { id: string } };
}

describe('test mode', () => {
  test('a test key starts lbx_test_; GET /v1/account names its studio with livemode false', async () => {
    const { ctx } = env;
    assert.match(testMode.key, /^lbx_test_[0-9A-Za-z]{40}$/);
    assert.doesNotMatch(live.key, /^lbx_test_/);
    assert.notEqual(testMode.accountId, live.accountId);
    const asTest = await call(ctx, 'GET', '/v1/account', { key: testMode.key });
    assert.equal(asTest.statusCode, 200, asTest.body);
    const asLive = await call(ctx, 'GET', '/v1/account', { key: live.key });
    const t = asTest.json<{
      id: string;
      name: string;
      email: string;
      livemode: boolean;
      key: { id: string; prefix: string };
    }>();
    const l = asLive.json<{ id: string; name: string; email: string; livemode: boolean }>();
    assert.deepEqual([t.id, t.name, t.email, t.livemode], [live.accountId, 'Harbour Studio', live.email, false]);
    assert.deepEqual([l.id, l.livemode], [live.accountId, true]);
    assert.equal(t.key.id, testMode.keyId);
    assert.ok(testMode.key.startsWith(t.key.prefix) && t.key.prefix.startsWith('lbx_test_'), t.key.prefix);
    // Both keys are the studio's: the dashboard and the command line list them together.
    const keys = await ctx.services.apiKeys.list(live.accountId);
    assert.deepEqual(
      keys.map((k) => [k.id, k.test]).sort(),
      [
        [live.keyId, false],
        [testMode.keyId, true],
      ].sort(),
    );
  });

  test('events carry livemode, as listed, as read and as delivered; webhooks of test endpoints go out', async () => {
    const { ctx } = env;
    let secret = '';
    const receiver = await verifyingReceiver(() => [secret]);
    try {
      const endpoint = await call(ctx, 'POST', '/v1/webhook_endpoints', {
        key: testMode.key,
        body: { url: `http://127.0.0.1:${receiver.port}/hook` },
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      secret = endpoint.json<{ secret: string }>().secret;
      const testGallery = await newGallery(ctx, testMode, { address: '9 Test Street' });
      const liveGallery = await newGallery(ctx, live, { address: '9 Live Street' });

      const testEvents = (await call(ctx, 'GET', '/v1/events', { key: testMode.key })).json<{ data: EventJson[] }>()
        .data;
      const liveEvents = (await call(ctx, 'GET', '/v1/events', { key: live.key })).json<{ data: EventJson[] }>().data;
      assert.ok(testEvents.some((e) => e.type === 'listing.created' && e.data.object.id === testGallery.id));
      assert.ok(testEvents.every((e) => !e.livemode));
      assert.ok(liveEvents.some((e) => e.data.object.id === liveGallery.id));
      assert.ok(liveEvents.every((e) => e.livemode));
      assert.ok(!liveEvents.some((e) => e.data.object.id === testGallery.id));
      const one = testEvents.find((e) => e.data.object.id === testGallery.id);
      const read = await call(ctx, 'GET', `/v1/events/${one?.id ?? ''}`, { key: testMode.key });
      assert.equal(read.json<EventJson>().livemode, false);

      await runner.drain();
      await until(async () => Promise.resolve(receiver.verified.length > 0));
      const delivered = receiver.events();
      assert.deepEqual(
        delivered.map((e) => [e.type, e.data.object.id, (e as unknown as EventJson).livemode]),
        [['listing.created', testGallery.id, false]],
      );
    } finally {
      await receiver.close();
    }
  });

  test('test mode mail is written to outbox/test and never reaches SMTP; live mail still does', async () => {
    const { ctx, smtp } = env;
    await freshMail(env);
    const testGallery = await newGallery(ctx, testMode, { address: '5 Test Lane' });
    const testClient = await newClient(ctx, testMode, { email: 'test.client@example.test' });
    await assign(ctx, testMode, testClient.id, testGallery.id);
    const liveGallery = await newGallery(ctx, live, { address: '5 Live Lane' });
    const liveClient = await newClient(ctx, live, { email: 'live.client@example.test' });
    await assign(ctx, live, liveClient.id, liveGallery.id);
    await setDue(ctx, new Date(Date.now() - 1000).toISOString());
    await workerOf(ctx).drain();

    // Recorded and listed as usual, sent once written.
    const listed = await call(ctx, 'GET', '/v1/notifications', { key: testMode.key });
    const notes = listed.json<{ data: { id: string; status: string; to: string }[] }>().data;
    assert.deepEqual(
      notes.map((n) => [n.to, n.status]),
      [['test.client@example.test', 'sent']],
    );
    assert.deepEqual(
      smtp.received.map((m) => m.envelopeTo),
      [['live.client@example.test']],
    );
    const dir = path.join(ctx.dataDir, 'outbox', 'test');
    const files = await readdir(dir);
    assert.equal(files.length, 1, files.join());
    const eml = await readFile(path.join(dir, files[0] ?? ''), 'utf8');
    assert.match(eml, /^To: test\.client@example\.test$/m);
    assert.match(eml, /Harbour Studio/);
  });

  test('a client gallery page of test data shows a Test mode banner; a live one does not', async () => {
    const { ctx } = env;
    const photo = await jpeg();
    const pages: Record<string, string> = {};
    for (const [name, account] of [
      ['test', testMode],
      ['live', live],
    ] as const) {
      const gallery = await linkedGallery(ctx, account, { address: `12 ${name} Road` });
      const [media] = await uploaded(ctx, account.key, gallery.listingId, [
        { filename: 'a.jpg', contentType: 'image/jpeg', data: photo },
      ]);
      await makeVariantsNow(ctx);
      const page = await visit(ctx, gallery.path);
      assert.equal(page.statusCode, 200, page.body);
      pages[name] = page.body;
      const photoPage = await visit(ctx, `${gallery.path}/photo/${media?.id ?? ''}`);
      assert.equal(photoPage.statusCode, 200, photoPage.body);
      pages[`${name} photo`] = photoPage.body;
    }
    const banner = /<p class="test-mode" role="note">\s*<strong>Test mode<\/strong>/;
    assert.match(pages.test ?? '', banner);
    assert.match(pages['test photo'] ?? '', banner);
    assert.doesNotMatch(pages.live ?? '', /Test mode/);
    assert.doesNotMatch(pages['live photo'] ?? '', /Test mode/);
  });

  test('DELETE /v1/test_data: a live key and a read-only test key are refused (403), nothing changes', async () => {
    const { ctx } = env;
    const readOnly = await createKey(ctx, live.accountId, { scope: 'read_only', test: true });
    const before = await takeSnapshot(ctx);
    expectError(await call(ctx, 'DELETE', '/v1/test_data', { key: live.key }), 403, 'forbidden');
    expectError(await call(ctx, 'DELETE', '/v1/test_data', { key: readOnly.key }), 403, 'forbidden');
    expectError(await call(ctx, 'DELETE', '/v1/test_data', {}), 401, 'unauthorized');
    assert.deepEqual(await takeSnapshot(ctx), before);
  });

  test("the dashboard's Delete all test data: a form with the CSRF token, after a confirmation page", async () => {
    const { ctx } = env;
    await newGallery(ctx, testMode, { address: 'Dashboard test' });
    const liveBefore = (await call(ctx, 'GET', '/v1/listings?limit=100', { key: live.key })).body;
    const count = async () =>
      (await call(ctx, 'GET', '/v1/listings', { key: testMode.key })).json<{ data: unknown[] }>().data.length;
    const browser = new Browser(ctx.app);
    await browser.signIn(live.email, 'correct horse battery');
    const confirm = await browser.get('/dashboard/settings/api/test-data/delete');
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /<form method="post" action="\/dashboard\/settings\/api\/test-data\/delete"/);
    // Without the form's token (a page of another site): refused, nothing deleted.
    const forged = await browser.post('/dashboard/settings/api/test-data/delete', {}, { csrf: null });
    assert.equal(forged.statusCode, 403);
    assert.ok((await count()) > 0);
    await browser.get('/dashboard/settings/api/test-data/delete');
    const done = await browser.post('/dashboard/settings/api/test-data/delete', {});
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/dashboard/settings/api?mode=test&notice=test-data-deleted');
    assert.equal(await count(), 0);
    assert.equal((await call(ctx, 'GET', '/v1/listings?limit=100', { key: live.key })).body, liveBefore);
  });

  test('DELETE /v1/test_data removes every test row and byte, and leaves live data as it was', async () => {
    const { ctx } = env;
    const photo = await jpeg();
    let liveGallery = '';
    for (const account of [testMode, live]) {
      const gallery = await newGallery(ctx, account, { address: 'With photos' });
      if (account === live) liveGallery = gallery.id;
      await uploaded(ctx, account.key, gallery.id, [{ filename: 'a.jpg', contentType: 'image/jpeg', data: photo }]);
      const client = await newClient(ctx, account);
      await assign(ctx, account, client.id, gallery.id);
    }
    await makeVariantsNow(ctx);
    // An unfinished resumable upload of test data, with some bytes stored.
    const unfinished = await newGallery(ctx, testMode, { address: 'Half uploaded' });
    const tus = { 'tus-resumable': '1.0.0' };
    const created = await call(ctx, 'POST', `/v1/listings/${unfinished.id}/uploads`, {
      key: testMode.key,
      headers: { ...tus, 'upload-length': '1000' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const patched = await call(ctx, 'PATCH', new URL(String(created.headers.location), 'http://x').pathname, {
      key: testMode.key,
      body: 'partial bytes',
      headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
    });
    assert.equal(patched.statusCode, 204, patched.body);
    const tables = [
      'uploads',
      'listings',
      'media',
      'media_variants',
      'clients',
      'gallery_links',
      'notifications',
    ] as const;
    for (const table of tables) {
      const n = await ctx.deps.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', testMode.accountId)
        .executeTakeFirstOrThrow();
      assert.ok(n.n > 0, `test ${table} to delete`);
    }
    const mine = (key: string): boolean => key.startsWith(`${testMode.accountId}/`);
    const storedBefore = await storedKeys(ctx);
    assert.ok(storedBefore.some(mine) && storedBefore.some((k) => !mine(k)));
    const partial = await ctx.deps.db.kysely
      .selectFrom('uploads')
      .select('storage_key')
      .where('account_id', '=', testMode.accountId)
      .executeTakeFirstOrThrow();
    assert.ok(storedBefore.includes(partial.storage_key), 'the unfinished upload has bytes stored');
    const liveBytes = new Map<string, Buffer>();
    for (const key of storedBefore.filter((k) => !mine(k)))
      liveBytes.set(key, await buffer(await ctx.deps.storage.get(key)));
    const before = await takeSnapshot(ctx);

    // With an Idempotency-Key, like any write: its record goes with the test data, and a retry
    // (the same key) deletes again, harmlessly.
    const idem = { 'idempotency-key': 'delete-test-data-1' };
    const res = await call(ctx, 'DELETE', '/v1/test_data', { key: testMode.key, headers: idem });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { deleted: true });

    // Not a row of test data is left anywhere; every other row is as it was.
    const afterwards = await takeSnapshot(ctx);
    const changedTables = new Set(['media_cleanup', 'account_versions', '(media storage)']);
    for (const [table, rows] of Object.entries(afterwards)) {
      // SQLite's full-text tables hold no account id (their rows follow the clients' and galleries').
      if (changedTables.has(table) || table.includes('_fts')) continue;
      const kept = (rows: string[]) => rows.filter((r) => !r.includes(testMode.accountId));
      assert.deepEqual(kept(rows), kept(before[table] ?? []), `${table}: live rows changed`);
      const left = rows.filter((r) => r.includes(testMode.accountId));
      // The test account's own row stays (empty), so test keys carry on.
      if (table === 'accounts') assert.equal(left.length, 1);
      else if (table !== 'jobs') assert.deepEqual(left, [], `${table}: test rows left`);
    }
    // Bytes: every test object is gone, every live one is there, byte for byte.
    const storedAfter = await storedKeys(ctx);
    assert.deepEqual(storedAfter.filter(mine), []);
    assert.deepEqual(storedAfter, [...liveBytes.keys()].sort());
    for (const [key, bytes] of liveBytes) assert.deepEqual(await buffer(await ctx.deps.storage.get(key)), bytes);
    // The cleanup ledger holds nothing due for them any more.
    const ledger = await ctx.deps.db.kysely.selectFrom('media_cleanup').select('storage_key').execute();
    assert.deepEqual(
      ledger.filter((r) => mine(r.storage_key)),
      [],
    );

    const retried = await call(ctx, 'DELETE', '/v1/test_data', { key: testMode.key, headers: idem });
    assert.equal(retried.statusCode, 202, retried.body);
    // The test key still works, on an empty test mode; the live key sees its data.
    const lists = await call(ctx, 'GET', '/v1/listings', { key: testMode.key });
    assert.equal(lists.statusCode, 200);
    assert.deepEqual(lists.json<{ data: unknown[] }>().data, []);
    const again = await newGallery(ctx, testMode, { address: 'After the reset' });
    assert.match(again.id, /^lst_/);
    const kept = await call(ctx, 'GET', `/v1/listings/${liveGallery}`, { key: live.key });
    assert.equal(kept.statusCode, 200);
    assert.equal(kept.json<{ media_count: number }>().media_count, 1);
  });
});
