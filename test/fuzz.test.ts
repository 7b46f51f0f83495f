// The spec-driven fuzz suite (test/fuzz/): every operation of /v1/openapi.json, 200 generated
// cases each (FUZZ_RUNS to change it, FUZZ_SEED to replay a failure, FUZZ_ONLY to pick operations; `npm run fuzz` for longer
// runs). Each response must have a documented status, never a 5xx, the documented body and
// headers; wrong requests get the 4xx the contract names, requests without a key 401.
// node:test's test() returns a promise that the runner itself awaits.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzOperation } from './fuzz/runner.ts';
import { openFuzzSession } from './fuzz/setup.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
// FUZZ_ONLY (a regular expression on the operationId) narrows a replay to the operations it names.
const ONLY = process.env.FUZZ_ONLY === undefined ? undefined : new RegExp(process.env.FUZZ_ONLY);
/** Operations whose success needs work the fuzz world does not do (see below). */
const WORLD_CANNOT_SUCCEED = new Set(['getKitItem']);

// The operations come from the document, so the session is open before the tests are declared:
// one test per operation, each with its own time budget.
const session = await openFuzzSession();
let total = 0;

after(async () => {
  await session.close();
});

test('the document lists every operation to fuzz', () => {
  assert.ok(session.operations.length >= 20, `${session.operations.length} operations`);
});

for (const op of session.operations) {
  if (ONLY !== undefined && !ONLY.test(op.operationId)) continue;
  test(`fuzz ${op.operationId} (${op.method} ${op.path})`, async (t) => {
    const report = await fuzzOperation(op, session.world, {
      runs: RUNS,
      ...(SEED === undefined ? {} : { seed: SEED }),
    });
    total += report.cases;
    t.diagnostic(`${report.cases} cases (${total} so far); statuses ${JSON.stringify(report.statuses)}`);
    if (report.failure !== undefined) {
      assert.fail(
        `${report.failure.message}\nreplay: FUZZ_SEED=${report.failure.seed} (path ${String(report.failure.path)})\n` +
          `counterexample: ${report.failure.counterexample}`,
      );
    }
    assert.ok(report.cases >= RUNS, `${report.cases} cases`);
    // The cases reached the kinds of request they are meant to: keyless, wrong ids, bad input.
    if (op.secured) assert.ok((report.arms['no-key'] ?? 0) > 0, 'no case without a key');
    if (op.params.some((p) => p.in === 'path')) assert.ok((report.arms['not-found'] ?? 0) > 0, 'no wrong id');
    if (op.body?.type === 'json') assert.ok((report.arms['invalid-body'] ?? 0) > 0, 'no invalid body');
    if (op.params.some((p) => p.in === 'query')) assert.ok((report.arms['invalid-query'] ?? 0) > 0, 'no bad query');
    // And the happy path: some case of every operation succeeded (but a kit item's: its bytes
    // exist only once a kit is built, ffmpeg's minutes the fuzz world does not spend; kit.test.ts
    // serves them).
    if (!WORLD_CANNOT_SUCCEED.has(op.operationId))
      assert.ok(
        Object.keys(report.statuses).some((status) => status.startsWith('2')),
        `no success among ${JSON.stringify(report.statuses)}`,
      );
  });
}
