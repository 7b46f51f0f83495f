// The `lightbox` command as a user runs it: a real process, real stdin/stdout/stderr, exit
// codes, on a temporary SQLite file (or a fresh PostgreSQL database when DATABASE_URL says so).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { main } from './main.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { createCliHarness, PASSWORD, sha256, type CliHarness } from '../../test/support/cli-harness.ts';

const KEY = /^lbx_[0-9A-Za-z]{32,}$/;

let cli: CliHarness;
const lightbox = (...args: Parameters<CliHarness['run']>) => cli.run(...args);
const baseEnv = () => cli.env();
const usageErrors = (...args: Parameters<CliHarness['usageErrors']>) => cli.usageErrors(...args);
const terminal = (typed: string) => cli.terminal(typed);

before(async () => {
  cli = await createCliHarness();
});

after(async () => {
  await cli.close();
});

void describe('help', () => {
  void test('--help and -h print the usage on stdout and exit 0', async () => {
    for (const run of await Promise.all([['--help'], ['-h'], ['help']].map((args) => lightbox(args)))) {
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^Usage: lightbox <command>/);
      // The bin is not on the PATH after npm ci: the usage says how to run it, on any Node as the
      // README does, and with npx on a recent one.
      assert.match(run.stdout, /run it as '\.\/run lightbox \.\.\.' \(on any Node/);
      assert.match(run.stdout, /'npx lightbox \.\.\.'/);
      for (const command of [
        'serve',
        'migrate',
        'accounts create',
        'accounts list',
        'accounts reset-password',
        'keys create',
        'keys list',
        'keys revoke',
      ]) {
        assert.ok(run.stdout.includes(command), `${command} in the usage`);
      }
      assert.match(run.stdout, /Exit status/);
      assert.equal(run.stderr, '');
    }
  });

  void test('every command has its own help, even next to missing or wrong options', async () => {
    const cases: [string[], RegExp][] = [
      [['keys', 'create', '--help'], /--account EMAIL[\s\S]*--scope[\s\S]*--expires-in DAYS/],
      [['keys', 'create', '--scope', 'nonsense', '-h'], /Usage: lightbox keys create/],
      [['keys', 'list', '-h'], /Usage: lightbox keys list --account EMAIL/],
      [['keys', 'revoke', '--help'], /Usage: lightbox keys revoke KEY_ID/],
      [['accounts', 'create', '--help'], /Usage: lightbox accounts create --name NAME --email EMAIL[\s\S]*stdin/],
      [['accounts', 'list', '--help'], /Usage: lightbox accounts list\n[\s\S]*id, name, owner\nemail/],
      [
        ['accounts', 'reset-password', '-h'],
        /Usage: lightbox accounts reset-password --email EMAIL[\s\S]*stdin[\s\S]*session/,
      ],
      [['accounts', '--help'], /accounts create[\s\S]*accounts list[\s\S]*accounts reset-password/],
      [['serve', '--help'], /Usage: lightbox serve/],
      [['migrate', '--help'], /Usage: lightbox migrate/],
      [['keys', '--help'], /keys create[\s\S]*keys list[\s\S]*keys revoke/],
      [['help', 'keys', 'revoke'], /Usage: lightbox keys revoke KEY_ID/],
    ];
    await Promise.all(
      cases.map(async ([args, pattern]) => {
        const run = await lightbox(args);
        assert.equal(run.code, 0, args.join(' '));
        assert.match(run.stdout, pattern);
        assert.equal(run.stderr, '');
      }),
    );
  });
});

void describe('bad arguments exit 2 with one line on stderr', () => {
  void test('commands', async () => {
    await usageErrors([
      [[], /^lightbox: missing command/],
      [['frobnicate'], /^lightbox: unknown command "frobnicate"/],
      [['--frobnicate'], /^lightbox: unknown option --frobnicate/],
      [['keys'], /^lightbox keys: missing command/],
      [['keys', 'delete'], /^lightbox keys: unknown command "delete"/],
      [['accounts', 'delete'], /^lightbox accounts: unknown command "delete"/],
    ]);
  });

  void test('options and arguments', async () => {
    await usageErrors([
      [['keys', 'list', '--account', 'a@b.test', '--verbose'], /unknown option --verbose/],
      [['keys', 'list'], /^lightbox keys list: missing --account EMAIL/],
      [['keys', 'list', '--account'], /option --account needs a value/],
      [['keys', 'create', '--name', 'ci'], /missing --account EMAIL/],
      [['keys', 'create', '--account', 'a@b.test'], /missing --name NAME/],
      [['keys', 'create', '--account', 'a@b.test', '--name', '  '], /--name must not be empty/],
      [['keys', 'create', '--account', 'a@b.test', '--name', 'ci', 'extra'], /unexpected argument/],
      [['keys', 'revoke'], /missing KEY_ID/],
      [['keys', 'revoke', 'key_a', 'key_b'], /unexpected argument "key_b"/],
      [['accounts', 'create', '--email', 'a@b.test'], /missing --name NAME/],
      [['accounts', 'create', '--name', 'A'], /missing --email EMAIL/],
      [['accounts', 'create', '--name', 'A', '--email', 'not-an-email'], /--email must be a valid/],
      [['accounts', 'list', 'everything'], /^lightbox accounts list: unexpected argument "everything"/],
      [['accounts', 'list', '--email', 'a@b.test'], /^lightbox accounts list: unknown option --email/],
      [['accounts', 'reset-password'], /^lightbox accounts reset-password: missing --email EMAIL/],
      [['accounts', 'reset-password', '--email', 'nope'], /--email must be a valid email address/],
      [['serve', 'now'], /^lightbox serve: unexpected argument "now"/],
    ]);
  });

  void test('--scope and --expires-in values', async () => {
    const create = ['keys', 'create', '--account', 'a@b.test', '--name', 'ci'];
    await usageErrors([
      ...['admin', 'FULL', ''].map(
        (scope) => [[...create, '--scope', scope], /--scope must be full or read_only/] as const,
      ),
      ...['0', '-1', '1.5', 'ten', '3651', '1e3', ''].map(
        (days) => [[...create, `--expires-in=${days}`], /--expires-in must be a whole number of days/] as const,
      ),
    ]);
  });
});

void describe('accounts, keys and the database', () => {
  const email = 'owner@studio.test';
  let key = '';
  let keyId = '';

  void test('migrate brings the schema up to date, then has nothing to do', async () => {
    const first = await lightbox(['migrate']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, '');
    assert.match(first.stderr, /applied migration \S+/);
    const second = await lightbox(['migrate']);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /already up to date/);
  });

  void test('accounts create reads the password from stdin and prints the new id', async () => {
    const run = await lightbox(['accounts', 'create', '--name', 'Ana Photo', '--email', email], {
      input: `${PASSWORD}\n`,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^acc_[0-9A-Za-z]+\n$/);
    assert.ok(!run.stderr.includes(PASSWORD));

    const db = openDatabase(loadConfig(baseEnv()).database);
    try {
      const row = await db.kysely
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', run.stdout.trim())
        .executeTakeFirst();
      assert.equal(row?.name, 'Ana Photo');
      assert.equal(row?.email, email);
      assert.ok(row !== undefined && !row.password_hash.includes(PASSWORD));
    } finally {
      await db.destroy();
    }
  });

  void test('a duplicate account (emails compared case-insensitively) exits 1', async () => {
    const run = await lightbox(['accounts', 'create', '--name', 'Other', '--email', 'OWNER@Studio.test'], {
      input: `${PASSWORD}\n`,
    });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^lightbox accounts create: an account with email OWNER@Studio\.test already exists\n$/);
  });

  void test('a short or missing password exits 1 and creates nothing', async () => {
    const short = await lightbox(['accounts', 'create', '--name', 'B', '--email', 'b@studio.test'], {
      input: 'short\n',
    });
    assert.equal(short.code, 1);
    assert.equal(short.stdout, '');
    assert.match(short.stderr, /password must be at least 10 characters/);
    const none = await lightbox(['accounts', 'create', '--name', 'B', '--email', 'b@studio.test']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no password/);
    const keys = await lightbox(['keys', 'list', '--account', 'b@studio.test']);
    assert.equal(keys.code, 1);
    assert.match(keys.stderr, /no account with email "b@studio\.test"/);
  });

  void test('keys create prints the key and nothing else on stdout', async () => {
    const run = await lightbox(['keys', 'create', '--account', email, '--name', 'ci']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.endsWith('\n'));
    assert.equal(run.stdout.split('\n').length, 2, 'one line');
    key = run.stdout.trimEnd();
    assert.match(key, KEY);
    assert.ok(!run.stderr.includes(key), 'the key appears on stdout only');
    keyId = /key_[0-9A-Za-z]+/.exec(run.stderr)?.[0] ?? '';
    assert.notEqual(keyId, '', 'stderr names the new key id');
  });

  void test('the database holds a SHA-256 hash of the key, never the key', async () => {
    const db = openDatabase(loadConfig(baseEnv()).database);
    try {
      const row = await db.kysely.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
      assert.equal(row.key_hash, sha256(key));
      assert.equal(row.scope, 'full');
      assert.equal(row.expires_at, null);
      assert.ok(key.startsWith(row.prefix) && row.prefix.length <= 12, 'a short prefix of the key');
      for (const [column, value] of Object.entries(row)) {
        assert.ok(typeof value !== 'string' || !value.includes(key.slice(12)), `${column} holds no secret part`);
      }
    } finally {
      await db.destroy();
    }
  });

  void test('keys create with --scope read_only and --expires-in', async () => {
    const run = await lightbox([
      'keys',
      'create',
      '--account',
      email,
      '--name',
      'reports',
      '--scope',
      'read_only',
      '--expires-in',
      '30',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^lbx_[0-9A-Za-z]{32,}\n$/);
    assert.match(run.stderr, /read_only/);
  });

  void test('keys create --test makes a test key (docs/api.md §20), listed beside the live ones', async () => {
    const run = await lightbox(['keys', 'create', '--account', email, '--name', 'sandbox', '--test']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^lbx_test_[0-9A-Za-z]{40}\n$/);
    assert.match(run.stderr, /created test API key key_/);
    const testKey = run.stdout.trimEnd();
    const db = openDatabase(loadConfig(baseEnv()).database);
    try {
      const row = await db.kysely
        .selectFrom('api_keys')
        .selectAll()
        .where('key_hash', '=', sha256(testKey))
        .executeTakeFirstOrThrow();
      assert.equal(row.test, 1);
      assert.equal(row.prefix, testKey.slice(0, 'lbx_test_'.length + 6));
    } finally {
      await db.destroy();
    }
    const list = await lightbox(['keys', 'list', '--account', email]);
    assert.match(list.stdout, /sandbox +lbx_test_[0-9A-Za-z]{6} /);
    const wrong = await lightbox(['keys', 'create', '--account', email, '--name', 'x', '--test=yes']);
    assert.equal(wrong.code, 2);
    // The tests below count the account's keys as they left them.
    const revoked = await lightbox(['keys', 'revoke', /key_[0-9A-Za-z]+/.exec(run.stderr)?.[0] ?? '']);
    assert.equal(revoked.code, 0, revoked.stderr);
  });

  void test('keys create for an unknown account exits 1', async () => {
    const run = await lightbox(['keys', 'create', '--account', 'nobody@studio.test', '--name', 'ci']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'lightbox keys create: no account with email "nobody@studio.test"\n');
  });

  void test('keys list shows the keys without the keys themselves', async () => {
    const run = await lightbox(['keys', 'list', '--account', email]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, run.stdout);
    assert.match(lines[0]!, /^ID\s+NAME\s+PREFIX\s+SCOPE\s+CREATED\s+LAST USED\s+EXPIRES$/);
    // Newest first: the read-only key was made after `ci`.
    assert.match(lines[1]!, /^key_\S+\s+reports\s+lbx_\S+\s+read_only\s+\S+Z\s+never\s+\S+Z$/);
    assert.match(lines[2]!, new RegExp(`^${keyId}\\s+ci\\s+${key.slice(0, 10)}\\s+full\\s+\\S+Z\\s+never\\s+never$`));
    assert.ok(!run.stdout.includes(key));
    assert.ok(!run.stdout.includes(sha256(key)));
  });

  void test('keys revoke deletes the key; an unknown id exits 1', async () => {
    const run = await lightbox(['keys', 'revoke', keyId]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    const list = await lightbox(['keys', 'list', '--account', email]);
    assert.ok(!list.stdout.includes(keyId));
    assert.equal(list.stdout.trimEnd().split('\n').length, 2);

    const again = await lightbox(['keys', 'revoke', keyId]);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `lightbox keys revoke: no API key with id "${keyId}"\n`);
    const unknown = await lightbox(['keys', 'revoke', 'key_00000000000000000000000000']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no API key with id/);
  });

  void test('a bad configuration variable exits 1 with one line naming it', async () => {
    const run = await lightbox(['keys', 'list', '--account', email], { env: { PORT: 'eighty' } });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^lightbox keys list: bad configuration: PORT must be an integer[^\n]*\n$/);
  });

  void test('real email to local links stops serve and worker with one line (other commands: config.test.ts)', async () => {
    const smtp = { SMTP_URL: 'smtp://127.0.0.1:1', PORT: '1' };
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /PUBLIC_URL must be set when SMTP_URL is/],
      [{ PUBLIC_URL: 'http://localhost:3000' }, /PUBLIC_URL is http:\/\/localhost:3000, an address only this machine/],
      [{ PUBLIC_URL: 'https://photos.example.com' }, /MAIL_FROM is no-reply@localhost/],
    ];
    const runs = [...cases.map((c) => ['serve', c] as const), ['worker', cases[0]!] as const];
    await Promise.all(
      runs.map(async ([command, [env, pattern]]) => {
        const run = await lightbox([command], { env: { ...smtp, ...env } });
        assert.equal(run.code, 1, run.stderr);
        assert.equal(run.stdout, '');
        assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
        assert.match(run.stderr, new RegExp(`^lightbox ${command}: bad configuration: `));
        assert.match(run.stderr, pattern);
        assert.match(run.stderr, /MAIL_ALLOW_LOCAL=true/);
      }),
    );
  });
});

void describe('the password prompt at a terminal', () => {
  void test('asks twice without echo, with backspace and arrow keys ignored', async () => {
    const typed = 'correct horse batteryX\u007f\u001b[D\r' + 'correct horse battery\r';
    const t = terminal(typed);
    const code = await main(['accounts', 'create', '--name', 'Tty', '--email', 'tty@studio.test'], t.io);
    assert.equal(code, 0, t.err());
    assert.match(t.out(), /^acc_\S+\n$/);
    assert.match(t.err(), /^Password: \nPassword \(again\): \n/);
    assert.ok(!t.err().includes('correct'), 'no echo');
    assert.deepEqual(t.stdin.rawMode, [true, false], 'raw mode is switched back off');
  });

  void test('two different passwords create nothing; Ctrl-C exits 130', async () => {
    const differ = terminal('correct horse battery\rcorrect horse batterz\r');
    assert.equal(await main(['accounts', 'create', '--name', 'T', '--email', 't2@studio.test'], differ.io), 1);
    assert.match(differ.err(), /the two passwords differ/);
    const interrupted = terminal('correct\u0003');
    assert.equal(await main(['accounts', 'create', '--name', 'T', '--email', 't2@studio.test'], interrupted.io), 130);
    assert.equal(interrupted.out(), '');
    const list = await lightbox(['keys', 'list', '--account', 't2@studio.test']);
    assert.match(list.stderr, /no account/);
  });
});
