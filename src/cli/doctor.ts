// `lightbox doctor`: proves the maintained counts (list totals, media_count) and the client
// search index agree with the rows, by counting the rows again, and that the media storage
// agrees with the ledger (decisions/0002). `--fix` rewrites the counts and removes stored
// objects no row owns.
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
  summary: 'Check that maintained counts, the search index and stored media match the data',
  help: `Usage: lightbox doctor [--fix]

Counts every account's galleries (in all and by status), clients, media and
notifications (in all and by status) with COUNT(*), and compares them with the
counts the service maintains for list totals; checks each gallery's media_count
and the client search index. Lists the media storage and checks that every
stored object is owned by a media record or a pending deletion, and that every
media record's bytes are stored. Prints one line per difference on stdout.

Exit status: 0 when everything matches (with --fix: matches once repaired),
1 when something differs (or the database cannot be reached), 2 for bad arguments.

Options:
      --fix    rewrite the maintained counts and the search index from the rows
               (writers wait while it runs, so it is exact even with the service up),
               and remove stored objects that nothing owns, as 'lightbox media sweep'
               does; media whose bytes are missing cannot be repaired: delete them
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
    const [report, stored, ok] = await withDatabase(io, async ({ db, services }) => {
      const counts = fix ? await recomputeCounts(db) : await checkCounts(db);
      const audit = await services.mediaCleanup.audit();
      if (!fix) return [counts, audit, undefined] as const;
      if (audit.unowned.length > 0) await services.mediaCleanup.sweepOrphans();
      const [countsAfter, auditAfter] = [await checkCounts(db), await services.mediaCleanup.audit()];
      const storageOk = auditAfter.unowned.length === 0 && auditAfter.missing.length === 0;
      return [counts, audit, countsAfter.ok && storageOk] as const;
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
    for (const key of stored.unowned) out(`storage: object ${key} is owned by no media and no pending deletion`);
    for (const m of stored.missing) {
      out(`storage: media ${m.id} of gallery ${m.listing_id} (account ${m.account_id}) has no stored object`);
    }
    if (stored.missing.length > 0)
      out('media without their bytes cannot be repaired: restore the bytes or delete them');
    const differences =
      report.counters.length +
      report.mediaCounts.length +
      report.searchIndex.length +
      stored.unowned.length +
      stored.missing.length;
    if (ok !== undefined) {
      if (!ok) {
        out('still different after the repair');
        return EXIT_FAILURE;
      }
      out(differences === 0 ? 'ok: nothing to repair' : `repaired ${differences} difference(s)`);
      return EXIT_OK;
    }
    if (differences === 0) {
      out('ok: every maintained count, the search index and the stored media match the data');
      return EXIT_OK;
    }
    const repairs = stored.missing.length === 0 ? 'repairs them' : 'repairs all but the missing bytes';
    out(`${differences} difference(s); 'lightbox doctor --fix' ${repairs}`);
    return EXIT_FAILURE;
  },
};
