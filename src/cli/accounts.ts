// `lightbox accounts create`: the first setup of a studio, or a script's.
import { isEmail } from '../lib/email-address.ts';
import { AppError } from '../errors.ts';
import {
  CommandError,
  EXIT_OK,
  parseCommandArgs,
  required,
  UsageError,
  withDatabase,
  type Command,
} from './command.ts';
import { readPassword } from './password-input.ts';

export const accountsCreateCommand: Command = {
  name: 'accounts create',
  summary: 'Create an account (a studio); the password is read from stdin',
  help: `Usage: lightbox accounts create --name NAME --email EMAIL

Creates an account (one studio) and prints its id on stdout. The password is the
first line of stdin (at least 10 characters); at a terminal it is asked for
twice, without echo.

Options:
  --name NAME     the studio's name, used in emails (1 to 200 characters)
  --email EMAIL   the owner's email, used to sign in; unique across accounts
  -h, --help      show this help

Example:
  printf '%s\\n' "$OWNER_PASSWORD" | lightbox accounts create --name "Ana Photo" --email ana@example.com
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['name', 'email']);
    const name = required(values, 'name', 'NAME');
    const email = required(values, 'email', 'EMAIL');
    // Checked before the password prompt, so nobody types a password twice for nothing.
    if (!isEmail(email.trim())) throw new UsageError('--email must be a valid email address');
    const password = await readPassword(io);
    if (password === '') throw new CommandError('no password: give it on the first line of stdin');
    const account = await withDatabase(io, async ({ services: { accounts } }) => {
      try {
        return await accounts.create({ name, email, password });
      } catch (err) {
        throw explain(err, email);
      }
    });
    io.stdout.write(`${account.id}\n`);
    io.stderr.write(
      `created account ${account.id} for ${account.email}; make an API key with:\n` +
        `  lightbox keys create --account ${account.email} --name NAME\n`,
    );
    return EXIT_OK;
  },
};

function explain(err: unknown, email: string): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.code === 'conflict') return new CommandError(`an account with email ${email} already exists`);
  if (err.code === 'validation_error') {
    const field = err.details?.[0]?.field;
    // The password comes from stdin: a refused one is a failure, not a bad argument.
    if (field === 'password') return new CommandError(`${err.message} (read from the first line of stdin)`);
    if (field === 'name' || field === 'email') return new UsageError(`--${err.message}`);
  }
  return err;
}
