// `lightbox accounts create|list|reset-password`: the first setup of a studio (or a script's),
// the list of studios, and the way back for an owner who forgot the password.
import { isEmail } from '../lib/email-address.ts';
import { AppError } from '../errors.ts';
import {
  CommandError,
  EXIT_OK,
  formatTable,
  noSuchAccount,
  parseCommandArgs,
  printable,
  required,
  UsageError,
  withDatabase,
  type Command,
} from './command.ts';
import { readPassword, readSecretLines } from './password-input.ts';

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
  printf '%s\\n' "$OWNER_PASSWORD" | npx lightbox accounts create --name "Ana Photo" --email ana@example.com
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
        `  npx lightbox keys create --account ${account.email} --name NAME\n`,
    );
    return EXIT_OK;
  },
};

export const accountsListCommand: Command = {
  name: 'accounts list',
  summary: 'List the accounts (studios): id, name, email, created',
  help: `Usage: lightbox accounts list

Lists every account, oldest first, one a line under a header: id, name, owner
email and when it was created, in columns two spaces apart. With no account,
prints nothing on stdout and says so on stderr.

Options:
  -h, --help   show this help

Example:
  lightbox accounts list | awk 'NR > 1 { print $1 }'   # every account id
`,
  async run(args, io) {
    parseCommandArgs(args);
    const accounts = await withDatabase(io, ({ services }) => services.accounts.list());
    if (accounts.length === 0) {
      io.stderr.write('no accounts yet; create one with npx lightbox accounts create\n');
      return EXIT_OK;
    }
    const rows = accounts.map((a) => [a.id, printable(a.name), printable(a.email), a.created_at]);
    io.stdout.write(formatTable(['ID', 'NAME', 'EMAIL', 'CREATED'], rows));
    return EXIT_OK;
  },
};

export const accountsResetPasswordCommand: Command = {
  name: 'accounts reset-password',
  summary: "Set an account's password from stdin and end all its sessions",
  help: `Usage: lightbox accounts reset-password --email EMAIL

Sets a new password for the account whose owner email is EMAIL, for an owner who
forgot it. The password is the first line of stdin (at least 10 characters); at a
terminal it is asked for twice, without echo. Every dashboard session of the
account ends, every password reset link of it stops working, and its sign-in lock
(after wrong passwords) is lifted. Prints nothing on stdout.

Options:
  --email EMAIL   the owner email of the account
  -h, --help      show this help

Example:
  printf '%s\\n' "$NEW_PASSWORD" | npx lightbox accounts reset-password --email ana@example.com
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['email']);
    const email = required(values, 'email', 'EMAIL');
    if (!isEmail(email.trim())) throw new UsageError('--email must be a valid email address');
    const password = await readPassword(io, { unchanged: 'nothing was changed', prompt: 'New password' });
    if (password === '') throw new CommandError('no password: give it on the first line of stdin');
    const { account, sessionsEnded } = await withDatabase(io, async ({ services: { accounts } }) => {
      try {
        return await accounts.resetPassword(email, password);
      } catch (err) {
        throw explain(noSuchAccount(err, email), email);
      }
    });
    io.stderr.write(
      `password changed for ${printable(account.email)}; ` +
        `${sessionsEnded} dashboard ${sessionsEnded === 1 ? 'session' : 'sessions'} ended\n`,
    );
    return EXIT_OK;
  },
};

export const accountsReset2faCommand: Command = {
  name: 'accounts reset-2fa',
  summary: "Turn off a person's two-factor sign-in and end their sessions",
  help: `Usage: lightbox accounts reset-2fa --email EMAIL

Turns off two-factor sign-in (docs/api.md §27) for the person who signs in with
EMAIL (a studio's owner, or a member of its team), for someone who lost both their
phone and their recovery codes. Their secret and recovery codes are forgotten and
every dashboard session of theirs ends; their password is unchanged, and they can
set two-factor up again after signing in. Prints nothing on stdout.

Options:
  --email EMAIL   the email the person signs in with
  -h, --help      show this help

Example:
  npx lightbox accounts reset-2fa --email ana@example.com
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['email']);
    const email = required(values, 'email', 'EMAIL');
    if (!isEmail(email.trim())) throw new UsageError('--email must be a valid email address');
    const done = await withDatabase(io, async ({ services: { twoFactor } }) => {
      try {
        return await twoFactor.resetByEmail(email);
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') {
          throw new CommandError(`no one signs in with ${email}; see npx lightbox accounts list`);
        }
        throw err;
      }
    });
    io.stderr.write(
      `two-factor sign-in off for ${printable(done.email)}; ` +
        `${done.sessionsEnded} dashboard ${done.sessionsEnded === 1 ? 'session' : 'sessions'} ended\n`,
    );
    return EXIT_OK;
  },
};

export const accountsStripeCommand: Command = {
  name: 'accounts stripe',
  summary: "Set a studio's Stripe keys (online payment of invoices) from stdin",
  help: `Usage: lightbox accounts stripe --email EMAIL

Sets the Stripe keys with which the studio whose owner email is EMAIL is paid
online for its invoices (docs/api.md §29): the secret key (sk_live_..., sk_test_...
or a restricted rk_... key) on the first line of stdin and the webhook signing
secret (whsec_...) on the second; at a terminal each is asked for without echo.
They are kept sealed and never shown again. An empty input (both lines empty)
turns online payment off. Prints, on stdout, the URL to give Stripe for events
(a webhook endpoint with the checkout.session.completed event).

Options:
  --email EMAIL   the owner email of the account
  -h, --help      show this help

Example:
  printf '%s\\n%s\\n' "$STRIPE_SECRET_KEY" "$STRIPE_WEBHOOK_SECRET" | npx lightbox accounts stripe --email ana@example.com
  npx lightbox accounts stripe --email ana@example.com < /dev/null   # online payment off
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['email']);
    const email = required(values, 'email', 'EMAIL');
    if (!isEmail(email.trim())) throw new UsageError('--email must be a valid email address');
    const [secretKey = '', webhookSecret = ''] = (
      await readSecretLines(io, ['Stripe secret key: ', 'Webhook signing secret: '], 'nothing was changed')
    ).map((line) => line.trim());
    if ((secretKey === '') !== (webhookSecret === '')) {
      throw new CommandError(
        'give both the secret key (first line of stdin) and the webhook signing secret (second line), or neither to turn online payment off; nothing was changed',
      );
    }
    const keys = secretKey === '' ? null : { secretKey, webhookSecret };
    const status = await withDatabase(io, async ({ services }) => {
      let account;
      try {
        account = await services.accounts.findByEmail(email);
      } catch (err) {
        throw noSuchAccount(err, email);
      }
      try {
        return await services.stripe.configure(account.id, keys);
      } catch (err) {
        if (err instanceof AppError && err.code === 'validation_error') {
          throw new CommandError(`${err.message} (read from stdin); nothing was changed`);
        }
        throw err;
      }
    });
    io.stdout.write(`${status.webhookUrl}\n`);
    io.stderr.write(
      status.enabled
        ? `online payment on for ${printable(email)}: give Stripe the URL above for the checkout.session.completed event\n`
        : `online payment off for ${printable(email)}\n`,
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
