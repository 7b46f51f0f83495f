// What is sent, and what is not, as assignments change (docs/api.md §7 and §8), checked on a real
// SMTP server: assigning again to the same client sends nothing; reassigning emails the new
// client only; a rolled-back assignment leaves no notification and sends nothing; deleting the
// client, unassigning or deleting the gallery before sending cancels; a changed client address
// is where the unsent email goes. The request never waits for SMTP.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { call, createAccount, isPostgres, type TestAccount, type TestContext } from '../../../test/support/test-app.ts';
import {
  assign,
  freshMail,
  newClient,
  newGallery,
  notificationRows,
  smtpTestContext,
  workerOf,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import { type TestSmtpServer } from '../../../test/support/smtp-server.ts';

let smtp: TestSmtpServer;
let ctx: TestContext;
let me: TestAccount;

let mail: SmtpTestContext;

before(async () => {
  mail = await smtpTestContext();
  ({ smtp, ctx } = mail);
  me = await createAccount(ctx, 'Lifecycle Studio');
});

after(() => mail.close());

const fresh = (): Promise<void> => freshMail(mail);

const drain = (): Promise<void> => workerOf(ctx).drain();
const recipients = (): string[] => smtp.received.map((m) => m.envelopeTo.join(',').toLowerCase());
const statuses = async (listingId: string): Promise<string[]> =>
  (await notificationRows(ctx, listingId)).map((r) => r.status);

describe('assigning', () => {
  test('the request never waits for SMTP: 200 while the server is down, the email follows', async () => {
    await fresh();
    await smtp.setMode('refuse');
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    const started = Date.now();
    await assign(ctx, me, client.id, gallery.id);
    assert.ok(Date.now() - started < 2000);
    assert.deepEqual(await statuses(gallery.id), ['queued']);
    assert.equal(smtp.sessions.length, 0);
    await smtp.setMode('accept');
    await drain();
    assert.deepEqual(recipients(), [client.email.toLowerCase()]);
  });

  test('assigning again to the same client records and sends nothing more, before or after sending', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    await assign(ctx, me, client.id, gallery.id);
    await assign(ctx, me, client.id, gallery.id);
    assert.deepEqual(await statuses(gallery.id), ['queued']);
    await drain();
    await assign(ctx, me, client.id, gallery.id);
    await drain();
    assert.deepEqual(await statuses(gallery.id), ['sent']);
    assert.deepEqual(recipients(), [client.email.toLowerCase()]);
  });

  test('reassigning to another client before sending emails only the new client; the earlier one is cancelled', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const [first, second] = [await newClient(ctx, me), await newClient(ctx, me)];
    await assign(ctx, me, first.id, gallery.id);
    await assign(ctx, me, second.id, gallery.id);
    const rows = await notificationRows(ctx, gallery.id);
    assert.deepEqual(
      rows.map((r) => [r.client_id, r.status]),
      [
        [first.id, 'cancelled'],
        [second.id, 'queued'],
      ],
    );
    await drain();
    assert.deepEqual(recipients(), [second.email.toLowerCase()]);
    assert.deepEqual(await statuses(gallery.id), ['cancelled', 'sent']);
  });

  test('reassigning after the first email was sent emails the new client too; the sent one stays sent', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const [first, second] = [await newClient(ctx, me), await newClient(ctx, me)];
    await assign(ctx, me, first.id, gallery.id);
    await drain();
    await assign(ctx, me, second.id, gallery.id);
    await drain();
    assert.deepEqual(recipients(), [first.email.toLowerCase(), second.email.toLowerCase()]);
    assert.deepEqual(await statuses(gallery.id), ['sent', 'sent']);
  });

  test('a changed client address is where the unsent email goes', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    await assign(ctx, me, client.id, gallery.id);
    const res = await call(ctx, 'PATCH', `/v1/clients/${client.id}`, {
      key: me.key,
      body: { email: 'moved.house@example.test' },
    });
    assert.equal(res.statusCode, 200, res.body);
    await drain();
    assert.deepEqual(recipients(), ['moved.house@example.test']);
    assert.equal((await notificationRows(ctx, gallery.id))[0]?.to_email, 'moved.house@example.test');
  });
});

describe('a rolled-back assignment sends nothing', () => {
  test('a gallery of another account: 404, no notification, no email', async () => {
    await fresh();
    const stranger = await createAccount(ctx, 'Stranger Studio');
    const theirs = await newGallery(ctx, stranger);
    const client = await newClient(ctx, me);
    const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${theirs.id}`, { key: me.key });
    assert.equal(res.statusCode, 404, res.body);
    assert.deepEqual(await notificationRows(ctx), []);
    await drain();
    assert.equal(smtp.received.length, 0);
    assert.equal(smtp.sessions.length, 0);
  });

  test('a transaction that fails after the notification was written: nothing kept, nothing sent', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    const db = ctx.deps.db.kysely;
    // The insert of the notification row itself succeeds; the statement then fails.
    if (isPostgres) {
      await sql`create function lbx_fail_notification() returns trigger language plpgsql as $$
        begin raise exception 'forced failure after the notification insert'; end $$`.execute(db);
      await sql`create trigger lbx_fail_notification after insert on notifications
        for each row execute function lbx_fail_notification()`.execute(db);
    } else {
      await sql`create trigger lbx_fail_notification after insert on notifications
        begin select raise(abort, 'forced failure after the notification insert'); end`.execute(db);
    }
    try {
      const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key });
      assert.equal(res.statusCode, 500, res.body);
    } finally {
      await sql`drop trigger lbx_fail_notification${sql.raw(isPostgres ? ' on notifications' : '')}`.execute(db);
      if (isPostgres) await sql`drop function lbx_fail_notification()`.execute(db);
    }
    assert.deepEqual(await notificationRows(ctx), []);
    // The assignment was rolled back with it.
    const listing = await call(ctx, 'GET', `/v1/listings/${gallery.id}`, { key: me.key });
    assert.equal(listing.json<{ client_id: string | null }>().client_id, null);
    await drain();
    assert.equal(smtp.received.length, 0);
    assert.equal(smtp.sessions.length, 0);
  });

  test(
    'PostgreSQL: assigning to a client deleted concurrently: 404, no notification, no email',
    { skip: !isPostgres && 'needs a second connection writing at the same time' },
    async () => {
      await fresh();
      const gallery = await newGallery(ctx, me);
      const client = await newClient(ctx, me);
      const url = ctx.config.database.kind === 'postgres' ? ctx.config.database.url : '';
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        // Another request deletes the client; its transaction is still open when ours writes.
        await other.query('begin');
        await other.query('delete from clients where id = $1', [client.id]);
        const assigning = call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key });
        await sleep(300);
        await other.query('commit');
        const res = await assigning;
        assert.equal(res.statusCode, 404, res.body);
      } finally {
        await other.end();
      }
      assert.deepEqual(await notificationRows(ctx), []);
      const listing = await call(ctx, 'GET', `/v1/listings/${gallery.id}`, { key: me.key });
      assert.equal(listing.json<{ client_id: string | null }>().client_id, null);
      await drain();
      assert.equal(smtp.received.length, 0);
    },
  );
});

describe('cancelling before sending', () => {
  test('deleting the client cancels their unsent notifications; sent ones stay sent; nothing more is sent', async () => {
    await fresh();
    const client = await newClient(ctx, me);
    const [sentGallery, unsentA, unsentB] = [
      await newGallery(ctx, me),
      await newGallery(ctx, me),
      await newGallery(ctx, me),
    ];
    await assign(ctx, me, client.id, sentGallery.id);
    await drain();
    assert.equal(smtp.received.length, 1);
    await assign(ctx, me, client.id, unsentA.id);
    await assign(ctx, me, client.id, unsentB.id);
    // Another client's unsent email is not touched.
    const bystander = await newClient(ctx, me);
    const theirs = await newGallery(ctx, me);
    await assign(ctx, me, bystander.id, theirs.id);

    const res = await call(ctx, 'DELETE', `/v1/clients/${client.id}`, { key: me.key });
    assert.equal(res.statusCode, 204);
    assert.deepEqual(await statuses(sentGallery.id), ['sent']);
    assert.deepEqual(await statuses(unsentA.id), ['cancelled']);
    assert.deepEqual(await statuses(unsentB.id), ['cancelled']);
    assert.deepEqual(await statuses(theirs.id), ['queued']);

    await drain();
    assert.deepEqual(recipients(), [client.email.toLowerCase(), bystander.email.toLowerCase()]);
    assert.deepEqual(await statuses(unsentA.id), ['cancelled']);
  });

  test('unassigning before sending cancels that notification; nothing is sent', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    await assign(ctx, me, client.id, gallery.id);
    const res = await call(ctx, 'DELETE', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: me.key });
    assert.equal(res.statusCode, 204);
    assert.deepEqual(await statuses(gallery.id), ['cancelled']);
    await drain();
    assert.equal(smtp.received.length, 0);
    assert.equal(smtp.sessions.length, 0);
  });

  test('deleting the gallery before sending cancels its notification; nothing is sent', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    await assign(ctx, me, client.id, gallery.id);
    assert.equal((await call(ctx, 'DELETE', `/v1/listings/${gallery.id}`, { key: me.key })).statusCode, 204);
    await drain();
    assert.equal(smtp.received.length, 0);
    assert.deepEqual(await statuses(gallery.id), ['cancelled']);
  });

  test('a gallery gone by the time the worker claims its notification: cancelled by the worker, not sent', async () => {
    await fresh();
    const gallery = await newGallery(ctx, me);
    const client = await newClient(ctx, me);
    await assign(ctx, me, client.id, gallery.id);
    // Gone behind the service's back (as if deleted between the claim and the send).
    await ctx.deps.db.kysely.deleteFrom('listings').where('id', '=', gallery.id).execute();
    await drain();
    assert.equal(smtp.received.length, 0);
    const [row] = await notificationRows(ctx, gallery.id);
    assert.equal(row?.status, 'cancelled');
    assert.match(row?.last_error ?? '', /gallery/);
  });
});
