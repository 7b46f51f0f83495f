// The verdicts of decision 0024 (issue 36): a gallery search against page 1 of the same run, and
// the create's CPU floor beside its target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verdicts, type Row } from './report.ts';

const row = (endpoint: string, ratio: number, cpuUs: number, cpuRatio = 0): Row => ({
  size: '1M',
  endpoint,
  label: endpoint,
  rps: ratio * 10_000,
  p50: 1,
  p99: 2,
  errors: 0,
  ratio,
  cpuUs,
  cpuRatio,
  rounds: [],
});

test('searches are judged against page 1 of the same run, per dialect', () => {
  const rows = [
    row('page1', 0.2, 400),
    row('bysearch', 0.09, 900),
    row('raresearch', 0.07, 1200),
    row('midsearch', 0.05, 2000),
  ];
  const sqlite = verdicts(rows, 'sqlite');
  const frequent = sqlite.find((v) => v.target.startsWith('a frequent term'));
  assert.deepEqual([frequent?.met, frequent?.value.startsWith('0.45x')], [false, true]);
  assert.match(frequent?.target ?? '', /≥ 0.5x/);
  assert.equal(sqlite.find((v) => v.target.startsWith('a rare term'))?.met, true);
  assert.equal(sqlite.find((v) => v.target.startsWith('a term near'))?.met, null);
  const postgres = verdicts(rows, 'postgres');
  assert.equal(postgres.find((v) => v.target.startsWith('a frequent term'))?.met, true, '0.45x ≥ 0.25x');
  assert.equal(verdicts([row('bysearch', 0.1, 1)], 'sqlite').length, 0, 'no page 1, no verdict');
});

test('the create is reported against its target and the 0.085x floor', () => {
  const [target, floor] = verdicts([row('create', 1, 1000, 0.09)], 'sqlite').filter((v) =>
    v.target.startsWith('create gallery'),
  );
  assert.deepEqual([target?.met, floor?.met], [false, true]);
  assert.match(floor?.target ?? '', /0.085x/);
  const below = verdicts([row('create', 1, 1000, 0.08)], 'sqlite').find((v) => v.target.includes('0.085x'));
  assert.equal(below?.met, false);
});
