// Claims and their edges, for the outbox. (The fencing of outcomes itself is the queue's:
// src/mechanisms/queue/queue.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import {
  assign,
  newClient,
  newGallery,
  notificationJob,
  notificationRows,
  workerOf,
} from '../../../test/support/notification-helpers.ts';
import type { MailMessage, Mailer } from '../../mail/mailer.ts';

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext();
  account = await createAccount(ctx, 'Fencing Studio');
});
after(() => ctx.close());

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
    const job = await notificationJob(ctx, row.id);
    assert.equal(job?.lease, null, 'given back');
    assert.ok(Date.parse(job.run_at) <= Date.now(), 'due at once for the next start');
  }
});
