// Command-line option helpers of `npm run test:outage` (scripts/outage.ts): the whole-number check
// and the parse / --help / usage-error sequence. The bench workspace keeps its own copy
// (packages/bench/src/lib/options.ts): a package does not reach into scripts/.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** `raw` as digits only, from min to max; otherwise says so on stderr and exits with code 2. */
export function wholeNumberOrExit(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    process.stderr.write(`--${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})\n`);
    process.exit(2);
  }
  return n;
}

/**
 * process.argv parsed against `options` (which must include a boolean `help`): on a parse error the
 * message and `help` go to stderr and the process exits with code 2; with --help, `help` goes to
 * stdout and it exits with code 0.
 */
export function parseOrExit<O extends ParseArgsOptionsConfig>(
  help: string,
  options: O,
): ReturnType<typeof parseArgs<{ options: O }>>['values'] {
  let parsed: ReturnType<typeof parseArgs<{ options: O }>>;
  try {
    parsed = parseArgs({ options });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${help}\n`);
    process.exit(2);
  }
  if ((parsed.values as { help?: unknown }).help === true) {
    process.stdout.write(`${help}\n`);
    process.exit(0);
  }
  return parsed.values;
}
