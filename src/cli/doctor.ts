// `lightbox doctor`: proves the maintained counts (list totals, media_count) and the client
// search index agree with the rows, by counting the rows again, and that the media storage
// agrees with the ledger (decisions/0002), and that every photo's variants are stored or on
// their way (variants.upkeep.ts). `--fix` rewrites the counts, removes stored objects no
// row owns and queues the photos whose variants need making again.
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
media record's bytes are stored. Checks that every ready photo variant's bytes
are stored, and that every photo's variants are made or queued to be. Prints one
line per difference on stdout.

Exit status: 0 when everything matches (with --fix: matches once repaired),
1 when something differs (or the database cannot be reached), 2 for bad arguments.

Options:
      --fix    rewrite the maintained counts and the search index from the rows
               (writers wait while it runs, so it is exact even with the service up),
               remove stored objects that nothing owns, as 'lightbox media sweep'
               does, and queue photos whose variants are missing or stalled for the
               service to make again; media whose own bytes are missing cannot be
               repaired: delete them
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
    const { recomputeCounts, checkCounts } = await import('../mechanisms/counts/counts.service.ts');
    const [report, stored, variants, ok] = await withDatabase(io, async ({ db, services }) => {
      const counts = fix ? await recomputeCounts(db) : await checkCounts(db);
      const audit = await services.mediaCleanup.audit();
      const found = await services.variants.check(audit.missingVariants);
      if (!fix) return [counts, audit, found, undefined] as const;
      if (audit.unowned.length > 0) await services.mediaCleanup.sweepOrphans();
      await services.variants.repair(found);
      const [countsAfter, auditAfter] = [await checkCounts(db), await services.mediaCleanup.audit()];
      const foundAfter = await services.variants.check(auditAfter.missingVariants);
      const storageOk = auditAfter.unowned.length === 0 && auditAfter.missing.length === 0;
      const variantsOk = foundAfter.missingBytes.length === 0 && foundAfter.stalled.length === 0;
      return [counts, audit, found, countsAfter.ok && storageOk && variantsOk] as const;
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
    for (const v of variants.missingBytes) {
      out(`variants: ${v.variant ?? ''} of photo ${v.id} of gallery ${v.listing_id} (account ${v.account_id}) has no stored object`); // prettier-ignore
    }
    for (const p of variants.stalled) {
      const why =
        p.variants_status === 'pending'
          ? 'is pending with no job queued'
          : p.kind === 'video'
            ? 'is ready without its poster or a rendition with no tags'
            : `is ready with ${p.variants} of its variants`;
      out(`variants: ${p.kind} ${p.id} of gallery ${p.listing_id} (account ${p.account_id}) ${why}`);
    }
    const differences =
      report.counters.length +
      report.mediaCounts.length +
      report.searchIndex.length +
      stored.unowned.length +
      stored.missing.length +
      variants.missingBytes.length +
      variants.stalled.length;
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
    out(`${differences} difference(s); 'npx lightbox doctor --fix' ${repairs}`);
    return EXIT_FAILURE;
  },
};
