// The fan-out (decisions/0012): a write records its event with the endpoints that get it, and no
// delivery; the fan-out makes one delivery and one job per (event, endpoint), exactly once even
// when two nodes fan out the same events at once, never to an endpoint deleted since, and never
// to one that was disabled (or not subscribed) when the event happened.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import {
  call,
  createAccount,
  createTestContext,
  isPostgres,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { createEndpoint, quietLog } from '../../../test/support/webhooks.ts';
import { createJobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { deliveryHandler } from './webhooks.delivery.job.ts';
import { fanOut } from './webhooks.fanout.ts';

let ctx: TestContext;
let me: TestAccount;

before(async () => {
  ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  me = await createAccount(ctx);
});

after(async () => {
  await ctx.close();
});

const now = (): string => ctx.deps.clock.iso();

async function newClient(tag: string): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/clients', { key: me.key, body: { name: tag, email: `${tag}@fanout.test` } });
  assert.equal(res.statusCode, 201, res.body);
  const events = await ctx.deps.db.kysely
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', me.accountId)
    .where('data', 'like', `%${tag}@fanout.test%`)
    .execute();
  assert.equal(events.length, 1);
  return (events[0] as { id: string }).id;
}

const deliveriesOf = (eventId: string) =>
  ctx.deps.db.kysely
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id'])
    .where('event_id', '=', eventId)
    .orderBy('endpoint_id')
    .execute();

const jobsOf = (deliveryIds: string[]) =>
  deliveryIds.length === 0
    ? Promise.resolve([])
    : ctx.deps.db.kysely
        .selectFrom('jobs')
        .select(['subject_id', 'group_key'])
        .where('kind', '=', 'webhook.deliver')
        .where('subject_id', 'in', deliveryIds)
        .execute();

const fanoutOf = async (eventId: string): Promise<string | null> =>
  (await ctx.deps.db.kysely.selectFrom('events').select('fanout').where('id', '=', eventId).executeTakeFirstOrThrow())
    .fanout;

async function removeAll(): Promise<void> {
  await ctx.deps.db.kysely.deleteFrom('webhook_endpoints').where('account_id', '=', me.accountId).execute();
  // Their deliveries went with them; their jobs would be claimed (and finished) by the next runner.
  await ctx.deps.db.kysely.deleteFrom('jobs').where('kind', '=', 'webhook.deliver').execute();
}

describe('fan-out', () => {
  test('the write records the event with its endpoints and no delivery; the fan-out makes one delivery and one job each', async () => {
    const a = await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/a', events: ['client.created'] });
    const b = await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/b', events: ['*'] });
    const other = await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/c', events: ['listing.created'] });
    const eventId = await newClient('first');
    assert.deepEqual(JSON.parse((await fanoutOf(eventId)) ?? 'null').sort(), [a.id, b.id].sort());
    assert.deepEqual(await deliveriesOf(eventId), []);
    assert.ok((await fanOut(ctx.deps.db, now)) >= 1);
    const made = await deliveriesOf(eventId);
    assert.deepEqual(made.map((d) => d.endpoint_id).sort(), [a.id, b.id].sort());
    assert.ok(!made.some((d) => d.endpoint_id === other.id));
    const jobs = await jobsOf(made.map((d) => d.id));
    assert.deepEqual(jobs.map((j) => j.subject_id).sort(), made.map((d) => d.id).sort());
    for (const job of jobs) assert.equal(job.group_key, made.find((d) => d.id === job.subject_id)?.endpoint_id);
    assert.equal(await fanoutOf(eventId), null);
    // Nothing left: a second pass makes nothing more.
    assert.equal(await fanOut(ctx.deps.db, now), 0);
    assert.equal((await deliveriesOf(eventId)).length, 2);
    await removeAll();
  });

  test('an event no endpoint wants has nothing to fan out', async () => {
    await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/l', events: ['listing.created'] });
    const eventId = await newClient('unwanted');
    assert.equal(await fanoutOf(eventId), null);
    await removeAll();
  });

  test('two fan-outs of the same events at once make each delivery and job once', async () => {
    await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/x', events: ['client.created'] });
    await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/y', events: ['client.created'] });
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) ids.push(await newClient(`twice-${i}`));
    // Both read the same events before either writes (as two nodes can).
    await Promise.all([fanOut(ctx.deps.db, now), fanOut(ctx.deps.db, now), fanOut(ctx.deps.db, now, 5)]);
    await fanOut(ctx.deps.db, now);
    for (const id of ids) {
      const made = await deliveriesOf(id);
      assert.equal(made.length, 2, id);
      assert.equal((await jobsOf(made.map((d) => d.id))).length, 2, id);
    }
    await removeAll();
  });

  test('a fan-out that fails rolls back whole, and the next one makes the deliveries', async () => {
    await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/r', events: ['client.created'] });
    const eventId = await newClient('rolled-back');
    const db = ctx.deps.db.kysely;
    // The deliveries' insert fails, after the event was marked done in the same transaction.
    if (isPostgres) {
      await sql`create function lbx_fail_fanout() returns trigger language plpgsql as $$
        begin raise exception 'forced failure inside the fan-out'; end $$`.execute(db);
      await sql`create trigger lbx_fail_fanout after insert on webhook_deliveries
        for each row execute function lbx_fail_fanout()`.execute(db);
    } else {
      await sql`create trigger lbx_fail_fanout after insert on webhook_deliveries
        begin select raise(abort, 'forced failure inside the fan-out'); end`.execute(db);
    }
    try {
      await assert.rejects(fanOut(ctx.deps.db, now), /forced failure inside the fan-out/);
    } finally {
      await sql`drop trigger lbx_fail_fanout${sql.raw(isPostgres ? ' on webhook_deliveries' : '')}`.execute(db);
      if (isPostgres) await sql`drop function lbx_fail_fanout()`.execute(db);
    }
    assert.notEqual(await fanoutOf(eventId), null);
    assert.deepEqual(await deliveriesOf(eventId), []);
    await fanOut(ctx.deps.db, now);
    assert.equal((await deliveriesOf(eventId)).length, 1);
    await removeAll();
  });

  test('an endpoint deleted before the fan-out gets nothing; one disabled at the event gets nothing', async () => {
    const kept = await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/k', events: ['client.created'] });
    const gone = await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/g', events: ['client.created'] });
    const off = await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/o', events: ['client.created'] });
    const disabled = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${off.id}`, { key: me.key, body: { enabled: false } }); // prettier-ignore
    assert.equal(disabled.statusCode, 200, disabled.body);
    const eventId = await newClient('deleted-between');
    const removed = await call(ctx, 'DELETE', `/v1/webhook_endpoints/${gone.id}`, { key: me.key });
    assert.equal(removed.statusCode, 204, removed.body);
    // Enabled again before the fan-out: the event happened while it was disabled.
    const enabled = await call(ctx, 'PATCH', `/v1/webhook_endpoints/${off.id}`, { key: me.key, body: { enabled: true } }); // prettier-ignore
    assert.equal(enabled.statusCode, 200, enabled.body);
    await fanOut(ctx.deps.db, now);
    assert.deepEqual(
      (await deliveriesOf(eventId)).map((d) => d.endpoint_id),
      [kept.id],
    );
    await removeAll();
  });

  test("the delivery runner fans out before its claim (runOnce makes and claims the event's deliveries)", async () => {
    await createEndpoint(ctx, me, { url: 'http://127.0.0.1:9/run', events: ['client.created'] });
    const eventId = await newClient('by-runner');
    const handler = deliveryHandler(ctx.deps, quietLog, { random: () => 0.5 });
    const runner = createJobRunner(ctx.deps, quietLog, handler);
    try {
      // One round: the fan-out, then the claim and the attempt (port 9 refuses: a retry is due later).
      assert.ok((await runner.runOnce()) >= 1);
    } finally {
      await runner.stop(1000);
    }
    const [made] = await deliveriesOf(eventId);
    assert.ok(made);
    const row = await ctx.deps.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'status'])
      .where('id', '=', made.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { attempts: 1, status: 'pending' });
    await removeAll();
  });
});
