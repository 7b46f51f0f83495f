// `lightbox media sweep`: removes stored media bytes that no record owns. The service runs
// the same sweep at start-up and keeps acting on due deletions while it runs.
import { EXIT_OK, parseCommandArgs, stderrLog, withDatabase, type Command } from './command.ts';

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
