// Claims and their edges. A worker whose claim ran out (a send that outlived the lease) must not overwrite what the
// worker that took the notification over recorded: the claimed lease end fences the update.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../../../test/helpers.ts';
import {
  assign,
  newClient,
  newGallery,
  notificationRow,
  notificationRows,
  workerOf,
} from '../../../test/notification-helpers.ts';
import type { MailMessage, Mailer } from '../../mail/mailer.ts';
import * as repo from './notifications.repository.ts';
import { isoAt } from '../../lib/clock.ts';

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext();
  account = await createAccount(ctx, 'Fencing Studio');
});
after(() => ctx.close());

test('an outcome from an expired claim is ignored once another worker holds the notification', async () => {
  const gallery = await newGallery(ctx, account);
  const client = await newClient(ctx, account);
  await assign(ctx, account, client.id, gallery.id);
  const db = ctx.deps.db;
  const t0 = Date.now() + 1000;

  const [first] = await repo.claimDue(db.kysely, db.dialect, isoAt(t0), isoAt(t0 + 300_000), 10);
  assert.ok(first !== undefined);
  // The first claim's lease runs out; a second worker claims it.
  const t1 = t0 + 300_001;
  const [second] = await repo.claimDue(db.kysely, db.dialect, isoAt(t1), isoAt(t1 + 300_000), 10);
  assert.equal(second?.id, first.id);

  // The first worker's late failure must change nothing...
  await repo.markFinal(db.kysely, first, 'failed', '550 late news from a stale worker', isoAt(t1 + 1));
  await repo.markRetry(db.kysely, first, isoAt(t1 + 5), '451 late news from a stale worker', isoAt(t1 + 1));
  let row = await notificationRow(ctx, first.id);
  assert.equal(row.status, 'queued');
  assert.equal(row.next_attempt_at, second.next_attempt_at);
  assert.equal(row.last_error, null);

  // ...while the current holder's outcome is recorded.
  await repo.markRetry(db.kysely, second, isoAt(t1 + 60_000), '451 try later', isoAt(t1 + 2));
  row = await notificationRow(ctx, first.id);
  assert.equal(row.next_attempt_at, isoAt(t1 + 60_000));
  assert.equal(row.last_error, '451 try later');
  assert.equal(row.attempts, 2);
});

/** A mailer that records what it was asked to send and runs `during` inside the first send. */
function recordingMailer(during: () => Promise<void>): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  let first = true;
  return {
    kind: 'file',
    sent,
    async send(message) {
      if (first) {
        first = false;
        await during();
      }
      sent.push(message);
      return { detail: 'recorded' };
    },
    close: () => undefined,
  };
}

test('a notification cancelled after the claim (client deleted mid-batch) is not sent', async () => {
  const client = await newClient(ctx, account);
  const galleries = [await newGallery(ctx, account), await newGallery(ctx, account)];
  for (const gallery of galleries) await assign(ctx, account, client.id, gallery.id);
  const mailer = recordingMailer(async () => {
    const res = await call(ctx, 'DELETE', `/v1/clients/${client.id}`, { key: account.key });
    assert.equal(res.statusCode, 204);
  });
  await workerOf(ctx, { deps: { mailer } }).runOnce();
  // The email being sent when the client went is gone already; the next one is not sent.
  assert.equal(mailer.sent.length, 1);
  const rows = await notificationRows(ctx);
  const mine = rows.filter((r) => r.client_id === client.id);
  assert.deepEqual(mine.map((r) => r.status).sort(), ['cancelled', 'sent']);
});

test('stop() starts no new send and gives the claimed rest back, due at once and unsent', async () => {
  const client = await newClient(ctx, account);
  const galleries = [await newGallery(ctx, account), await newGallery(ctx, account), await newGallery(ctx, account)];
  for (const gallery of galleries) await assign(ctx, account, client.id, gallery.id);
  let stopping: Promise<void> = Promise.resolve();
  const mailer = recordingMailer(() => {
    stopping = worker.stop(5_000);
    return Promise.resolve();
  });
  const worker = workerOf(ctx, { deps: { mailer } });
  await worker.runOnce();
  await stopping;
  assert.equal(mailer.sent.length, 1, 'only the send in flight when stop() came');
  const rows = (await notificationRows(ctx)).filter((r) => r.client_id === client.id);
  const queued = rows.filter((r) => r.status === 'queued');
  assert.equal(queued.length, 2);
  for (const row of queued) {
    assert.equal(row.attempts, 0, 'a released claim is not an attempt');
    assert.ok(Date.parse(row.next_attempt_at) <= Date.now(), 'due at once for the next start');
  }
});
