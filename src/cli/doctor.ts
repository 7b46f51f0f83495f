// `lightbox doctor`: proves the maintained counts (list totals, media_count) and the client
// search index agree with the rows, by counting the rows again. `--fix` rewrites them.
import { parseArgs } from 'node:util';
import {
  describeParseError,
  EXIT_FAILURE,
  EXIT_OK,
  UsageError,
  withDatabase,
  type CliIo,
  type Command,
} from './command.ts';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Check that maintained counts and the search index match the data',
  help: `Usage: lightbox doctor [--fix]

Counts every account's galleries (in all and by status), clients, media and
notifications (in all and by status) with COUNT(*), and compares them with the
counts the service maintains for list totals; checks each gallery's media_count
and the client search index. Prints one line per difference on stdout.

Exit status: 0 when everything matches (with --fix: matches once repaired),
1 when something differs (or the database cannot be reached), 2 for bad arguments.

Options:
      --fix    rewrite the maintained counts and the search index from the rows
               (writers wait while it runs, so it is exact even with the service up)
  -h, --help   show this help
`,
  async run(args, io: CliIo) {
    let fix: boolean;
    try {
      const parsed = parseArgs({ args, options: { fix: { type: 'boolean' } }, allowPositionals: false, strict: true });
      fix = parsed.values.fix === true;
    } catch (err) {
      throw new UsageError(describeParseError(err));
    }
    const { recomputeCounts, checkCounts } = await import('../modules/counts/counts.service.ts');
    const [report, after] = await withDatabase(io, async ({ db }) => {
      if (!fix) return [await checkCounts(db), undefined] as const;
      return [await recomputeCounts(db), await checkCounts(db)] as const;
    });
    const out = (line: string): void => {
      io.stdout.write(`${line}\n`);
    };
    for (const m of report.counters) {
      out(`count ${m.counter} of account ${m.account_id}: stored ${m.stored}, actual ${m.actual}`);
    }
    for (const m of report.mediaCounts) {
      out(
        `media_count of gallery ${m.listing_id} (account ${m.account_id}): stored ${m.media_count}, actual ${m.actual}`,
      );
    }
    for (const p of report.searchIndex) out(`search index: ${p.problem}: ${p.n}`);
    const differences = report.counters.length + report.mediaCounts.length + report.searchIndex.length;
    if (after !== undefined) {
      if (!after.ok) {
        out('still different after the repair');
        return EXIT_FAILURE;
      }
      out(differences === 0 ? 'ok: nothing to repair' : `repaired ${differences} difference(s)`);
      return EXIT_OK;
    }
    if (differences === 0) {
      out('ok: every maintained count and the search index match the data');
      return EXIT_OK;
    }
    out(`${differences} difference(s); 'lightbox doctor --fix' repairs them`);
    return EXIT_FAILURE;
  },
};
