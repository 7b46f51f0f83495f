// Command-line option helpers of the benches: whole-number checks, and the parse / --help /
// usage-error sequence of the webhook outage drill (scripts/lib/options.ts has the same two for
// `npm run test:outage`).
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** `raw` as an integer from min to max, else an Error naming `--name` (the benches' check). */
export function wholeNumber(raw: string, name: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`); // prettier-ignore
  return n;
}

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
