// ANALYSIS (docs/api.md §12, §30): on by default; off turns photo analysis off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../config.ts';

test('ANALYSIS: on by default; off (or false) turns it off; anything else stops the start naming it', () => {
  assert.equal(loadConfig({}).media.analysis, true);
  for (const [value, on] of [
    ['on', true],
    ['off', false],
    ['OFF', false],
    ['false', false],
    ['true', true],
  ] as const) {
    assert.equal(loadConfig({ ANALYSIS: value }).media.analysis, on, value);
  }
  assert.throws(
    () => loadConfig({ ANALYSIS: 'sometimes' }),
    (err) => err instanceof ConfigError && err.variable === 'ANALYSIS',
  );
});
