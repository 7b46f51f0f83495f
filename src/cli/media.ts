// `lightbox media sweep`: removes stored media bytes that no record owns. The service runs
// the same sweep at start-up and keeps acting on due deletions while it runs.
import {
  CommandError,
  EXIT_OK,
  parseCommandArgs,
  printable,
  stderrLog,
  UsageError,
  withDatabase,
  type Command,
} from './command.ts';
import { loadConfig } from '../config.ts';

export const mediaSweepCommand: Command = {
  name: 'media sweep',
  summary: 'Remove stored media bytes that no gallery or media record owns',
  help: `Usage: lightbox media sweep

Deletes the bytes of deleted media and galleries that are still in storage (after a
crash, or a storage outage during a delete), the bytes of uploads that failed or whose
process died (once their two-minute lease has run out), and any object in the media
storage that no record accounts for. Safe to run while the service runs. Prints the
counts on stdout.

Options:
  -h, --help   show this help
`,
  async run(args, io) {
    parseCommandArgs(args);
    const result = await withDatabase(io, ({ services }) => services.mediaCleanup.sweep(stderrLog(io)));
    io.stdout.write(`purged ${result.purged} deleted, removed ${result.orphans} orphaned\n`);
    return EXIT_OK;
  },
};

const WHICH = ['missing', 'failed', 'all'] as const;

export const mediaVariantsCommand: Command = {
  name: 'media variants',
  summary: "Make photos' variants (thumb, large, mls) and videos' (poster, web) again",
  help: `Usage: lightbox media variants [--missing | --failed | --all]

Queues photos and videos to have their variants made again by the running service
(or by the next one to start): a backfill, or a remake after changing VARIANT_MLS_SIZE.

  --missing   those whose variants are not ready (pending or failed): the default
  --failed    only those whose variants failed
  --all       every photo and video; ready variants stay until the new ones replace them

One already queued is left alone. Prints how many were queued on stdout.

Options:
  -h, --help   show this help
`,
  async run(args, io) {
    const flags = args.filter((a) => a.startsWith('--'));
    const chosen = WHICH.filter((w) => flags.includes(`--${w}`));
    const unknown = flags.filter((f) => !WHICH.some((w) => f === `--${w}`));
    if (unknown.length > 0) throw new UsageError(`unknown option ${unknown[0] ?? ''}`);
    if (chosen.length > 1) throw new UsageError('choose one of --missing, --failed and --all');
    const positional = args.find((a) => !a.startsWith('--'));
    if (positional !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(positional)}`);
    const which = chosen[0] ?? 'missing';
    const queued = await withDatabase(io, ({ services }) => services.variants.remake(which));
    io.stdout.write(`queued ${queued} photo(s) for their variants\n`);
    return EXIT_OK;
  },
};

export const mediaAnalyzeCommand: Command = {
  name: 'media analyze',
  summary: 'Analyse photos whose analysis is missing or failed again',
  help: `Usage: lightbox media analyze [--listing ID]

Queues photos whose analysis (docs/api.md §30: hash, sharpness, exposure, tilt, similar
groups) is missing or failed, to be analysed by the running service (or by the next one
to start): photos from before analysis existed, uploaded while ANALYSIS=off, or whose
analysis failed. One already queued is left alone. Prints how many were queued on stdout.
Refused while ANALYSIS=off: nothing would analyse them.

Options:
  --listing ID   only the photos of this gallery (\`lst_...\`)
  -h, --help     show this help
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['listing']);
    const listing = values['listing'];
    if (listing !== undefined && !/^lst_[0-9A-Za-z_-]+$/.test(listing)) {
      throw new UsageError(`--listing must be a gallery id (lst_...), got ${JSON.stringify(printable(listing))}`);
    }
    if (!loadConfig(io.env).media.analysis) throw new CommandError('ANALYSIS is off: turn it on to analyse photos');
    const queued = await withDatabase(io, ({ services }) => services.analysis.analyse(listing));
    io.stdout.write(`queued ${queued} photo(s) for analysis\n`);
    return EXIT_OK;
  },
};
