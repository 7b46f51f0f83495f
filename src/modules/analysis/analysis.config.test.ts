// ANALYSIS and ANALYSIS_OCR (docs/api.md §12, §30): on by default; off turns photo analysis off,
// or only its reading of text.
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

test('ANALYSIS_OCR: on by default; off turns only the reading of text off', () => {
  assert.equal(loadConfig({}).media.analysisOcr, true);
  const off = loadConfig({ ANALYSIS_OCR: 'off' });
  assert.equal(off.media.analysisOcr, false);
  assert.equal(off.media.analysis, true);
  assert.throws(
    () => loadConfig({ ANALYSIS_OCR: 'maybe' }),
    (err) => err instanceof ConfigError && err.variable === 'ANALYSIS_OCR',
  );
});
