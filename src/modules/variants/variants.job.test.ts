// The `media.variants` job against everything that runs beside it: deletions of the photo or its
// gallery while its variants are made (nothing may be left stored that no row owns), a job that
// outlasts its lease (another node must not make it again), a remake that fails (the previous
// variants stay served) and two remakes queued at once (one job per photo).
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { call, createAccount, createTestContext, isPostgres, type TestAccount, type TestContext } from '../../../test/support/test-app.ts'; // prettier-ignore
import {
  makeVariantsNow,
  newGallery,
  storedKeys,
  uploaded,
  type MediaJson,
} from '../../../test/support/media-helpers.ts';
import { smallPhoto, truncatedJpeg } from '../../../test/support/photos.ts';
import type { Log } from '../../lib/log.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import { createJobRunner, type JobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { variantsHandler } from './variants.job.ts';

const LEASE_MS = 1000;
const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestContext({ VARIANT_LEASE_MS: String(LEASE_MS) });
  account = await createAccount(ctx);
});
after(async () => {
  await ctx.close();
});

/** A node's variants runner, writing through `storage`. */
function variantsNode(storage: MediaStorage = ctx.deps.storage): JobRunner {
  return createJobRunner(
    ctx.deps,
    quiet,
    variantsHandler({ ...ctx.deps, storage, writes: ctx.services.writes }, ctx.services.mediaCleanup, quiet),
  );
}

interface Gate {
  storage: MediaStorage;
  /** Keys written through it, in order. */
  puts: string[];
  /** Resolves once the `after`-th write has been made (the job is then held there). */
  reached: Promise<void>;
  open(): void;
}

/** Storage that holds the job after its `after`-th write until open() is called. */
function gatedStorage(after: number): Gate {
  const inner = ctx.deps.storage;
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const puts: string[] = [];
  const storage: MediaStorage = {
    kind: inner.kind,
    async put(key, body, options) {
      await inner.put(key, body, options);
      puts.push(key);
      if (puts.length === after) {
        reach();
        await released;
      }
    },
    get: (key, range) => inner.get(key, range),
    delete: (key) => inner.delete(key),
    list: (prefix) => inner.list(prefix),
    ...(inner.localPath === undefined ? {} : { localPath: (key: string) => inner.localPath!(key) }),
  };
  return { storage, puts, reached, open: () => release() };
}

async function photoIn(gallery: string, width = 300, height = 200): Promise<MediaJson> {
  const [photo] = await uploaded(ctx, account.key, gallery, [
    { filename: 'photo.jpg', contentType: 'image/jpeg', data: await smallPhoto(width, height) },
  ]);
  assert.ok(photo);
  return photo;
}

/** The objects stored under a gallery's folder of the account. */
async function storedIn(gallery: string): Promise<string[]> {
  return (await storedKeys(ctx)).filter((key) => key.startsWith(`${account.accountId}/${gallery}/`));
}

async function originalKey(mediaId: string): Promise<string> {
  const row = await ctx.deps.db.kysely.selectFrom('media').select('storage_key').where('id', '=', mediaId).executeTakeFirstOrThrow(); // prettier-ignore
  return row.storage_key;
}

async function getMedia(photo: MediaJson): Promise<MediaJson> {
  const res = await call(ctx, 'GET', `/v1/listings/${photo.listing_id}/media/${photo.id}`, { key: account.key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<MediaJson>();
}

describe('deletions while the variants are being made', () => {
  for (const what of ['the photo', 'its gallery'] as const) {
    test(`${what} deleted after the variants' bytes are written, before they are recorded: the bytes go too`, async () => {
      const gallery = await newGallery(ctx, account);
      const photo = await photoIn(gallery);
      const gate = gatedStorage(3);
      const running = variantsNode(gate.storage).runOnce();
      await gate.reached;
      const url = what === 'the photo' ? `/v1/listings/${gallery}/media/${photo.id}` : `/v1/listings/${gallery}`;
      const res = await call(ctx, 'DELETE', url, { key: account.key });
      assert.equal(res.statusCode, 204, res.body);
      gate.open();
      assert.equal(await running, 1);
      assert.equal(gate.puts.length, 4); // thumb, medium, large, mls
      assert.deepEqual(await storedIn(gallery), [], 'no byte of the photo is left, its variants included');
      const rows = await ctx.deps.db.kysely.selectFrom('media_cleanup').select('storage_key').execute();
      assert.deepEqual(
        rows.filter((r) => gate.puts.includes(r.storage_key)),
        [],
      );
    });
  }

  // PostgreSQL runs the two transactions at once; SQLite has one writer, so they cannot interleave.
  test(
    'a gallery deletion that read its keys before the job recorded its variants: nothing is left unowned',
    { skip: !isPostgres && 'PostgreSQL only: SQLite runs one write transaction at a time' },
    async () => {
      // prettier-ignore
      const gallery = await newGallery(ctx, account);
      const photo = await photoIn(gallery);
      const key = await originalKey(photo.id);
      const config = ctx.config.database;
      assert.equal(config.kind, 'postgres');
      const blocker = new pg.Client({ connectionString: config.url });
      const watcher = new pg.Client({ connectionString: config.url });
      await blocker.connect();
      await watcher.connect();
      const waiting = async (): Promise<number> => {
        const r = await watcher.query<{ n: string }>(
          `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        return Number(r.rows[0]?.n);
      };
      try {
        // Holds the deletion inside its transaction: with the gallery locked and its keys read, its
        // INSERT into the ledger waits on this uncommitted row of the same key, before the cascade.
        await blocker.query('begin');
        await blocker.query('insert into media_cleanup (storage_key, delete_after, created_at) values ($1, $2, $2)', [
          key,
          ctx.deps.clock.iso(),
        ]);
        const removing = call(ctx, 'DELETE', `/v1/listings/${gallery}`, { key: account.key });
        while ((await waiting()) < 1) await sleep(10);
        // The job runs now: either it records its variants at once (the defect) or it waits for the
        // gallery's lock until the deletion has committed.
        let settled = false;
        const running = variantsNode()
          .runOnce()
          .finally(() => (settled = true));
        while (!settled && (await waiting()) < 2) await sleep(10);
        await blocker.query('rollback');
        const res = await removing;
        assert.equal(res.statusCode, 204, res.body);
        assert.equal(await running, 1);
        const left = await storedIn(gallery);
        const owned = await ctx.deps.db.kysely
          .selectFrom('media_cleanup')
          .select('storage_key')
          .where('storage_key', 'in', [...left, ''])
          .execute();
        assert.deepEqual(
          left.filter((k) => !owned.some((o) => o.storage_key === k)),
          [],
          'stored objects that no row owns',
        );
        assert.deepEqual(left, [], 'the gallery left nothing behind');
      } finally {
        await blocker.end();
        await watcher.end();
      }
    },
  );
});

describe('a job that outlasts its lease', () => {
  test('keeps its lease while it runs: another node takes nothing, the sweep removes nothing', async () => {
    const gallery = await newGallery(ctx, account);
    const photo = await photoIn(gallery);
    const gate = gatedStorage(1);
    const first = variantsNode(gate.storage).runOnce();
    await gate.reached;
    // Several leases pass while the first node is still at work (a large photo, a slow machine).
    await sleep(3 * LEASE_MS);
    await ctx.services.mediaCleanup.purgeDue();
    const other = gatedStorage(Number.POSITIVE_INFINITY);
    assert.equal(await variantsNode(other.storage).runOnce(), 0, 'another node took the job');
    gate.open();
    assert.equal(await first, 1);
    assert.deepEqual(other.puts, [], 'made twice');
    assert.equal(gate.puts.length, 4); // thumb, medium, large, mls
    const made = await getMedia(photo);
    assert.equal(made.variants?.status, 'ready');
    for (const name of ['thumb', 'large', 'mls'] as const) {
      const res = await call(ctx, 'GET', `/v1/listings/${gallery}/media/${photo.id}/variants/${name}`, {
        key: account.key,
      });
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
    }
    assert.equal((await storedIn(gallery)).length, 5, 'the original and four variants (medium too), once');
  });
});

describe('remaking variants', () => {
  test('a remake that fails keeps the previous variants served', async () => {
    const gallery = await newGallery(ctx, account);
    const photo = await photoIn(gallery);
    await makeVariantsNow(ctx);
    const ready = await getMedia(photo);
    assert.equal(ready.variants?.status, 'ready');
    const thumbUrl = `/v1/listings/${gallery}/media/${photo.id}/variants/thumb`;
    const before = await call(ctx, 'GET', thumbUrl, { key: account.key });
    assert.equal(before.statusCode, 200);
    const storedBefore = await storedIn(gallery);

    // The original can no longer be decoded (damaged in storage): the remake fails.
    await ctx.deps.storage.put(await originalKey(photo.id), Readable.from([await truncatedJpeg()]), {
      contentType: 'image/jpeg',
    });
    assert.ok((await ctx.services.variants.remake('all')) >= 1);
    assert.ok(await ctx.deps.db.kysely.selectFrom('jobs').select('id').where('subject_id', '=', photo.id).executeTakeFirst()); // prettier-ignore
    await makeVariantsNow(ctx);

    const after = await getMedia(photo);
    assert.deepEqual(after.variants, ready.variants, 'the previous variants, as they were');
    const res = await call(ctx, 'GET', thumbUrl, { key: account.key });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.rawPayload, before.rawPayload);
    assert.deepEqual(await storedIn(gallery), storedBefore, 'nothing of the failed try is kept');
  });

  test('two remakes queued at once queue each photo once', async () => {
    const gallery = await newGallery(ctx, account);
    const data = await smallPhoto(120, 80);
    const photos = await uploaded(
      ctx,
      account.key,
      gallery,
      Array.from({ length: 40 }, (_, i) => ({ filename: `p${i}.jpg`, contentType: 'image/jpeg', data })),
    );
    await makeVariantsNow(ctx);
    const queued = await Promise.all([
      ctx.services.variants.remake('all'),
      ctx.services.variants.remake('all'),
      ctx.services.variants.remake('all'),
    ]);
    const jobs = await ctx.deps.db.kysely
      .selectFrom('jobs')
      .select('subject_id')
      .where('kind', '=', 'media.variants')
      .execute();
    const ids = photos.map((p) => p.id);
    const ours = jobs.map((j) => j.subject_id).filter((id) => ids.includes(id));
    assert.equal(ours.length, new Set(ours).size, 'a photo queued twice');
    assert.equal(ours.length, ids.length);
    assert.ok(queued.reduce((a, b) => a + b) >= ids.length);
    await makeVariantsNow(ctx);
  });
});
