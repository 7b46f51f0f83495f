// `lightbox keys create|list|revoke`: API keys for scripts and first setup. A key is printed
// once, by `create`, and nowhere else; lists show its non-secret prefix.
import type { KeyScope } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { Account } from '../modules/accounts/accounts.service.ts';
import type { ApiKey } from '../modules/api-keys/api-keys.service.ts';
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
  type CliContext,
  type Command,
} from './command.ts';

const SCOPES: readonly KeyScope[] = ['full', 'read_only'];
const MAX_EXPIRY_DAYS = 3650;

export const keysCreateCommand: Command = {
  name: 'keys create',
  summary: 'Create an API key and print it, and only it, on stdout',
  help: `Usage: lightbox keys create --account EMAIL --name NAME [--scope full|read_only] [--expires-in DAYS] [--test]

Creates an API key for the account whose owner email is EMAIL and prints the key,
and nothing else, on one line of stdout. It is shown only this once: only its
SHA-256 hash is stored. Notes for people go to stderr.

Options:
  --account EMAIL     the owner email of the account the key belongs to
  --name NAME         a label to recognise the key by (1 to 100 characters)
  --scope SCOPE       full (the default) or read_only (GET requests only)
  --expires-in DAYS   expire the key after DAYS days (1 to ${MAX_EXPIRY_DAYS}); default: never
  --test              a test key (lbx_test_...): it sees and changes only the account's
                      test data, and no email it causes leaves the service
  -h, --help          show this help

Example:
  API_KEY=$(npx lightbox keys create --account ana@example.com --name ci --scope read_only)
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['account', 'name', 'scope', 'expires-in'], undefined, ['test']);
    const email = required(values, 'account', 'EMAIL');
    const name = required(values, 'name', 'NAME');
    const scope = parseScope(values.scope);
    const expiresInDays = parseExpiry(values['expires-in']);
    const { key, apiKey, account } = await withDatabase(io, async (context) => {
      const owner = await findAccount(context, email);
      try {
        const created = await context.services.apiKeys.create(owner.id, {
          name,
          scope,
          ...(expiresInDays === undefined ? {} : { expiresInDays }),
          test: values.test === 'true',
        });
        return { ...created, account: owner };
      } catch (err) {
        if (err instanceof AppError && err.code === 'validation_error') throw new UsageError(`--${err.message}`);
        throw err;
      }
    });
    io.stdout.write(`${key}\n`);
    io.stderr.write(
      `created ${apiKey.test ? 'test ' : ''}API key ${apiKey.id} (${apiKey.prefix}..., ${apiKey.scope}, ` +
        `${apiKey.expires_at === null ? 'never expires' : `expires ${apiKey.expires_at}`}) for ${account.email}; ` +
        'it is shown only once\n',
    );
    return EXIT_OK;
  },
};

export const keysListCommand: Command = {
  name: 'keys list',
  summary: "List an account's API keys (never the keys themselves)",
  help: `Usage: lightbox keys list --account EMAIL

Lists the account's API keys, newest first, one a line under a header: id, name,
prefix (the first characters of the key, not a secret), scope, created, last used
and expiry. The keys themselves are never stored, so never shown.

Options:
  --account EMAIL   the owner email of the account
  -h, --help        show this help
`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, ['account']);
    const email = required(values, 'account', 'EMAIL');
    const { keys, account } = await withDatabase(io, async (context) => {
      const owner = await findAccount(context, email);
      return { keys: await context.services.apiKeys.list(owner.id), account: owner };
    });
    if (keys.length === 0) {
      io.stderr.write(`${account.email} has no API keys\n`);
      return EXIT_OK;
    }
    io.stdout.write(formatKeys(keys));
    return EXIT_OK;
  },
};

export const keysRevokeCommand: Command = {
  name: 'keys revoke',
  summary: 'Revoke (delete) an API key by its id',
  help: `Usage: lightbox keys revoke KEY_ID

Revokes (deletes) the API key with id KEY_ID (key_..., as \`lightbox keys list\`
shows). A running service refuses it within 5 seconds on every node.

Options:
  -h, --help   show this help
`,
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, [], 'KEY_ID');
    const keyId = positionals[0] ?? '';
    await withDatabase(io, async ({ services: { apiKeys } }) => {
      try {
        // null: the operator may revoke any account's key.
        await apiKeys.revoke(keyId, null);
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') {
          throw new CommandError(`no API key with id ${JSON.stringify(printable(keyId))}`);
        }
        throw err;
      }
    });
    io.stderr.write(`revoked API key ${keyId}\n`);
    return EXIT_OK;
  },
};

async function findAccount({ services: { accounts } }: CliContext, email: string): Promise<Account> {
  try {
    return await accounts.findByEmail(email);
  } catch (err) {
    throw noSuchAccount(err, email);
  }
}

function parseScope(raw: string | undefined): KeyScope {
  if (raw === undefined) return 'full';
  const scope = SCOPES.find((s) => s === raw);
  if (scope === undefined) throw new UsageError(`--scope must be full or read_only (got ${JSON.stringify(raw)})`);
  return scope;
}

function parseExpiry(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const days = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(days >= 1 && days <= MAX_EXPIRY_DAYS)) {
    throw new UsageError(
      `--expires-in must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS} (got ${JSON.stringify(raw)})`,
    );
  }
  return days;
}

const HEADER = ['ID', 'NAME', 'PREFIX', 'SCOPE', 'CREATED', 'LAST USED', 'EXPIRES'];

function formatKeys(keys: readonly ApiKey[], now: Date = new Date()): string {
  const rows = keys.map((k) => [
    k.id,
    printable(k.name),
    k.prefix,
    k.scope,
    k.created_at,
    k.last_used_at ?? 'never',
    k.expires_at === null ? 'never' : `${k.expires_at}${Date.parse(k.expires_at) <= now.getTime() ? ' (expired)' : ''}`,
  ]);
  return formatTable(HEADER, rows);
}
