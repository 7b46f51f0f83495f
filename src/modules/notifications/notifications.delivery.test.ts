// Over 400 lines on purpose: the delivery scenarios share one misbehaving SMTP server and one fake clock, set up once.
// Delivery of the outbox (docs/api.md §8) against a real SMTP server on 127.0.0.1 that misbehaves on
// cue: an outage (refused connections, then 421, then 451) ends with every email delivered once;
// a 550 ends as failed for good; transient failures stop after the retry window; a claim left by
// a crashed worker is retried after its lease; two workers never send one email twice; stop()
// lets a send in flight finish, within a bound. Time is a fake clock the tests move.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase } from '../../db/database.ts';
import { createSmtpMailer } from '../../mail/smtp.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { claimDue } from '../../mechanisms/queue/queue.repository.ts';
import { call, createAccount, isPostgres, type TestAccount, type TestContext } from '../../../test/support/test-app.ts';
import {
  assign,
  captureLog,
  fakeClock,
  freshMail,
  newClient,
  newGallery,
  nextDue,
  notificationJob,
  notificationRow,
  notificationRows,
  setDue,
  smtpTestContext,
  workerOf,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import { type TestSmtpServer } from '../../../test/support/smtp-server.ts';

const LEASE_MS = 5 * 60_000;
const HOUR = 3_600_000;

let smtp: TestSmtpServer;
let ctx: TestContext;
let account: TestAccount;

let mail: SmtpTestContext;

before(async () => {
  mail = await smtpTestContext();
  ({ smtp, ctx } = mail);
  account = await createAccount(ctx, 'Delivery Studio');
});

after(() => mail.close());

const fresh = (): Promise<void> => freshMail(mail);

/** `n` galleries, each assigned to a client of its own; returns the notification ids. */
async function queue(n: number, as = account): Promise<string[]> {
  for (let i = 0; i < n; i += 1) {
    const gallery = await newGallery(ctx, as, { address: `${i + 1} Outage Row` });
    const client = await newClient(ctx, as);
    await assign(ctx, as, client.id, gallery.id);
  }
  return (await notificationRows(ctx)).filter((r) => r.status === 'queued').map((r) => r.id);
}

/** Each Message-ID received, and how many times. */
function receivedCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of smtp.received) counts.set(m.messageId, (counts.get(m.messageId) ?? 0) + 1);
  return counts;
}

/** A mailer whose send never settles: a worker that claimed and then hung (or died). */
const hangingMailer: Mailer = { kind: 'smtp', send: () => new Promise(() => undefined), close: () => undefined };

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('an SMTP outage', () => {
  test('refused, then 421, then 451, then back: every notification delivered exactly once, attempts recorded', async () => {
    await fresh();
    const ids = await queue(3);
    assert.equal(ids.length, 3);
    const clock = fakeClock();
    const log = captureLog();
    const worker = workerOf(ctx, { clock, log });
    const rows = async () => Promise.all(ids.map((id) => notificationRow(ctx, id)));

    // 1. Connections refused.
    await smtp.setMode('refuse');
    await worker.drain();
    for (const row of await rows()) {
      assert.equal(row.status, 'queued');
      assert.equal(row.attempts, 1);
      assert.match(row.last_error ?? '', /ECONNREFUSED/);
      assert.equal(row.sent_at, null);
    }
    // The API shows the same, while retrying.
    const listed = await call(ctx, 'GET', '/v1/notifications?status=queued', { key: account.key });
    const shown = listed.json<{ data: { id: string; attempts: number; last_error: string | null }[] }>().data;
    assert.deepEqual(shown.map((n) => n.id).sort(), [...ids].sort());
    for (const n of shown) {
      assert.equal(n.attempts, 1);
      assert.match(n.last_error ?? '', /ECONNREFUSED/);
    }

    // Nothing is retried before its backoff has passed.
    assert.equal(await worker.runOnce(), 0);

    // 2. A busy server: 421 at the greeting. last_error holds the reply.
    await smtp.setMode('421');
    clock.set((await nextDue(ctx)) ?? 0);
    await worker.drain();
    for (const row of await rows()) {
      assert.equal(row.status, 'queued');
      assert.equal(row.attempts, 2);
      assert.match(row.last_error ?? '', /^421 .*Service not available/);
    }

    // 3. 451 after DATA: the server saw the whole message, and refused it for now.
    await smtp.setMode('451');
    clock.set((await nextDue(ctx)) ?? 0);
    await worker.drain();
    assert.equal(smtp.deferred.length, 3);
    for (const row of await rows()) {
      assert.equal(row.status, 'queued');
      assert.equal(row.attempts, 3);
      assert.match(row.last_error ?? '', /^451 .*try again later/);
    }

    // 4. Back: every notification delivered once.
    await smtp.setMode('accept');
    clock.set((await nextDue(ctx)) ?? 0);
    await worker.drain();
    const sentRows = await rows();
    for (const row of sentRows) {
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 4);
      assert.equal(row.last_error, null);
      assert.equal(row.sent_at, clock.clock.iso());
    }
    assert.equal(smtp.received.length, 3);
    const counts = receivedCounts();
    assert.deepEqual([...counts.keys()].sort(), sentRows.map((r) => r.message_id).sort());
    assert.ok([...counts.values()].every((n) => n === 1));

    // Much later, nothing more is sent.
    clock.advance(48 * HOUR);
    await worker.drain();
    assert.equal(smtp.received.length, 3);
    assert.deepEqual(
      (await rows()).map((r) => r.attempts),
      [4, 4, 4],
    );
    // Retries were logged as such; no failure was.
    assert.equal(log.lines.filter((l) => l.msg === 'notification will be retried').length, 9);
    assert.equal(log.lines.filter((l) => l.level !== 'info').length, 0, log.text());
  });

  test('backoff is exponential with jitter: each wait about doubles, between 50% and 100% of its step', async () => {
    await fresh();
    const [id] = await queue(1);
    await smtp.setMode('refuse');
    for (const [random, share] of [
      [0, 0.5],
      [0.999_999, 1],
    ] as const) {
      await ctx.deps.db.kysely
        .updateTable('notifications')
        .set({ attempts: 0, status: 'queued' })
        .where('id', '=', id!)
        .execute();
      await setDue(ctx, new Date(0).toISOString(), [id!], 0);
      const clock = fakeClock();
      const worker = workerOf(ctx, { clock, worker: { random: () => random } });
      const waits: number[] = [];
      for (let attempt = 1; attempt <= 6; attempt += 1) {
        await worker.drain();
        const due = (await nextDue(ctx)) ?? 0;
        waits.push(due - clock.now());
        clock.set(due);
      }
      // MAIL_RETRY_BASE_SECONDS=1: steps of 1, 2, 4, 8, 16, 32 seconds.
      assert.deepEqual(
        waits,
        [1, 2, 4, 8, 16, 32].map((s) => Math.round(s * 1000 * share)),
      );
    }
  });

  test('a 550 reply ends as failed with the reply in last_error, and is never tried again', async () => {
    await fresh();
    const [id] = await queue(1);
    const clock = fakeClock();
    const log = captureLog();
    const worker = workerOf(ctx, { clock, log });
    await smtp.setMode('550');
    await worker.drain();
    const failed = await notificationRow(ctx, id!);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 1);
    assert.match(failed.last_error ?? '', /^550 5\.1\.1 Mailbox unavailable/);
    assert.equal(failed.sent_at, null);
    assert.equal(log.lines.filter((l) => l.msg === 'notification failed').length, 1);

    // Later, with the server accepting again, it stays failed: no further attempt.
    await smtp.setMode('accept');
    const sessions = smtp.sessions.length;
    for (const step of [LEASE_MS + 1, HOUR, 30 * HOUR]) {
      clock.advance(step);
      assert.equal(await worker.runOnce(), 0);
    }
    const later = await notificationRow(ctx, id!);
    assert.equal(later.status, 'failed');
    assert.equal(later.attempts, 1);
    assert.equal(later.last_error, failed.last_error);
    assert.equal(smtp.received.length, 0);
    assert.equal(smtp.sessions.length, sessions, 'no connection was made');

    const res = await call(ctx, 'GET', `/v1/notifications/${id!}`, { key: account.key });
    assert.equal(res.json<{ status: string }>().status, 'failed');
    assert.match(res.json<{ last_error: string }>().last_error, /550/);
  });
});

describe('the retry window', () => {
  /** Steps from one attempt to the next until the notification leaves `queued`. */
  async function retryUntilFinal(id: string, clock: ReturnType<typeof fakeClock>, worker: { drain(): Promise<void> }) {
    const createdAt = Date.parse((await notificationRow(ctx, id)).created_at);
    const queuedAt: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      await worker.drain();
      const row = await notificationRow(ctx, id);
      if (row.status !== 'queued') return { row, createdAt, queuedAt, finalAt: clock.now() };
      queuedAt.push(clock.now());
      clock.set((await nextDue(ctx)) ?? 0);
    }
    throw new Error('never left queued');
  }

  test('transient failures are retried for MAIL_RETRY_HOURS (24 by default), then end as failed', async () => {
    await fresh();
    assert.equal(ctx.config.mail.retryHours, 24);
    const [id] = await queue(1);
    await smtp.setMode('451');
    const clock = fakeClock();
    const { row, createdAt, queuedAt, finalAt } = await retryUntilFinal(id!, clock, workerOf(ctx, { clock }));
    assert.equal(row.status, 'failed');
    assert.match(row.last_error ?? '', /gave up after 24 h.*451/);
    // Retried all along the 24 hours, and given up on only once they had passed.
    assert.ok(queuedAt.every((t) => t - createdAt < 24 * HOUR));
    assert.ok(
      queuedAt.some((t) => t - createdAt > 23 * HOUR),
      'still retried in the last hour',
    );
    assert.ok(finalAt - createdAt >= 24 * HOUR);
    assert.equal(row.attempts, queuedAt.length + 1);
    assert.equal(smtp.deferred.length, row.attempts);
    // Backoff is capped (at an hour), so a day means a few dozen attempts, not thousands.
    assert.ok(row.attempts > 20 && row.attempts < 60, String(row.attempts));
    assert.equal(smtp.received.length, 0);

    await smtp.setMode('accept');
    clock.advance(HOUR);
    assert.equal(await workerOf(ctx, { clock }).runOnce(), 0);
  });

  test('the window follows the configuration (MAIL_RETRY_HOURS=1)', async () => {
    await fresh();
    const [id] = await queue(1);
    await smtp.setMode('refuse');
    const clock = fakeClock();
    const config = { ...ctx.config, mail: { ...ctx.config.mail, retryHours: 1 } };
    const { row, createdAt, queuedAt, finalAt } = await retryUntilFinal(
      id!,
      clock,
      workerOf(ctx, { clock, deps: { config } }),
    );
    assert.equal(row.status, 'failed');
    assert.match(row.last_error ?? '', /gave up after 1 h.*ECONNREFUSED/);
    assert.ok(queuedAt.every((t) => t - createdAt < HOUR));
    assert.ok(finalAt - createdAt >= HOUR && finalAt - createdAt < 2 * HOUR);
  });
});

describe('a crash between claim and send', () => {
  test('a claimed notification whose worker died is delivered by another once the 5-minute lease ends', async () => {
    await fresh();
    const [id] = await queue(1);
    const clock = fakeClock();
    // The first worker claims it and dies before sending.
    const db = ctx.deps.db;
    const claimed = await claimDue(db.kysely, db.dialect, {
      kind: 'notification.send',
      now: clock.clock.iso(),
      leaseUntil: new Date(clock.now() + LEASE_MS).toISOString(),
      lease: 'dead-worker',
      limit: 10,
      busyGroups: [],
    });
    assert.deepEqual(
      claimed.map((r) => r.subject_id),
      [id],
    );

    const other = workerOf(ctx, { clock });
    // While the lease holds, nobody else takes it.
    assert.equal(await other.runOnce(), 0);
    clock.advance(LEASE_MS - 1000);
    assert.equal(await other.runOnce(), 0);
    assert.equal(smtp.received.length, 0);
    // Then it is due again: retried, not lost.
    clock.advance(2000);
    assert.equal(await other.runOnce(), 1);
    await other.drain();
    assert.equal(smtp.received.length, 1);
    const row = await notificationRow(ctx, id!);
    assert.equal(row.status, 'sent');
    // The dead worker's claim never finished an attempt: only the delivery counts.
    assert.equal(row.attempts, 1);
    assert.equal(smtp.received[0]?.messageId, row.message_id);
  });

  test('a worker hung in the middle of a send leaves it to another worker after the lease; sent once', async () => {
    await fresh();
    const [id] = await queue(1);
    const clock = fakeClock();
    const hung = workerOf(ctx, { clock, deps: { mailer: hangingMailer } });
    void hung.runOnce();
    await until(async () => (await notificationJob(ctx, id!))?.lease !== null);

    const other = workerOf(ctx, { clock });
    assert.equal(await other.runOnce(), 0);
    clock.advance(LEASE_MS + 1);
    await other.drain();
    assert.equal(smtp.received.length, 1);
    assert.equal((await notificationRow(ctx, id!)).status, 'sent');
    clock.advance(LEASE_MS + 1);
    await other.drain();
    assert.equal(smtp.received.length, 1);
  });
});

describe('several workers on one database', () => {
  test('a claim takes at most its batch, and two claims at once take disjoint rows', async () => {
    await fresh();
    const studio = await createAccount(ctx, 'Claim Studio');
    await queue(25, studio);
    const secondDb = openDatabase(ctx.config.database);
    try {
      const now = new Date().toISOString();
      const leaseUntil = new Date(Date.now() + LEASE_MS).toISOString();
      const claim = (db: typeof secondDb, lease: string) =>
        claimDue(db.kysely, db.dialect, {
          kind: 'notification.send',
          now,
          leaseUntil,
          lease,
          limit: 10,
          busyGroups: [],
        });
      const [a, b] = await Promise.all([claim(ctx.deps.db, 'a'), claim(secondDb, 'b')]);
      assert.equal(a.length, 10);
      assert.equal(b.length, 10);
      const ids = new Set([...a, ...b].map((r) => r.id));
      assert.equal(ids.size, 20, 'no row claimed by both');
      const c = await claim(ctx.deps.db, 'c');
      assert.equal(c.length, 5);
      assert.equal((await claim(ctx.deps.db, 'd')).length, 0);
      // Claimed is not attempted: attempts count finished attempts only.
      for (const row of await notificationRows(ctx)) assert.equal(row.attempts, 0);
    } finally {
      await secondDb.destroy();
    }
  });

  test('two workers draining at once never send one email twice', async () => {
    await fresh();
    const studio = await createAccount(ctx, 'Busy Studio');
    const ids = await queue(30, studio);
    assert.equal(ids.length, 30);
    // The second worker is another "process": its own database connection(s) and SMTP transport.
    const secondDb = openDatabase(ctx.config.database);
    const secondMailer = createSmtpMailer(smtp.url);
    const sentBy = { first: 0, second: 0 };
    const counting = (mailer: Mailer, who: keyof typeof sentBy): Mailer => ({
      ...mailer,
      send: async (message) => {
        const result = await mailer.send(message);
        sentBy[who] += 1;
        return result;
      },
    });
    try {
      const first = workerOf(ctx, { deps: { mailer: counting(ctx.deps.mailer, 'first') } });
      const second = workerOf(ctx, { deps: { db: secondDb, mailer: counting(secondMailer, 'second') } });
      await Promise.all([first.drain(), second.drain(), first.drain(), second.drain()]);
    } finally {
      secondMailer.close();
      await secondDb.destroy();
    }
    assert.equal(smtp.received.length, 30);
    const counts = receivedCounts();
    assert.equal(counts.size, 30);
    assert.ok(
      [...counts.values()].every((n) => n === 1),
      'no Message-ID twice',
    );
    assert.equal(sentBy.first + sentBy.second, 30);
    assert.ok(sentBy.first > 0 && sentBy.second > 0, `both worked: ${JSON.stringify(sentBy)}`);
    for (const row of await notificationRows(ctx)) {
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 1, 'claimed once');
    }
  });

  test('slow sends: the rest of a batch whose lease is nearly over is left to the next claim, never sent twice', async () => {
    await fresh();
    await queue(10);
    const clock = fakeClock();
    const other = workerOf(ctx, { clock });
    let sends = 0;
    // Each send takes 100 s of the 5-minute lease; after the fourth, another worker looks for work.
    const slow: Mailer = {
      ...ctx.deps.mailer,
      send: async (message) => {
        const result = await ctx.deps.mailer.send(message);
        sends += 1;
        clock.advance(100_000);
        if (sends === 4) await other.drain();
        return result;
      },
    };
    await workerOf(ctx, { clock, deps: { mailer: slow } }).runOnce();
    await other.drain();
    clock.advance(LEASE_MS);
    await other.drain();
    assert.equal(smtp.received.length, 10);
    const counts = receivedCounts();
    assert.equal(counts.size, 10);
    assert.ok(
      [...counts.values()].every((n) => n === 1),
      'no Message-ID twice',
    );
    for (const row of await notificationRows(ctx)) assert.equal(row.status, 'sent');
  });

  test(
    'PostgreSQL: a row locked by another worker is skipped, not waited for (SKIP LOCKED)',
    { skip: !isPostgres && 'PostgreSQL only' },
    async () => {
      await fresh();
      const [lockedId, ...rest] = await queue(3);
      const url = ctx.config.database.kind === 'postgres' ? ctx.config.database.url : '';
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        await other.query('begin');
        // Another worker holds its job row mid-claim.
        await other.query('select id from jobs where subject_id = $1 for update', [lockedId]);
        const worker = workerOf(ctx);
        const claimed = await Promise.race([worker.runOnce(), sleep(3000).then(() => 'blocked' as const)]);
        assert.equal(claimed, 2);
        assert.equal(smtp.received.length, 2);
        assert.deepEqual(
          smtp.received.map((m) => m.envelopeTo[0]).sort(),
          (await Promise.all(rest.map((id) => notificationRow(ctx, id)))).map((r) => r.to_email.toLowerCase()).sort(),
        );
        assert.equal((await notificationRow(ctx, lockedId!)).attempts, 0);
        await other.query('rollback');
        await worker.drain();
        assert.equal(smtp.received.length, 3);
        assert.equal((await notificationRow(ctx, lockedId!)).status, 'sent');
      } finally {
        await other.end();
      }
    },
  );
});

describe('start() and stop()', () => {
  test('stop() lets a send in flight finish and be recorded, then claims nothing more', async () => {
    await fresh();
    const [id] = await queue(1);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    const slow: Mailer = {
      ...ctx.deps.mailer,
      send: async (message) => {
        started = true;
        await gate;
        return ctx.deps.mailer.send(message);
      },
    };
    const worker = workerOf(ctx, { deps: { mailer: slow }, worker: { pollMs: 20 } });
    worker.start();
    await until(() => Promise.resolve(started));
    const stopping = worker.stop(5000);
    // Queued after stop() was called: not claimed by this worker.
    const [later] = (await queue(1)).filter((x) => x !== id);
    await sleep(100);
    release();
    await stopping;
    assert.equal((await notificationRow(ctx, id!)).status, 'sent');
    assert.equal(smtp.received.length, 1);
    await sleep(100);
    assert.equal((await notificationRow(ctx, later!)).status, 'queued');
    assert.equal((await notificationRow(ctx, later!)).attempts, 0);
  });

  test('stop() waits no longer than its bound for a send that hangs; the email stays to be retried', async () => {
    await fresh();
    const [id] = await queue(1);
    const worker = workerOf(ctx, { deps: { mailer: hangingMailer }, worker: { pollMs: 20 } });
    worker.start();
    await until(async () => (await notificationJob(ctx, id!))?.lease !== null);
    const started = Date.now();
    await worker.stop(300);
    const waited = Date.now() - started;
    assert.ok(waited >= 250 && waited < 2000, `waited ${waited} ms`);
    const row = await notificationRow(ctx, id!);
    assert.equal(row.status, 'queued');
    // Still in flight: not an attempt yet (the defect was attempts: 1 with no error).
    assert.equal(row.attempts, 0);
    assert.equal(row.last_error, null);
    const job = await notificationJob(ctx, id!);
    assert.ok(Date.parse(job!.run_at) > Date.now(), 'leased, to be retried after the lease');
  });
});
