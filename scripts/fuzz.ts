// npm run fuzz -- [--runs N] [--seed S] [--op operationId]...
// The spec-driven fuzz suite (test/fuzz/) for deeper searches than CI's 200 cases per operation.
// Prints the cases run per operation, the statuses seen, and every failure with its seed and
// counterexample (replay it with the same --seed and --op). Exits 1 when anything failed.
// On PostgreSQL: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run fuzz -- --runs 2000
import { parseArgs } from 'node:util';
import { fuzzOperation, type OperationReport } from '../test/fuzz/runner.ts';
import { openFuzzSession } from '../test/fuzz/setup.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    op: { type: 'string', multiple: true },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('--runs must be a whole number of at least 1\n');
  process.exit(2);
}
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isInteger(seed)) {
  process.stderr.write('--seed must be an integer\n');
  process.exit(2);
}

const session = await openFuzzSession();
const reports: OperationReport[] = [];
try {
  const wanted = values.op ?? [];
  const unknown = wanted.filter((id) => !session.operations.some((op) => op.operationId === id));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown operation ${unknown.join(', ')}; known: ${session.operations.map((o) => o.operationId).join(', ')}\n`,
    );
    process.exitCode = 2;
  } else {
    for (const op of session.operations.filter((o) => wanted.length === 0 || wanted.includes(o.operationId))) {
      const started = Date.now();
      const report = await fuzzOperation(op, session.world, { runs, ...(seed === undefined ? {} : { seed }) });
      reports.push(report);
      const statuses = Object.entries(report.statuses)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ');
      process.stdout.write(
        `${report.failure === undefined ? 'ok  ' : 'FAIL'} ${op.operationId.padEnd(20)} ${String(report.cases).padStart(6)} cases ` +
          `${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${statuses}\n`,
      );
      if (report.failure !== undefined) {
        process.stdout.write(
          `     ${report.failure.message}\n     seed ${report.failure.seed}, path ${String(report.failure.path)}\n` +
            `     counterexample ${report.failure.counterexample}\n`,
        );
      }
    }
    const total = reports.reduce((n, r) => n + r.cases, 0);
    const failed = reports.filter((r) => r.failure !== undefined).length;
    process.stdout.write(`\n${total} cases over ${reports.length} operations, ${failed} failing\n`);
    if (failed > 0) process.exitCode = 1;
  }
} finally {
  await session.close();
}
