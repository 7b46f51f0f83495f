// `lightbox doctor` as an operator runs it: a real process on the database the service uses
// (a SQLite file, or a fresh PostgreSQL database when DATABASE_URL says so). Clean data answers
// 0; a deliberately wrong count, media_count or search index answers 1 naming each difference;
// --fix repairs them and the next check answers 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServices, type Services } from '../src/services.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { closeDeps, createDeps, type Deps } from '../src/deps.ts';
import { createTestDatabase, isPostgres } from './helpers.ts';

const BIN = fileURLToPath(new URL('../bin/lightbox.js', import.meta.url));

let dataDir = '';
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: Deps;
let services: Services;

const env = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  ...database.env,
});

function lightbox(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-doctor-'));
  database = await createTestDatabase();
  deps = createDeps(loadConfig(env()));
  await migrateToLatest(deps.db);
  services = createServices(deps);
});
after(async () => {
  await closeDeps(deps);
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('lightbox doctor', () => {
  test('--help, and bad arguments are exit 2', async () => {
    const help = await lightbox(['doctor', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: lightbox doctor \[--fix\]/);
    const top = await lightbox(['--help']);
    assert.match(top.stdout, /\n {2}doctor +Check that maintained counts/);
    for (const args of [
      ['doctor', '--bogus'],
      ['doctor', 'extra'],
      ['doctor', '--fix=yes'],
    ]) {
      const run = await lightbox(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^lightbox doctor: .+\(see 'lightbox doctor --help'\)\n$/);
    }
  });

  test('0 when consistent; 1 naming each deliberate corruption; --fix repairs; 0 again', async () => {
    const account = await services.accounts.create({
      name: 'Doctor Studio',
      email: 'doctor@studio.test',
      password: 'correct horse battery',
    });
    const a = account.id;
    const galleries = [];
    for (const status of ['draft', 'active', 'active'] as const) {
      galleries.push(await services.listings.create(a, { address: '5 Dock Lane', status }));
    }
    const client = await services.clients.create(a, { name: 'Vera Doctorow', email: 'vera@example.test' });
    await services.clients.assign(a, client.id, galleries[0]!.id);

    const clean = await lightbox(['doctor']);
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(clean.stdout, 'ok: every maintained count and the search index match the data\n');

    const db = deps.db.kysely;
    await db
      .updateTable('account_counts')
      .set((eb) => ({ n: eb('n', '+', 5) }))
      .where('account_id', '=', a)
      .where('counter', '=', 'listings:active')
      .execute();
    await db.deleteFrom('account_counts').where('account_id', '=', a).where('counter', '=', 'clients').execute();
    await db.updateTable('listings').set({ media_count: 3 }).where('id', '=', galleries[1]!.id).execute();
    if (!isPostgres) await db.deleteFrom('clients_search_keys').where('client_id', '=', client.id).execute();

    const broken = await lightbox(['doctor']);
    assert.equal(broken.code, 1, broken.stderr);
    const lines = broken.stdout.trimEnd().split('\n');
    assert.ok(lines.includes(`count clients of account ${a}: stored 0, actual 1`), broken.stdout);
    assert.ok(lines.includes(`count listings:active of account ${a}: stored 7, actual 2`), broken.stdout);
    assert.ok(
      lines.includes(`media_count of gallery ${galleries[1]!.id} (account ${a}): stored 3, actual 0`),
      broken.stdout,
    );
    if (!isPostgres) assert.ok(lines.includes('search index: clients missing from the search index: 1'), broken.stdout);
    assert.match(lines.at(-1) ?? '', /^\d+ difference\(s\); 'lightbox doctor --fix' repairs them$/);
    // The corrupted total is what the API would say until repaired.
    const before = await services.listings.list(a, { status: 'active' });
    assert.equal(before.pagination.total, 7);

    const fixed = await lightbox(['doctor', '--fix']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /\nrepaired \d+ difference\(s\)\n$/);

    const again = await lightbox(['doctor']);
    assert.equal(again.code, 0, again.stdout);
    assert.equal((await services.listings.list(a, { status: 'active' })).pagination.total, 2);
    assert.equal((await services.clients.list(a, {})).pagination.total, 1);
    assert.equal((await services.listings.get(a, galleries[1]!.id)).media_count, 0);
    const found = await services.clients.list(a, { search: 'doctorow' });
    assert.deepEqual(
      found.data.map((c) => c.id),
      [client.id],
    );
    const nothing = await lightbox(['doctor', '--fix']);
    assert.equal(nothing.code, 0);
    assert.equal(nothing.stdout, 'ok: nothing to repair\n');
  });
});
