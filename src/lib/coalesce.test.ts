import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalesce } from './coalesce.ts';

/** A reader that records each batch's keys and answers `answer(key)` (a key is left out on undefined). */
function recorder(answer: (key: string) => number | undefined = (key) => key.length) {
  const batches: { keys: string[] }[] = [];
  const read = (keys: string[]): Promise<Map<string, number>> => {
    batches.push({ keys: [...keys].sort() });
    const out = new Map<string, number>();
    for (const key of keys) {
      const value = answer(key);
      if (value !== undefined) out.set(key, value);
    }
    return Promise.resolve(out);
  };
  return { batches, read };
}

test('calls of one turn share one read, with each key once', async () => {
  const r = recorder();
  const reads = coalesce(r.read);
  const answers = await Promise.all([reads.get('a'), reads.get('bb'), reads.get('a'), reads.get('ccc')]);
  assert.deepEqual(answers, [1, 2, 1, 3]);
  assert.deepEqual(
    r.batches.map((b) => b.keys),
    [['a', 'bb', 'ccc']],
  );
});

test('every read begins after each of its callers asked', async () => {
  let clock = 0;
  const began: number[] = [];
  // Each read answers with the moment it began.
  const reads = coalesce((keys: string[]) => {
    clock += 1;
    began.push(clock);
    return Promise.resolve(new Map(keys.map((k) => [k, clock])));
  });
  const calls: { asked: number; answer: Promise<number> }[] = [];
  // Callers spread over several turns, one to three in each.
  for (let turn = 0; turn < 6; turn += 1) {
    for (let i = 0; i <= turn % 3; i += 1) {
      clock += 1;
      calls.push({ asked: clock, answer: reads.get(`k${i}`) });
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(began.length, 6, 'one read a turn');
  for (const call of calls) assert.ok((await call.answer) > call.asked, 'answered by a read that began later');
});

test('a read under way is not joined: a later call waits for a read of its own', async () => {
  let release: (() => void) | undefined;
  const started: string[] = [];
  const reads = coalesce(async (keys: string[]) => {
    const n = started.push(keys.join(','));
    if (n === 1) await new Promise<void>((resolve) => (release = resolve));
    return new Map(keys.map((k) => [k, n]));
  });
  const first = reads.get('a');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, ['a'], 'the first read has begun and is waiting');
  const second = reads.get('a');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, ['a', 'a'], 'the second call did not wait on the first read');
  release?.();
  assert.equal(await first, 1);
  assert.equal(await second, 2);
});

test('a failed read fails its own callers only', async () => {
  let fail = true;
  const reads = coalesce((keys: string[]) => {
    if (fail) return Promise.reject(new Error('database away'));
    return Promise.resolve(new Map(keys.map((k) => [k, 7])));
  });
  const a = reads.get('a');
  const b = reads.get('b');
  await assert.rejects(a, /database away/);
  await assert.rejects(b, /database away/);
  fail = false;
  assert.equal(await reads.get('a'), 7);
});

test('a reader that throws at once, or leaves a key out, rejects rather than hangs', async () => {
  const throwing = coalesce((): Promise<Map<string, number>> => {
    throw new Error('no connection');
  });
  await assert.rejects(throwing.get('a'), /no connection/);
  const r = recorder((key) => (key === 'gone' ? undefined : 1));
  const partial = coalesce(r.read);
  const kept = partial.get('kept');
  const gone = partial.get('gone');
  assert.equal(await kept, 1);
  await assert.rejects(gone, /no value/);
});
