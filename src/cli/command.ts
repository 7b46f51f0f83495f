// What every `lightbox` command shares: its streams, its exit codes, and argument parsing
// that turns node:util's parse errors into one clear line and exit code 2.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Db } from '../db/database.ts';
import type { Log } from '../lib/log.ts';
import type { Services } from '../services.ts';

/** The process's streams and environment, passed in so tests can run a command in-process. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Readonly<Record<string, string | undefined>>;
}

export const EXIT_OK = 0;
/** The command ran and failed: bad configuration, unknown account or key, refused value. */
export const EXIT_FAILURE = 1;
/** The command line itself is wrong: unknown command or option, missing or malformed value. */
export const EXIT_USAGE = 2;
/** Interrupted with Ctrl-C at a prompt (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** Bad arguments: reported on one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the operator can act on: reported on one line, exit code 1. */
export class CommandError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT_FAILURE) {
    super(message);
    this.name = 'CommandError';
    this.exitCode = exitCode;
  }
}

export interface Command {
  /** As typed: `keys create`. */
  readonly name: string;
  /** One line for the top-level command list. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** `-h`/`--help` anywhere before a `--` asks for help, whatever else is on the line. */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '-h' || arg === '--help') return true;
  }
  return false;
}

export interface ParsedArgs {
  values: Record<string, string | undefined>;
  positionals: string[];
}

/**
 * Strict parsing: the named string options, and either no positional argument or exactly the
 * one named by `positional` (`KEY_ID`). Every parse error becomes a one-line UsageError.
 */
export function parseCommandArgs(
  args: string[],
  optionNames: readonly string[] = [],
  positional?: string,
  /** Options that take no value (`--test`): present means `values[name] === 'true'`. */
  flagNames: readonly string[] = [],
): ParsedArgs {
  const options: ParseArgsOptionsConfig = {};
  for (const name of optionNames) options[name] = { type: 'string' };
  for (const name of flagNames) options[name] = { type: 'boolean' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(describeParseError(err));
  }
  const values: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') values[name] = value;
    else if (value === true) values[name] = 'true';
  }
  const given = parsed.positionals;
  const allowed = positional === undefined ? 0 : 1;
  if (given.length < allowed) throw new UsageError(`missing ${positional ?? ''}`);
  if (given.length > allowed) throw new UsageError(`unexpected argument ${JSON.stringify(given[allowed])}`);
  return { values, positionals: given };
}

export function describeParseError(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // "Option '--name <value>' argument missing"
      return `option ${quoted.replace(/ <value>$/, '')} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}`;
    default:
      return message;
  }
}

/** A required option: present and not blank, else a UsageError naming it. */
export function required(values: ParsedArgs['values'], name: string, placeholder: string): string {
  const value = values[name];
  if (value === undefined) throw new UsageError(`missing --${name} ${placeholder}`);
  if (value.trim() === '') throw new UsageError(`--${name} must not be empty`);
  return value;
}

/** What a command that uses the database is handed: the same services as the app. */
export interface CliContext {
  readonly services: Services;
  readonly db: Db;
  /** Migrations applied just now, oldest first. */
  readonly applied: readonly string[];
}

/**
 * Opens the configured resources, brings the database schema up to date (so first setup needs no
 * separate `migrate`), runs `fn` with the one service graph (src/services.ts), and always closes
 * the resources so the process can exit.
 */
export async function withDatabase<T>(io: CliIo, fn: (context: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  // Loaded on use, not at start: the database drivers take most of a second to load, and
  // `--help` or a mistyped option should answer at once.
  const [deps, migrate, graph] = await Promise.all([
    import('../deps.ts'),
    import('../db/migrate.ts'),
    import('../services.ts'),
  ]);
  const resources = deps.createDeps(config);
  try {
    const { applied } = await migrate.migrateToLatest(resources.db);
    for (const name of applied) io.stderr.write(`applied migration ${name}\n`);
    return await fn({ services: graph.createServices(resources), db: resources.db, applied });
  } finally {
    await deps.closeDeps(resources);
  }
}

/** A command's progress and warnings, as lines on stderr (stdout is kept for its result). */
export function stderrLog(io: CliIo): Log {
  const line = (prefix: string) => (obj: object, msg: string) => {
    io.stderr.write(`${prefix}${msg}: ${JSON.stringify(obj)}\n`);
  };
  return { info: line(''), warn: line('warning: '), error: line('error: ') };
}

/** Control characters in stored text (a key name, say) must not drive the operator's terminal. */
export const printable = (text: string): string =>
  Array.from(text, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) ? '?' : char;
  }).join('');

/** A service's not_found for an account named by email, as the operator's one-line failure. */
export function noSuchAccount(err: unknown, email: string): unknown {
  if (err instanceof AppError && err.code === 'not_found') {
    return new CommandError(`no account with email ${JSON.stringify(printable(email.trim()))}`);
  }
  return err;
}

/**
 * Rows under a header in aligned columns (two spaces apart), one a line, for people and for
 * scripts alike (`awk '{print $1}'`); the last column unpadded so lines carry no trailing spaces.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  return table
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}
