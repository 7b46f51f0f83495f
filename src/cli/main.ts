// The `lightbox` command: finds the command named on the line, runs it, and turns every
// failure into one line on stderr and an exit code (2 for bad arguments, 1 for the rest).
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config.ts';
import {
  accountsCreateCommand,
  accountsListCommand,
  accountsReset2faCommand,
  accountsStripeCommand,
  accountsResetPasswordCommand,
} from './accounts.ts';
import {
  CommandError,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  UsageError,
  wantsHelp,
  type CliIo,
  type Command,
} from './command.ts';
import { backupCommand, restoreCommand } from './backup.ts';
import { doctorCommand } from './doctor.ts';
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './keys.ts';
import { mediaAnalyzeCommand, mediaSweepCommand, mediaVariantsCommand } from './media.ts';
import { migrateCommand, serveCommand, workerCommand } from './serve.ts';

export type { CliIo } from './command.ts';

const COMMANDS: readonly Command[] = [
  serveCommand,
  workerCommand,
  migrateCommand,
  accountsCreateCommand,
  accountsListCommand,
  accountsResetPasswordCommand,
  accountsReset2faCommand,
  accountsStripeCommand,
  keysCreateCommand,
  keysListCommand,
  keysRevokeCommand,
  mediaSweepCommand,
  mediaVariantsCommand,
  mediaAnalyzeCommand,
  doctorCommand,
  backupCommand,
  restoreCommand,
];

/** Commands with subcommands: `lightbox keys create`. */
const GROUPS = ['accounts', 'keys', 'media'] as const;

const commandList = (commands: readonly Command[]): string =>
  commands.map((c) => `  ${c.name.padEnd(25)}${c.summary}`).join('\n');

const USAGE = `Usage: lightbox <command> [options]

Lightbox: galleries, their media and clients for photography studios, over a REST API.
In the project folder, run it as './run lightbox ...' (on any Node: ./run fetches Node 24 when
needed) or, on Node 22.18 or newer, 'npx lightbox ...': npm ci does not put 'lightbox' on the PATH.

Commands:
${commandList(COMMANDS)}

Run './run lightbox <command> --help' for a command's options, e.g. './run lightbox keys create --help'.

Configuration comes from environment variables, as for the service: DATA_DIR (./data),
DATABASE_URL (a SQLite file in DATA_DIR, or postgres://...), MEDIA_STORAGE (a folder in
DATA_DIR, or s3://bucket/prefix), PORT, HOST, PUBLIC_URL, LOG_LEVEL; see docs/configuration.md.
Commands that use the database bring its schema up to date first.

Output: results (an id, a key, a list) go to stdout; notes and errors go to stderr.

Exit status:
  0  success
  1  the command failed: a bad configuration variable (named in the message), an
     unknown account or key, a duplicate account, a refused password, or the
     database could not be reached
  2  bad arguments: unknown command or option, a missing, extra or malformed value
`;

const groupUsage = (group: string): string =>
  `Usage: lightbox ${group} <command> [options]

Commands:
${commandList(COMMANDS.filter((c) => c.name.startsWith(`${group} `)))}

Run 'npx lightbox ${group} <command> --help' for a command's options.
`;

type Resolved =
  | { kind: 'text'; text: string }
  | { kind: 'command'; command: Command; args: string[] }
  | { kind: 'usage-error'; label: string; message: string };

function resolve(argv: readonly string[]): Resolved {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: 'usage-error', label: 'lightbox', message: 'missing command' };
  if (first === '-h' || first === '--help') return { kind: 'text', text: USAGE };
  if (first === '--version' || first === '-V') return { kind: 'text', text: `${version()}\n` };
  if (first === 'help') {
    if (rest.length === 0) return { kind: 'text', text: USAGE };
    const target = resolve([...rest, '--help']);
    return target.kind === 'command' ? { kind: 'text', text: target.command.help } : target;
  }
  const group = GROUPS.find((g) => g === first);
  if (group !== undefined) {
    const [sub, ...subArgs] = rest;
    if (sub === undefined) {
      return { kind: 'usage-error', label: `lightbox ${group}`, message: 'missing command' };
    }
    if (sub === '-h' || sub === '--help') return { kind: 'text', text: groupUsage(group) };
    const command = COMMANDS.find((c) => c.name === `${group} ${sub}`);
    if (command === undefined) {
      return { kind: 'usage-error', label: `lightbox ${group}`, message: unknown(sub) };
    }
    return { kind: 'command', command, args: subArgs };
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (command === undefined) return { kind: 'usage-error', label: 'lightbox', message: unknown(first) };
  return { kind: 'command', command, args: rest };
}

const unknown = (word: string): string =>
  word.startsWith('-') ? `unknown option ${word}` : `unknown command ${JSON.stringify(word)}`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs `lightbox` with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const resolved = resolve(argv);
  switch (resolved.kind) {
    case 'text':
      io.stdout.write(resolved.text);
      return EXIT_OK;
    case 'usage-error':
      return report(new UsageError(resolved.message), resolved.label, io);
    case 'command': {
      const { command, args } = resolved;
      const label = `lightbox ${command.name}`;
      if (wantsHelp(args)) {
        io.stdout.write(command.help);
        return EXIT_OK;
      }
      try {
        return await command.run(args, io);
      } catch (err) {
        return report(err, label, io);
      }
    }
  }
}

function report(err: unknown, label: string, io: CliIo): number {
  const line = (message: string): void => {
    io.stderr.write(`${label}: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  };
  if (err instanceof UsageError) {
    line(`${err.message} (see '${label} --help')`);
    return EXIT_USAGE;
  }
  if (err instanceof CommandError) {
    line(err.message);
    return err.exitCode;
  }
  if (err instanceof ConfigError) {
    line(`bad configuration: ${err.message}`);
    return EXIT_FAILURE;
  }
  line(err instanceof Error ? err.message : String(err));
  return EXIT_FAILURE;
}
