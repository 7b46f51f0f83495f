// The serve process's periodic tasks: a run at start, runs on wake without waiting for the
// interval, never two at once, wakes during a run coalesced into one run after it, faults
// logged, and nothing after stop(). The interval is an hour, so every run here comes from a wake.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import type { Log } from './log.ts';
import { every } from './periodic.ts';

const HOUR = 3_600_000;

function task() {
  const gates: (() => void)[] = [];
  let runs = 0;
  let running = 0;
  let overlapped = false;
  return {
    run: async (): Promise<void> => {
      runs += 1;
      running += 1;
      if (running > 1) overlapped = true;
      await new Promise<void>((resolve) => gates.push(resolve));
      running -= 1;
    },
    /** Lets the oldest waiting run finish. */
    finish: async (): Promise<void> => {
      gates.shift()?.();
      for (let i = 0; i < 5; i += 1) await turn();
    },
    runs: () => runs,
    overlapped: () => overlapped,
  };
}

const collect = (): Log & { warnings: string[] } => {
  const warnings: string[] = [];
  return { info: () => undefined, warn: (_obj, msg) => warnings.push(msg), error: () => undefined, warnings };
};

test('runs at start; a wake runs it again at once, after the run in flight; wakes meanwhile coalesce', async () => {
  const work = task();
  const job = every(HOUR, work.run, collect(), 'test job');
  assert.equal(work.runs(), 1);
  job.wake();
  job.wake();
  job.wake();
  await turn();
  assert.equal(work.runs(), 1, 'never two runs at once');
  await work.finish();
  assert.equal(work.runs(), 2, 'one more run for the three wakes');
  await work.finish();
  assert.equal(work.runs(), 2);
  job.wake();
  await turn();
  assert.equal(work.runs(), 3, 'an idle job runs at once when woken');
  const stopped = job.stop();
  job.wake();
  await work.finish();
  await stopped;
  assert.equal(work.runs(), 3, 'nothing runs after stop()');
  assert.equal(work.overlapped(), false);
});

test('a failing run is logged, and the next wake runs again', async () => {
  const log = collect();
  let runs = 0;
  const job = every(
    HOUR,
    async () => {
      runs += 1;
      await turn();
      if (runs === 1) throw new Error('storage down');
    },
    log,
    'media cleanup',
  );
  job.wake();
  for (let i = 0; i < 10; i += 1) await turn();
  assert.equal(runs, 2);
  assert.deepEqual(log.warnings, ['media cleanup failed']);
  await job.stop();
});
