// `lightbox backup` and `lightbox restore` on real processes: a backup made while a serve process
// takes writes through HTTP (new galleries, four at a time) holds every write acknowledged before
// it began; restored into an empty data folder, it passes `lightbox doctor` and serves its data
// (galleries, photos and their bytes, the API key). restore refuses a data folder that is not
// empty unless --force. On PostgreSQL, backup names pg_dump and still copies the media folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { jpeg, multipart } from './support/media-fixtures.ts';
import {
  createAccountKey,
  freePort,
  serveOn,
  startLightbox,
  startProcessSuite,
  type LightboxProcess,
  type ProcessSuite,
} from './support/process-helpers.ts';

let suite: ProcessSuite;
let server: LightboxProcess;
let base = '';
let key = '';
const dirs: string[] = [];
const onPostgres = (): boolean => suite.database.env.DATABASE_URL !== undefined;

const tempDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

async function api(method: string, url: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function newGallery(address: string): Promise<string> {
  const res = await api('POST', '/v1/listings', { address });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return (JSON.parse(text) as { id: string }).id;
}

/** A lightbox command to its end: its exit code and output. */
async function lightbox(args: string[], env: Record<string, string>) {
  const run = startLightbox(args, env);
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

before(async () => {
  suite = await startProcessSuite('lightbox-backup-', 'warn');
  key = await createAccountKey(suite.env(), { email: 'backup@studio.test', name: 'Backup Studio' }, 'backup');
  // The writers below run as fast as the server answers: the per-key limit is not what is tested.
  ({ server, base } = await serveOn(await freePort(), { ...suite.env(), RATE_LIMIT_PER_MINUTE: '1000000' }, 60_000));
});

after(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  await suite.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('lightbox backup while the service takes writes, then lightbox restore', { timeout: 300_000 }, () => {
  test('the backup holds every acknowledged write; restored, doctor is clean and the data is there', async (t) => {
    const photoGallery = await newGallery('1 Backup Lane');
    const photos = [await jpeg(40, 30), await jpeg(50, 20)];
    const form = multipart(photos.map((data, i) => ({ filename: `p${i}.jpg`, contentType: 'image/jpeg', data })));
    const upload = await fetch(`${base}/v1/listings/${photoGallery}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': form.contentType },
      body: form.body,
    });
    const uploaded = await upload.text();
    assert.equal(upload.status, 201, uploaded);
    const media = (JSON.parse(uploaded) as { data: { id: string }[] }).data;

    // Write load: four writers creating galleries until the backup is done.
    const acknowledged: string[] = [];
    let stop = false;
    let n = 0;
    const writers = [1, 2, 3, 4].map(async () => {
      while (!stop) acknowledged.push(await newGallery(`${(n += 1)} Load Street`));
    });
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = [...acknowledged];
    const dest = path.join(await tempDir('lightbox-backup-dest-'), 'backup');
    const backup = await lightbox(['backup', dest], suite.env());
    const duringBackup = acknowledged.length - before.length;
    stop = true;
    await Promise.all(writers);
    assert.equal(backup.code, 0, backup.stderr);
    assert.equal(backup.stdout.trim(), dest);
    assert.ok(duringBackup > 0, 'writes went on while the backup ran');

    if (onPostgres()) {
      // The database is PostgreSQL's to back up; the media folder is copied all the same.
      assert.match(backup.stderr, /pg_dump --format=custom/);
      assert.doesNotMatch(backup.stderr, /postgres:\/\/[^@\s]*@/);
      assert.ok((await readdir(path.join(dest, 'media'))).length > 0);
      t.diagnostic('PostgreSQL: the restore half runs on SQLite only');
      return;
    }

    // Restore into an empty data folder (SQLite: no DATABASE_URL), then doctor.
    const restored = await tempDir('lightbox-restored-');
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: restored, LOG_LEVEL: 'warn' };
    const restore = await lightbox(['restore', dest], env);
    assert.equal(restore.code, 0, restore.stderr);
    const doctor = await lightbox(['doctor'], env);
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /^ok: /);

    // Every gallery acknowledged before the backup began is there.
    const db = new SQLite(path.join(restored, 'lightbox.db'), { readonly: true });
    const ids = new Set((db.prepare('SELECT id FROM listings').all() as { id: string }[]).map((r) => r.id));
    db.close();
    for (const id of [photoGallery, ...before]) assert.ok(ids.has(id), `gallery ${id} is in the backup`);

    // Served from the restored folder: the key works and the photos' bytes are the uploaded ones.
    server.child.kill('SIGTERM');
    await server.exited;
    ({ server, base } = await serveOn(await freePort(), env, 60_000));
    for (const [i, m] of media.entries()) {
      const res = await api('GET', `/v1/listings/${photoGallery}/media/${m.id}/content`);
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), photos[i]);
    }
    server.child.kill('SIGTERM');
    await server.exited;

    // A data folder that is not empty is refused, unless --force.
    const again = await lightbox(['restore', dest], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty.*--force/);
    assert.equal(again.stderr.trimEnd().split('\n').length, 1);
    const forced = await lightbox(['restore', dest, '--force'], env);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal((await lightbox(['doctor'], env)).code, 0);
    assert.ok((await readFile(path.join(dest, 'BACKUP.txt'), 'utf8')).includes('lightbox restore'));
  });

  test('a backup into a folder that is not empty is refused', async () => {
    const dest = await tempDir('lightbox-backup-full-');
    await writeFile(path.join(dest, 'x'), 'x');
    const run = await lightbox(['backup', dest], suite.env());
    assert.equal(run.code, 1);
    assert.match(run.stderr, /is not empty/);
  });
});
