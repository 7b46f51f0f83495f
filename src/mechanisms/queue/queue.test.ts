// The durable job queue as a mechanism, whatever the job: claims under a lease, fenced
// outcomes, disjoint claims from two connections, group limits, give-back on stop, and faults
// that delay a job without losing it. Real databases (SQLite, or PostgreSQL with DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../db/database.ts';
import { clockOf } from '../../lib/clock.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-app.ts';
import { captureLog } from '../../../test/support/notification-helpers.ts';
import { enqueue, finishJob, retryJob, withJobOutcome, type ClaimedJob } from './queue.ts';
import * as repo from './queue.repository.ts';
import { createJobRunner, type JobHandler } from './queue.runner.ts';

let ctx: TestContext;
const T0 = Date.parse('2026-11-23T10:00:00.000Z');
let now = T0;
const clock = clockOf(() => now);
const iso = (ms: number): string => new Date(ms).toISOString();

before(async () => {
  ctx = await createTestContext();
});
after(() => ctx.close());
beforeEach(async () => {
  now = T0;
  await ctx.deps.db.kysely.deleteFrom('jobs').execute();
});

async function add(n: number, group: (i: number) => string | null = () => null): Promise<string[]> {
  const subjects = Array.from({ length: n }, (_, i) => `ntf_test${String(i).padStart(4, '0')}`);
  await ctx.deps.db.kysely.transaction().execute((trx) =>
    enqueue(
      trx,
      subjects.map((subjectId, i) => ({
        kind: 'notification.send' as const,
        accountId: null,
        subjectId,
        groupKey: group(i),
        runAt: iso(now),
      })),
      iso(now),
    ),
  );
  return subjects;
}

const claim = (db = ctx.deps.db, lease = 'L', limit = 10, busyGroups: string[] = []) =>
  repo.claimDue(db.kysely, db.dialect, {
    kind: 'notification.send',
    now: iso(now),
    leaseUntil: iso(now + 60_000),
    lease,
    limit,
    busyGroups,
  });

const jobs = () => ctx.deps.db.kysely.selectFrom('jobs').selectAll().orderBy('subject_id').execute();

describe('claims and fenced outcomes', () => {
  test('an outcome from an expired claim is ignored once another worker holds the job', async () => {
    await add(1);
    const [first] = await claim(ctx.deps.db, 'first');
    assert.ok(first !== undefined);
    assert.equal((await claim(ctx.deps.db, 'early')).length, 0, 'held while the lease lasts');
    now += 60_001;
    const [second] = await claim(ctx.deps.db, 'second');
    assert.equal(second?.id, first.id);
    const stale = { ...first, lease: 'first' } as ClaimedJob;
    const current = { ...second, lease: 'second' } as ClaimedJob;

    // The first worker's late outcomes change nothing...
    assert.equal(await retryJob(ctx.deps.db.kysely, stale, iso(now + 5), 'late news', iso(now)), false);
    assert.equal(await finishJob(ctx.deps.db.kysely, stale), false);
    let applied = false;
    await withJobOutcome(
      ctx.deps.db,
      (trx) => finishJob(trx, stale),
      () => {
        applied = true;
        return Promise.resolve();
      },
    );
    assert.equal(applied, false, "the handler's own change is not applied without the lease");
    let [row] = await jobs();
    assert.equal(row?.lease, 'second');
    assert.equal(row?.attempts, 0);
    assert.equal(row?.last_error, null);

    // ...while the current holder's are recorded.
    assert.equal(await retryJob(ctx.deps.db.kysely, current, iso(now + 5_000), '451 later', iso(now)), true);
    [row] = await jobs();
    assert.equal(row?.run_at, iso(now + 5_000));
    assert.equal(row?.lease, null);
    assert.equal(row?.attempts, 1, 'a finished attempt');
    assert.equal(row?.last_error, '451 later');
  });

  test('a claim takes at most its limit, oldest due first; two connections at once take disjoint jobs', async () => {
    await add(25);
    const second = openDatabase(ctx.config.database);
    try {
      const [a, b] = await Promise.all([claim(ctx.deps.db, 'a'), claim(second, 'b')]);
      assert.equal(a.length, 10);
      assert.equal(b.length, 10);
      assert.equal(new Set([...a, ...b].map((r) => r.id)).size, 20, 'no job claimed by both');
      assert.equal((await claim(ctx.deps.db, 'c')).length, 5);
      assert.equal((await claim(ctx.deps.db, 'd')).length, 0);
      for (const row of await jobs()) assert.equal(row.attempts, 0, 'claimed is not attempted');
    } finally {
      await second.destroy();
    }
  });

  test('a job not yet due is not claimed; busy groups are skipped', async () => {
    await add(4, (i) => (i < 2 ? 'whe_slow' : 'whe_fast'));
    await ctx.deps.db.kysely
      .updateTable('jobs')
      .set({ run_at: iso(now + 1000) })
      .where('subject_id', '=', 'ntf_test0003')
      .execute();
    const got = await claim(ctx.deps.db, 'x', 10, ['whe_slow']);
    assert.deepEqual(
      got.map((r) => r.subject_id),
      ['ntf_test0002'],
    );
  });
});

/** A handler that records what it ran and waits for `gate` (if given) inside each job. */
function recorder(options: Partial<JobHandler> & { gate?: Promise<void> } = {}) {
  const ran: string[] = [];
  const running = new Set<string>();
  let peak = 0;
  const peakByGroup = new Map<string, number>();
  const inGroup = new Map<string, number>();
  const handler: JobHandler = {
    kind: 'notification.send',
    concurrency: 1,
    batch: 1,
    leaseMs: 60_000,
    startMarginMs: 0,
    faultDelayMs: () => 10_000,
    async run(job) {
      running.add(job.id);
      peak = Math.max(peak, running.size);
      const g = job.group_key ?? '';
      inGroup.set(g, (inGroup.get(g) ?? 0) + 1);
      peakByGroup.set(g, Math.max(peakByGroup.get(g) ?? 0, inGroup.get(g) ?? 0));
      try {
        if (options.gate !== undefined) await options.gate;
        ran.push(job.subject_id);
        await ctx.deps.db.kysely.transaction().execute((trx) => finishJob(trx, job));
      } finally {
        running.delete(job.id);
        inGroup.set(g, (inGroup.get(g) ?? 1) - 1);
      }
    },
    ...options,
  };
  return { handler, ran, peak: () => peak, peakByGroup };
}

describe('the runner', () => {
  test('runs every due job once, at most `concurrency` at a time and `groupLimit` per group', async () => {
    await add(30, (i) => (i % 3 === 0 ? 'whe_a' : 'whe_b'));
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const r = recorder({ concurrency: 6, groupLimit: 2, gate });
    const runner = createJobRunner({ db: ctx.deps.db, clock }, captureLog(), r.handler, { pollMs: 10 });
    runner.start();
    await sleep(200);
    open();
    for (let i = 0; i < 200 && (await jobs()).length > 0; i += 1) await sleep(20);
    await runner.stop(5000);
    assert.equal(r.ran.length, 30);
    assert.equal(new Set(r.ran).size, 30, 'each once');
    assert.ok(r.peak() <= 6 && r.peak() >= 3, `peak ${r.peak()}`);
    assert.equal(Math.max(...r.peakByGroup.values()), 2, 'groups ran up to their limit');
    for (const [group, peak] of r.peakByGroup) assert.ok(peak <= 2, `${group}: ${peak}`);
    assert.equal((await jobs()).length, 0);
  });

  test('a handler that throws: the job is retried after the fault delay with the reason, never lost', async () => {
    await add(1);
    const log = captureLog();
    const handler: JobHandler = {
      ...recorder().handler,
      run: () => Promise.reject(new Error('disk on fire')),
    };
    const runner = createJobRunner({ db: ctx.deps.db, clock }, log, handler);
    assert.equal(await runner.runOnce(), 1);
    const [row] = await jobs();
    assert.equal(row?.attempts, 1);
    assert.equal(row?.lease, null);
    assert.equal(row?.run_at, iso(now + 10_000));
    assert.match(row?.last_error ?? '', /fault: disk on fire/);
    assert.ok(log.lines.some((l) => l.level === 'error' && l.msg.includes('job fault')));
    assert.equal(await runner.runOnce(), 0, 'not before its delay');
  });

  test('stop() starts no new job: the unstarted rest of a batch goes back, due at once, unattempted', async () => {
    await add(3);
    let stopping: Promise<void> = Promise.resolve();
    const ran: string[] = [];
    const base = recorder({ batch: 10 }).handler;
    const runner = createJobRunner({ db: ctx.deps.db, clock }, captureLog(), {
      ...base,
      async run(job) {
        ran.push(job.subject_id);
        stopping = runner.stop(5000);
        await ctx.deps.db.kysely.transaction().execute((trx) => finishJob(trx, job));
      },
    });
    assert.equal(await runner.runOnce(), 3);
    await stopping;
    assert.equal(ran.length, 1);
    const left = await jobs();
    assert.equal(left.length, 2);
    for (const row of left) {
      assert.equal(row.lease, null);
      assert.equal(row.attempts, 0);
      assert.ok(row.run_at <= iso(now));
    }
  });

  test('while the node is busy with requests, jobs and the work before claims start at most perSecond a second', async () => {
    await add(4);
    const starts: number[] = [];
    const smalls: boolean[] = [];
    const base = recorder({ concurrency: 4 }).handler;
    const handler: JobHandler = {
      ...base,
      prepare: (small) => {
        smalls.push(small);
        return Promise.resolve(false);
      },
      run: (job) => {
        starts.push(performance.now());
        return base.run(job);
      },
    };
    const busy = { busy: () => true };
    const runner = createJobRunner({ db: ctx.deps.db, clock }, captureLog(), handler, {
      giveWay: { to: busy, perSecond: 10 },
    });
    const started = performance.now();
    assert.equal(await runner.runOnce(), 4);
    assert.deepEqual(smalls, [true], 'the work before the claim was told the node is busy');
    assert.equal(starts.length, 4);
    // One turn for the work before the claim (turn 0), then one per job: turn k is due 100 ms
    // after turn k-1 was due, so job i starts no sooner than (i + 1) * 100 ms after the call.
    // Measured against that schedule, not against the start before: a start held up by a loaded
    // machine does not move the next turn, so two starts may come closer than 100 ms. Node's
    // timers count whole milliseconds from the loop's clock, so allow 2 ms.
    for (let i = 0; i < starts.length; i += 1) {
      const after = (starts[i] as number) - started;
      assert.ok(after >= (i + 1) * 100 - 2, `job ${i} started ${after.toFixed(1)} ms after the call`);
    }
    assert.ok(performance.now() - started >= 395, 'five turns of 100 ms');
    assert.equal((await jobs()).length, 0, 'every job ran');
  });

  test('when the node is not busy, nothing waits for a turn', async () => {
    await add(4);
    const smalls: boolean[] = [];
    const handler: JobHandler = {
      ...recorder({ concurrency: 4 }).handler,
      prepare: (small) => {
        smalls.push(small);
        return Promise.resolve(false);
      },
    };
    // One a second while busy: four jobs would take three seconds if they waited.
    const runner = createJobRunner({ db: ctx.deps.db, clock }, captureLog(), handler, {
      giveWay: { to: { busy: () => false }, perSecond: 1 },
    });
    const started = performance.now();
    assert.equal(await runner.runOnce(), 4);
    assert.deepEqual(smalls, [false]);
    assert.ok(performance.now() - started < 2500, 'no turns waited for');
  });

  test('a job whose lease is nearly over when its turn comes is given back, not started', async () => {
    await add(2);
    const ran: string[] = [];
    const base = recorder({ batch: 10, startMarginMs: 30_000 }).handler;
    const runner = createJobRunner({ db: ctx.deps.db, clock }, captureLog(), {
      ...base,
      async run(job) {
        ran.push(job.subject_id);
        now += 40_000; // a slow job eats the batch's lease
        await ctx.deps.db.kysely.transaction().execute((trx) => finishJob(trx, job));
      },
    });
    await runner.runOnce();
    assert.deepEqual(ran, ['ntf_test0000']);
    const [left] = await jobs();
    assert.equal(left?.subject_id, 'ntf_test0001');
    assert.equal(left?.lease, null);
  });
});
