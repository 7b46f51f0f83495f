// Deleting a gallery and what happens to its bytes: a gallery of 30,000 media (past every
// driver's parameter limit) answers 204 at once and its bytes go soon after; uploads that commit
// while their gallery is being deleted leave nothing behind (held deterministically on
// PostgreSQL, raced on both dialects); and no empty folder is left under the media directory.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import {
  call,
  createAccount,
  createTestContext,
  isPostgres,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, pdf } from '../../../test/support/media-fixtures.ts';
import {
  cleanupRows,
  eventually,
  mediaRows,
  newGallery,
  storedKeys,
  upload,
  uploaded,
} from '../../../test/support/media-helpers.ts';
import { startJobs } from '../../jobs.ts';
import { newId } from '../../lib/ids.ts';
import type { Log } from '../../lib/log.ts';
import { createLocalStorage } from '../../storage/local.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import { recomputeCounts } from '../../mechanisms/counts/counts.service.ts';

const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Local storage whose deletes wait until `open()`: shows what a request did not wait for. */
function gatedStorage(dir: string): { storage: MediaStorage; open: () => void; deletes: () => number } {
  const inner = createLocalStorage(dir);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let deletes = 0;
  return {
    storage: {
      ...inner,
      async delete(key) {
        await gate;
        deletes += 1;
        await inner.delete(key);
      },
    },
    open,
    deletes: () => deletes,
  };
}

/** Inserts `count` media rows for the gallery directly (a bulk load), and counts them. */
async function bulkMedia(ctx: TestContext, accountId: string, listingId: string, count: number): Promise<string[]> {
  const db = ctx.deps.db.kysely;
  const now = new Date().toISOString();
  const keys: string[] = [];
  for (let start = 0; start < count; start += 1000) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 1000); i += 1) {
      const id = newId('med');
      const key = `${accountId}/${listingId}/${id}`;
      keys.push(key);
      rows.push({
        id,
        account_id: accountId,
        listing_id: listingId,
        kind: 'document' as const,
        filename: `${i}.pdf`,
        content_type: 'application/pdf',
        size: 9,
        sha256: '0'.repeat(64),
        width: null,
        height: null,
        position: i + 1,
        storage_key: key,
        created_at: now,
      });
    }
    await db.insertInto('media').values(rows).execute();
  }
  await db.updateTable('listings').set({ media_count: count }).where('id', '=', listingId).execute();
  await recomputeCounts(ctx.deps.db);
  return keys;
}

const putBytes = (storage: MediaStorage, key: string): Promise<void> =>
  storage.put(key, Readable.from([Buffer.from('the bytes')]), { contentType: 'application/pdf' });

const keysUnder = async (ctx: TestContext, prefix: string): Promise<string[]> =>
  (await storedKeys(ctx)).filter((key) => key.startsWith(`${prefix}/`));

describe('a gallery with more media than one statement can carry', () => {
  let mediaDir: string;
  let ctx: TestContext;
  let gated: ReturnType<typeof gatedStorage>;

  before(async () => {
    mediaDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-media-'));
    gated = gatedStorage(mediaDir);
    ctx = await createTestContext({ MEDIA_STORAGE: mediaDir }, { storage: gated.storage });
  });
  after(async () => {
    gated.open();
    await ctx.close();
    await rm(mediaDir, { recursive: true, force: true });
  });

  test('30,000 media: 204 without waiting for storage, every row gone; the serve jobs purge the bytes after', async (t) => {
    const owner = await createAccount(ctx);
    const listingId = await newGallery(ctx, owner);
    const keys = await bulkMedia(ctx, owner.accountId, listingId, 30_000);
    // Bytes for some of them (the first, the last, some between): enough to see them go.
    const stored = keys.filter((_, i) => i < 20 || i >= keys.length - 20 || i % 1000 === 0);
    for (const key of stored) await putBytes(ctx.deps.storage, key);
    const prefix = `${owner.accountId}/${listingId}`;
    assert.equal((await keysUnder(ctx, prefix)).length, stored.length);

    const jobs = startJobs(ctx.deps, ctx.services, quiet);
    try {
      // Every storage delete waits at the gate, so a request that purged inline would never answer.
      const res = await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key });
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(gated.deletes(), 0);
      assert.deepEqual(await mediaRows(ctx, listingId), []);
      assert.equal((await keysUnder(ctx, prefix)).length, stored.length, 'the bytes wait for the background job');
      const gallery = await call(ctx, 'GET', `/v1/listings/${listingId}`, { key: owner.key });
      assert.equal(gallery.statusCode, 404);
      const counts = await ctx.services.counts.counts(owner.accountId);
      assert.equal(counts.media, 0);
      assert.equal(counts.listings.total, 0);

      const started = performance.now();
      gated.open();
      // The job was woken by the delete: well before its one-minute interval comes round.
      await eventually(async () => {
        assert.deepEqual(await keysUnder(ctx, prefix), []);
        assert.deepEqual(await cleanupRows(ctx), []);
        assert.deepEqual(await readdir(mediaDir), [], 'the emptied folders are gone');
      }, 45_000);
      t.diagnostic(`30,000 keys purged ${Math.round(performance.now() - started)} ms after the gate opened`);
      assert.ok(existsSync(mediaDir), 'the media root stays');
    } finally {
      await jobs.stop();
    }
  });
});

describe('without the background job', () => {
  test('a request with more than a few keys purges them itself: the bytes are gone at the 204', async () => {
    const ctx = await createTestContext();
    try {
      const owner = await createAccount(ctx);
      const listingId = await newGallery(ctx, owner);
      const keys = await bulkMedia(ctx, owner.accountId, listingId, 12_000);
      const stored = keys.filter((_, i) => i % 100 === 0);
      for (const key of stored) await putBytes(ctx.deps.storage, key);
      const res = await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key });
      assert.equal(res.statusCode, 204, res.body);
      assert.deepEqual(await storedKeys(ctx), []);
      assert.deepEqual(await cleanupRows(ctx), []);
      assert.deepEqual(await readdir(path.join(ctx.dataDir, 'media')), []);
    } finally {
      await ctx.close();
    }
  });
});

describe('uploads committing while their gallery is deleted', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  /** The ledger's promise: every stored object is owned by a media row or a cleanup row. */
  async function assertEveryObjectOwned(): Promise<void> {
    const owned = new Set([
      ...(await mediaRows(ctx)).map((r) => r.storage_key),
      ...(await cleanupRows(ctx)).map((r) => r.storage_key),
    ]);
    const unowned = (await storedKeys(ctx)).filter((key) => !owned.has(key));
    assert.deepEqual(unowned, [], 'stored objects that no row owns');
  }

  test(
    'an upload whose commit waits on the gallery row while the delete starts: its bytes go too (held on PostgreSQL)',
    { skip: isPostgres ? false : 'SQLite has one writer at a time: the delete and the commit cannot interleave' },
    async () => {
      const owner = await createAccount(ctx);
      const listingId = await newGallery(ctx, owner);
      await uploaded(ctx, owner.key, listingId, [{ filename: 'kept.pdf', data: pdf('before') }]);
      const db = ctx.deps.db.kysely;
      const waiting = async (): Promise<number> => {
        const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
        return Number(rows[0]?.n ?? 0);
      };
      const waitFor = (n: number) =>
        eventually(async () => {
          assert.ok((await waiting()) >= n, `${n} sessions waiting on a lock`);
        }, 20_000);

      // Another session holds the gallery row, so both requests stop at it in turn.
      let release!: () => void;
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = db.transaction().execute(async (trx) => {
        await sql`select id from listings where id = ${listingId} for update`.execute(trx);
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isLocked;
      const uploading = upload(ctx, owner.key, listingId, [{ filename: 'late.pdf', data: pdf('racing') }]);
      await waitFor(1); // the upload's commit waits for the row
      const deleting = call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key });
      await waitFor(2); // and so does the delete
      release();
      await holder;
      const [up, del] = await Promise.all([uploading, deleting]);
      assert.equal(del.statusCode, 204, del.body);
      // Whichever came first: the upload committed before the delete read the keys (201), or
      // found its gallery gone (404) and took its bytes back.
      assert.ok(up.statusCode === 201 || up.statusCode === 404, `${up.statusCode} ${up.body}`);
      assert.deepEqual(await keysUnder(ctx, `${owner.accountId}/${listingId}`), []);
      assert.deepEqual(await cleanupRows(ctx), []);
      await assertEveryObjectOwned();
    },
  );

  test('uploads and deletes raced pairwise leave every stored object owned, and nothing of a deleted gallery', async () => {
    const owner = await createAccount(ctx);
    const data = await jpeg();
    const galleries = await Promise.all(Array.from({ length: 8 }, () => newGallery(ctx, owner)));
    const results = await Promise.all(
      galleries.map(async (listingId) => {
        const [up, del] = await Promise.all([
          upload(ctx, owner.key, listingId, [{ filename: 'a.jpg', data }]),
          call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: owner.key }),
        ]);
        return [up.statusCode, del.statusCode] as const;
      }),
    );
    for (const [up, del] of results) {
      assert.equal(del, 204);
      assert.ok(up === 201 || up === 404, String(up));
    }
    for (const listingId of galleries) assert.deepEqual(await keysUnder(ctx, `${owner.accountId}/${listingId}`), []);
    assert.deepEqual(await cleanupRows(ctx), []);
    await assertEveryObjectOwned();
  });
});

describe('folders under the media directory', () => {
  test('a deleted gallery takes its folder along (and its account’s, once empty); the sweep removes empty ones', async () => {
    const ctx = await createTestContext();
    try {
      const owner = await createAccount(ctx);
      const media = path.join(ctx.dataDir, 'media');
      const first = await newGallery(ctx, owner);
      const second = await newGallery(ctx, owner);
      await uploaded(ctx, owner.key, first, [{ filename: 'a.pdf', data: pdf() }]);
      const [single] = await uploaded(ctx, owner.key, second, [{ filename: 'b.pdf', data: pdf() }]);
      assert.deepEqual((await readdir(path.join(media, owner.accountId))).sort(), [first, second].sort());

      assert.equal((await call(ctx, 'DELETE', `/v1/listings/${first}`, { key: owner.key })).statusCode, 204);
      assert.deepEqual(await readdir(path.join(media, owner.accountId)), [second]);
      // Deleting the last media of a gallery empties its folder too.
      const res = await call(ctx, 'DELETE', `/v1/listings/${second}/media/${single!.id}`, { key: owner.key });
      assert.equal(res.statusCode, 204);
      assert.deepEqual(await readdir(media), []);

      // Folders an earlier version left behind, empty or holding only more empty folders, go
      // with the sweep; a folder with a stray file in it stays, as does the file.
      await mkdir(path.join(media, 'acc_old', 'lst_old'), { recursive: true });
      await mkdir(path.join(media, 'acc_old', 'lst_older'), { recursive: true });
      await mkdir(path.join(media, 'acc_kept', 'lst_gone'), { recursive: true });
      await writeFile(path.join(media, 'acc_kept', '.DS_Store'), 'finder');
      assert.deepEqual(await ctx.services.mediaCleanup.sweep(), { purged: 0, orphans: 0 });
      assert.deepEqual(await readdir(media), ['acc_kept']);
      assert.deepEqual(await readdir(path.join(media, 'acc_kept')), ['.DS_Store']);
      assert.ok(existsSync(media), 'the root itself stays, even when empty');
    } finally {
      await ctx.close();
    }
  });
});
