// `lightbox doctor` as an operator runs it: a real process on the database the service uses
// (a SQLite file, or a fresh PostgreSQL database when DATABASE_URL says so) and its media folder.
// Clean data answers 0; a deliberately wrong count, media_count or search index, or a stored
// object nothing owns, answers 1 naming each difference; --fix repairs them and the next check
// answers 0. Media whose bytes are gone are reported and cannot be repaired.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServices, type Services } from '../services.ts';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { closeDeps, createDeps, type Deps } from '../deps.ts';
import { createTestDatabase, isPostgres } from '../../test/support/test-app.ts';
import { pdf } from '../../test/support/media-fixtures.ts';
import { smallPhoto } from '../../test/support/photos.ts';
import { variantsHandler } from '../modules/variants/variants.job.ts';
import { VARIANT_NAMES, type VariantName } from '../modules/variants/variants.images.ts';
import { createJobRunner } from '../mechanisms/queue/queue.runner.ts';

const BIN = fileURLToPath(new URL('../../bin/lightbox.js', import.meta.url));

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
    assert.match(top.stdout, /\n {2}doctor +Check that maintained counts, the search index and stored media/);
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
    // Stored objects the ledger owns: a media's bytes, and an upload's in flight (its lease).
    const [media] = await uploadPdf(a, galleries[0]!.id);
    const inFlight = `${a}/${galleries[0]!.id}/med_01UPLOADINFLIGHT000000000`;
    await deps.db.kysely
      .insertInto('media_cleanup')
      .values({ storage_key: inFlight, delete_after: deps.clock.iso(60_000), created_at: deps.clock.iso() })
      .execute();
    await putBytes(inFlight);

    const clean = await lightbox(['doctor']);
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal(clean.stdout, 'ok: every maintained count, the search index and the stored media match the data\n');

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
    // Bytes that nothing owns: an upload whose gallery was deleted as it committed (issue 11).
    const orphan = `${a}/${galleries[1]!.id}/med_01ORPHANEDBYTES0000000000`;
    await putBytes(orphan);

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
    assert.ok(lines.includes(`storage: object ${orphan} is owned by no media and no pending deletion`), broken.stdout);
    assert.equal(lines.filter((line) => line.startsWith('storage:')).length, 1, broken.stdout);
    assert.match(lines.at(-1) ?? '', /^\d+ difference\(s\); 'npx lightbox doctor --fix' repairs them$/);
    // The corrupted total is what the API would say until repaired.
    const before = await services.listings.list(a, { status: 'active' });
    assert.equal(before.pagination.total, 7);

    const fixed = await lightbox(['doctor', '--fix']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /\nrepaired \d+ difference\(s\)\n$/);

    const again = await lightbox(['doctor']);
    assert.equal(again.code, 0, again.stdout);
    assert.deepEqual(await storedKeys(), [media!.storage_key, inFlight].sort(), 'only the orphan went');
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

  test('media whose bytes are gone: 1 naming them, also after --fix, which cannot restore bytes', async () => {
    const account = await services.accounts.create({
      name: 'Lost Bytes',
      email: 'lost@studio.test',
      password: 'correct horse battery',
    });
    const gallery = await services.listings.create(account.id, { address: '9 Empty Quay' });
    const [media] = await uploadPdf(account.id, gallery.id);
    await deps.storage.delete(media!.storage_key);

    for (const args of [['doctor'], ['doctor', '--fix']]) {
      const run = await lightbox(args);
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stdout.trimEnd().split('\n');
      assert.deepEqual(lines.slice(0, 2), [
        `storage: media ${media!.id} of gallery ${gallery.id} (account ${account.id}) has no stored object`,
        'media without their bytes cannot be repaired: restore the bytes or delete them',
      ]);
      assert.equal(
        lines.at(-1),
        args.length === 1
          ? "1 difference(s); 'npx lightbox doctor --fix' repairs all but the missing bytes"
          : 'still different after the repair',
      );
    }
    // The row is left for the operator: deleting media is not the doctor's decision.
    assert.equal((await services.media.list(account.id, gallery.id)).data.length, 1);
    await putBytes(media!.storage_key);
    assert.equal((await lightbox(['doctor'])).code, 0);
  });

  test("photos' variants: lost bytes, a lost job and missing variants are named; --fix queues them", async () => {
    const account = await services.accounts.create({
      name: 'Variant Studio',
      email: 'variants@studio.test',
      password: 'correct horse battery',
    });
    const gallery = await services.listings.create(account.id, { address: '3 Thumbnail Row' });
    const data = await smallPhoto(120, 80);
    await services.media.upload(
      account.id,
      gallery.id,
      Readable.from(['a', 'b', 'c', 'd'].map((n) => ({ filename: `${n}.jpg`, stream: Readable.from([data]) }))),
    );
    await makeVariants();
    const photos = await deps.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('listing_id', '=', gallery.id)
      .orderBy('position')
      .execute();
    const [lostBytes, lostJob, incomplete, fine] = photos;
    assert.ok(lostBytes && lostJob && incomplete && fine);
    const variantOf = (id: string, name: VariantName) =>
      deps.db.kysely
        .selectFrom('media_variants')
        .selectAll()
        .where('media_id', '=', id)
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
    // A photo made before the pages' medium variant existed (docs/api.md §13 lists three): not stalled.
    const medium = await variantOf(fine.id, 'medium');
    await deps.db.kysely.deleteFrom('media_variants').where('storage_key', '=', medium.storage_key).execute();
    await deps.storage.delete(medium.storage_key);
    assert.equal((await lightbox(['doctor'])).code, 0);

    // A ready variant's bytes gone from storage; a photo pending whose job is lost; a ready photo
    // that lost a variant (row and bytes).
    const thumb = await variantOf(lostBytes.id, 'thumb');
    await deps.storage.delete(thumb.storage_key);
    await deps.db.kysely
      .updateTable('media')
      .set({ variants_status: 'pending' })
      .where('id', '=', lostJob.id)
      .execute();
    const mls = await variantOf(incomplete.id, 'mls');
    await deps.db.kysely.deleteFrom('media_variants').where('storage_key', '=', mls.storage_key).execute();
    await deps.storage.delete(mls.storage_key);

    const where = (id: string) => `photo ${id} of gallery ${gallery.id} (account ${account.id})`;
    const broken = await lightbox(['doctor']);
    assert.equal(broken.code, 1, broken.stderr);
    assert.deepEqual(broken.stdout.trimEnd().split('\n'), [
      `variants: thumb of ${where(lostBytes.id)} has no stored object`,
      `variants: ${where(lostJob.id)} is pending with no job queued`,
      `variants: ${where(incomplete.id)} is ready with 2 of its variants`,
      "3 difference(s); 'npx lightbox doctor --fix' repairs them",
    ]);

    const fixed = await lightbox(['doctor', '--fix']);
    assert.equal(fixed.code, 0, fixed.stdout);
    assert.match(fixed.stdout, /\nrepaired 3 difference\(s\)\n$/);
    const jobs = await deps.db.kysely.selectFrom('jobs').select('subject_id').where('kind', '=', 'media.variants').execute(); // prettier-ignore
    assert.deepEqual(jobs.map((j) => j.subject_id).sort(), [lostBytes.id, lostJob.id, incomplete.id].sort());
    // Queued, not yet made: nothing more to repair, and a second --fix queues nothing again.
    assert.equal((await lightbox(['doctor'])).code, 0);
    assert.equal((await lightbox(['doctor', '--fix'])).stdout, 'ok: nothing to repair\n');

    await makeVariants();
    assert.equal((await lightbox(['doctor'])).code, 0);
    const statuses = await deps.db.kysely.selectFrom('media').select('variants_status').where('listing_id', '=', gallery.id).execute(); // prettier-ignore
    assert.deepEqual(new Set(statuses.map((r) => r.variants_status)), new Set(['ready']));
    for (const p of [lostBytes, incomplete]) {
      for (const name of VARIANT_NAMES) {
        const row = await variantOf(p.id, name);
        (await deps.storage.get(row.storage_key)).destroy();
      }
    }
  });
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Makes every queued photo's variants, as the serve process would. */
async function makeVariants(): Promise<void> {
  await createJobRunner(
    deps,
    quiet,
    variantsHandler({ ...deps, writes: services.writes }, services.mediaCleanup, quiet),
  ).drain();
}

async function uploadPdf(accountId: string, listingId: string) {
  await services.media.upload(
    accountId,
    listingId,
    Readable.from([{ filename: 'plan.pdf', stream: Readable.from([pdf('doctor')]) }]),
  );
  return deps.db.kysely.selectFrom('media').selectAll().where('listing_id', '=', listingId).execute();
}

const putBytes = (key: string): Promise<void> =>
  deps.storage.put(key, Readable.from([Buffer.from('bytes')]), { contentType: 'application/pdf' });

async function storedKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of deps.storage.list('')) keys.push(object.key);
  return keys.sort();
}
