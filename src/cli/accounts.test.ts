// \`lightbox accounts list\` and \`lightbox accounts reset-password\` as a user runs them: real
// processes, stdin, exit codes, and what the database holds afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { main } from './main.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { verifyPassword } from '../lib/password.ts';
import { createCliHarness, PASSWORD, sha256, type CliHarness } from '../../test/support/cli-harness.ts';

const email = 'owner@studio.test';
let cli: CliHarness;
const lightbox = (...args: Parameters<CliHarness['run']>) => cli.run(...args);
const baseEnv = () => cli.env();
const terminal = (typed: string) => cli.terminal(typed);

before(async () => {
  cli = await createCliHarness();
  const empty = await lightbox(['accounts', 'list']);
  assert.equal(empty.code, 0, empty.stderr);
  assert.equal(empty.stdout, '', 'no accounts: nothing on stdout');
  assert.match(empty.stderr, /no accounts yet; create one with npx lightbox accounts create\n$/);
  const created = await lightbox(['accounts', 'create', '--name', 'Ana Photo', '--email', email], {
    input: `${PASSWORD}\n`,
  });
  assert.equal(created.code, 0, created.stderr);
});

after(async () => {
  await cli.close();
});

void describe('accounts list and reset-password', () => {
  void test('accounts list prints one aligned line per account under a header', async () => {
    const other = await lightbox(['accounts', 'create', '--name', 'Zed & Co Studio', '--email', 'zed@studio.test'], {
      input: `${PASSWORD}\n`,
    });
    assert.equal(other.code, 0, other.stderr);
    const run = await lightbox(['accounts', 'list']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, run.stdout);
    assert.match(lines[0]!, /^ID {2,}NAME {2,}EMAIL {2,}CREATED$/);
    // Oldest first; columns start where the header's do, so a script can cut them.
    assert.match(lines[1]!, /^acc_\S+ {2,}Ana Photo {2,}owner@studio\.test {2,}\d{4}-\d\d-\d\dT\S+Z$/);
    assert.match(lines[2]!, new RegExp(`^${other.stdout.trim()} {2,}Zed & Co Studio {2,}zed@studio\\.test {2,}\\S+Z$`));
    for (const column of ['NAME', 'EMAIL', 'CREATED']) {
      const at = lines[0]!.indexOf(column);
      assert.ok(
        lines.every((l) => l[at - 1] === ' ' && l[at] !== ' '),
        `${column} column aligned`,
      );
    }
    assert.ok(!run.stdout.includes('scrypt'), 'no password hash');
  });

  void test('accounts reset-password sets the password from stdin and ends every session', async () => {
    const db = openDatabase(loadConfig(baseEnv()).database);
    try {
      const account = await db.kysely
        .selectFrom('accounts')
        .selectAll()
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      // docs/api.md §27: the studio's sign-in is its owner, a person of its team.
      const owner = await db.kysely
        .selectFrom('users')
        .selectAll()
        .where('account_id', '=', account.id)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      const at = new Date().toISOString();
      const later = new Date(Date.now() + 3_600_000).toISOString();
      await db.kysely
        .insertInto('sessions')
        .values(
          ['a', 'b'].map((n) => ({
            token_hash: sha256(`session ${n}`),
            account_id: account.id,
            user_id: owner.id,
            csrf_token: n,
            created_at: at,
            last_seen_at: at,
            expires_at: later,
            one_time: null,
          })),
        )
        .execute();
      await db.kysely
        .insertInto('password_resets')
        .values({
          token_hash: sha256('a link'),
          account_id: account.id,
          user_id: owner.id,
          created_at: at,
          expires_at: later,
        })
        .execute();
      await db.kysely
        .insertInto('sign_in_failures')
        .values({ id: 'f1', scope: 'account', subject: email, created_at: at })
        .execute();

      const short = await lightbox(['accounts', 'reset-password', '--email', email], { input: 'short\n' });
      assert.equal(short.code, 1);
      assert.equal(short.stdout, '');
      assert.match(short.stderr, /password must be at least 10 characters \(read from the first line of stdin\)/);
      const none = await lightbox(['accounts', 'reset-password', '--email', email]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no password/);
      const unchanged = await db.kysely
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', owner.id)
        .executeTakeFirstOrThrow();
      assert.equal(unchanged.password_hash, owner.password_hash, 'a refused password changes nothing');

      const run = await lightbox(['accounts', 'reset-password', '--email', email.toUpperCase()], {
        input: 'a new studio password\n',
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `password changed for ${email}; 2 dashboard sessions ended\n`);
      assert.ok(!run.stderr.includes('a new studio password'));
      const row = await db.kysely
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', owner.id)
        .executeTakeFirstOrThrow();
      assert.equal(await verifyPassword('a new studio password', row.password_hash), true);
      assert.equal(await verifyPassword(PASSWORD, row.password_hash), false);
      const left = async (table: 'sessions' | 'password_resets') =>
        (await db.kysely.selectFrom(table).select('account_id').where('account_id', '=', account.id).execute()).length;
      assert.equal(await left('sessions'), 0, 'every session ended');
      assert.equal(await left('password_resets'), 0, 'every reset link ended');
      const failures = await db.kysely
        .selectFrom('sign_in_failures')
        .select('id')
        .where('subject', '=', email)
        .execute();
      assert.deepEqual(failures, [], 'the sign-in lock is lifted');
    } finally {
      await db.destroy();
    }
    // Back to the password the rest of this suite uses.
    const back = await lightbox(['accounts', 'reset-password', '--email', email], { input: `${PASSWORD}\n` });
    assert.equal(back.stderr, `password changed for ${email}; 0 dashboard sessions ended\n`);
  });

  void test('accounts reset-password for an unknown email exits 1', async () => {
    const run = await lightbox(['accounts', 'reset-password', '--email', 'nobody@studio.test'], {
      input: `${PASSWORD}\n`,
    });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'lightbox accounts reset-password: no account with email "nobody@studio.test"\n');
  });
});

void describe('reset-password at a terminal', () => {
  void test('reset-password asks for the new password twice; two different ones change nothing', async () => {
    const made = await lightbox(['accounts', 'create', '--name', 'Tty', '--email', 'tty@studio.test'], {
      input: `${PASSWORD}\n`,
    });
    assert.equal(made.code, 0, made.stderr);
    const differ = terminal('a new long password\ra new long passwore\r');
    const args = ['accounts', 'reset-password', '--email', 'tty@studio.test'];
    assert.equal(await main(args, differ.io), 1);
    assert.match(differ.err(), /^New password: \nNew password \(again\): \n/);
    assert.match(differ.err(), /the two passwords differ; nothing was changed\n$/);
    const same = terminal('a new long password\ra new long password\r');
    assert.equal(await main(args, same.io), 0, same.err());
    assert.match(same.err(), /password changed for tty@studio\.test; 0 dashboard sessions ended\n$/);
    assert.ok(!same.err().includes('a new long'), 'no echo');
  });
});

void describe('accounts reset-2fa', () => {
  void test("turns off a person's two-factor sign-in, forgets their codes and ends their sessions", async () => {
    const db = openDatabase(loadConfig(baseEnv()).database);
    try {
      const owner = await db.kysely
        .selectFrom('users')
        .selectAll()
        .where('email_normalized', '=', email)
        .executeTakeFirstOrThrow();
      const at = new Date().toISOString();
      const later = new Date(Date.now() + 3_600_000).toISOString();
      await db.kysely
        .updateTable('users')
        .set({ totp_secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', totp_enabled: 1, totp_last_step: 1 })
        .where('id', '=', owner.id)
        .execute();
      await db.kysely
        .insertInto('recovery_codes')
        .values({ user_id: owner.id, code_hash: sha256('a code'), created_at: at })
        .execute();
      await db.kysely
        .insertInto('sessions')
        .values({
          token_hash: sha256('a 2fa session'),
          account_id: owner.account_id,
          user_id: owner.id,
          csrf_token: 'c',
          created_at: at,
          last_seen_at: at,
          expires_at: later,
          one_time: null,
        })
        .execute();

      const unknown = await lightbox(['accounts', 'reset-2fa', '--email', 'nobody@studio.test']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no one signs in with nobody@studio\.test/);
      const bad = await lightbox(['accounts', 'reset-2fa', '--email', 'not an email']);
      assert.equal(bad.code, 2);

      const run = await lightbox(['accounts', 'reset-2fa', '--email', email.toUpperCase()]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `two-factor sign-in off for ${email}; 1 dashboard session ended\n`);
      const after = await db.kysely
        .selectFrom('users')
        .selectAll()
        .where('id', '=', owner.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([after.totp_enabled, after.totp_secret, after.totp_last_step], [0, null, null]);
      assert.equal(after.password_hash, owner.password_hash, 'the password is unchanged');
      const codes = await db.kysely.selectFrom('recovery_codes').select('code_hash').execute();
      assert.deepEqual(codes, []);
      const sessions = await db.kysely
        .selectFrom('sessions')
        .select('token_hash')
        .where('user_id', '=', owner.id)
        .execute();
      assert.deepEqual(sessions, []);
    } finally {
      await db.destroy();
    }
  });
});

void describe('accounts stripe', () => {
  void test('reads the two Stripe secrets from stdin, keeps them sealed, prints the webhook URL; empty input: off', async () => {
    const db = openDatabase(loadConfig(baseEnv()).database);
    try {
      const secretKey = 'sk_test_51CliStandInKey';
      const webhookSecret = 'whsec_cliStandInSigningSecret';
      const on = await lightbox(['accounts', 'stripe', '--email', email], {
        input: `${secretKey}\n${webhookSecret}\n`,
      });
      assert.equal(on.code, 0, on.stderr);
      assert.match(on.stdout, /^http:\/\/[^/]+\/stripe\/webhooks\/[A-Za-z0-9_-]{32}\n$/);
      assert.match(on.stderr, /online payment on for owner@studio\.test/);
      assert.ok(!`${on.stdout}${on.stderr}`.includes(secretKey), 'the secret is never printed');
      const row = await db.kysely.selectFrom('stripe_accounts').selectAll().executeTakeFirstOrThrow();
      assert.match(row.secret_key ?? '', /^v1\./);
      assert.ok(!JSON.stringify(row).includes(secretKey) && !JSON.stringify(row).includes(webhookSecret));

      const half = await lightbox(['accounts', 'stripe', '--email', email], { input: `${secretKey}\n` });
      assert.equal(half.code, 1);
      assert.match(half.stderr, /give both .* nothing was changed/);
      const wrong = await lightbox(['accounts', 'stripe', '--email', email], {
        input: `pk_test_1234567890\n${webhookSecret}\n`,
      });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /secret key/);

      const off = await lightbox(['accounts', 'stripe', '--email', email], { input: '' });
      assert.equal(off.code, 0, off.stderr);
      assert.equal(off.stdout, on.stdout, 'the same URL: kept while off');
      assert.match(off.stderr, /online payment off/);
      const cleared = await db.kysely.selectFrom('stripe_accounts').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([cleared.secret_key, cleared.webhook_secret], [null, null]);
      const unknown = await lightbox(['accounts', 'stripe', '--email', 'nobody@studio.test'], { input: '' });
      assert.equal(unknown.code, 1);
    } finally {
      await db.destroy();
    }
  });
});
