// Variant work survives a crash (docs/api.md §13: "a restart, a crash or another node picks up what was
// pending"): a real `lightbox serve` is killed with SIGKILL while photos are still pending, a new
// one starts on the same data, every photo ends `ready`, and storage then holds exactly the
// originals and the variants the database records (no duplicate, no orphan from the killed try),
// which `lightbox doctor` confirms. Videos (docs/api.md §25) go through the same job: killed mid-
// encode, the node's ffmpeg stops with it, and a restart makes every poster and web rendition.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { closeDeps, createDeps } from '../src/deps.ts';
import {
  createAccountKey,
  freePort,
  serveOn,
  startLightbox,
  startProcessSuite,
  type ProcessSuite,
} from './support/process-helpers.ts';
import { cameraJpeg } from './support/photos.ts';
import { makeVideo } from './support/videos.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

let suite: ProcessSuite;

const env = (): Record<string, string> =>
  suite.env({
    VARIANT_CONCURRENCY: '1',
    // A killed node's photo is taken over when its lease lapses: short here, so the test is quick.
    VARIANT_LEASE_MS: '3000',
  });

before(async () => {
  suite = await startProcessSuite('lightbox-variants-crash-', 'info');
});

after(() => suite.stop());

interface MediaItem {
  id: string;
  variants: { status: string } | null;
}

async function statuses(base: string, key: string, listingId: string): Promise<string[]> {
  const res = await fetch(`${base}/v1/listings/${listingId}/media`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { data: MediaItem[] };
  return body.data.map((m) => m.variants?.status ?? 'none');
}

const serve = (port: number) => serveOn(port, env(), 20_000);

void test(
  'SIGKILL while variants are pending: a restart makes every one, and leaves no stray bytes',
  { timeout: 120_000 },
  async () => {
    const email = 'owner@variants-crash.test';
    const key = await createAccountKey(env(), { email, name: 'Crash Studio' }, 'crash');
    const PHOTOS = 8;

    const first = await serve(await freePort());
    const created = await fetch(`${first.base}/v1/listings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address: '9 Crash Lane' }),
    });
    assert.equal(created.status, 201);
    const listingId = ((await created.json()) as { id: string }).id;
    const form = new FormData();
    for (let i = 0; i < PHOTOS; i++) {
      form.append('files', new Blob([await cameraJpeg(3000, 2000)], { type: 'image/jpeg' }), `photo-${i}.jpg`);
    }
    const uploaded = await fetch(`${first.base}/v1/listings/${listingId}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());

    // Kill it once some photos are done and others are not (one at a time: VARIANT_CONCURRENCY=1).
    const deadline = Date.now() + 60_000;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = await statuses(first.base, key, listingId);
      if (seen.includes('ready')) break;
      await sleep(20);
    }
    first.server.child.kill('SIGKILL');
    await first.server.exited;
    assert.ok(seen.includes('ready'), `no photo was ready in time: ${seen.join(',')}`);
    assert.ok(seen.includes('pending'), `every photo was ready before the kill: ${seen.join(',')}`);

    const second = await serve(await freePort());
    try {
      const until = Date.now() + 90_000;
      while (Date.now() < until) {
        seen = await statuses(second.base, key, listingId);
        if (seen.every((s) => s === 'ready')) break;
        await sleep(100);
      }
      assert.deepEqual(seen, Array<string>(PHOTOS).fill('ready'));
    } finally {
      second.server.child.kill('SIGTERM');
      await second.server.exited;
    }

    // The start-up sweep of a third start removes what the killed try wrote (its lease has lapsed
    // by then or is removed by the sweep); storage then holds exactly what the rows own.
    const deps = createDeps(loadConfig(env()));
    try {
      const owned = new Set<string>();
      for (const r of await deps.db.kysely.selectFrom('media').select('storage_key').execute())
        owned.add(r.storage_key);
      const variantRows = await deps.db.kysely
        .selectFrom('media_variants')
        .select(['media_id', 'storage_key'])
        .execute();
      for (const r of variantRows) owned.add(r.storage_key);
      // Four variants a photo (large and mls may share one encode, stored under both names).
      assert.equal(variantRows.length, PHOTOS * 4);
      const stored: string[] = [];
      for await (const object of deps.storage.list('')) stored.push(object.key);
      const pendingLedger = await deps.db.kysely.selectFrom('media_cleanup').select('storage_key').execute();
      const ledger = new Set(pendingLedger.map((r) => r.storage_key));
      // Every stored object is owned by a row, or is on the cleanup ledger to be removed.
      for (const key of stored) assert.ok(owned.has(key) || ledger.has(key), `stray object ${key}`);
      for (const key of owned) assert.ok(stored.includes(key), `missing object ${key}`);
    } finally {
      await closeDeps(deps);
    }
    const doctor = startLightbox(['doctor'], env());
    const { code } = await doctor.exited;
    assert.equal(code, 0, `doctor: ${doctor.stdout()}${doctor.stderr()}`);
  },
);

void test(
  'SIGKILL while videos are encoding: ffmpeg stops with the node, a restart makes every poster and web rendition',
  { timeout: 180_000 },
  async () => {
    const email = 'owner@video-crash.test';
    const key = await createAccountKey(env(), { email, name: 'Video Crash Studio' }, 'video-crash');
    const VIDEOS = 3;
    const first = await serve(await freePort());
    const created = await fetch(`${first.base}/v1/listings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address: '10 Crash Lane' }),
    });
    assert.equal(created.status, 201);
    const listingId = ((await created.json()) as { id: string }).id;
    // Long enough that a kill lands inside an encode (MPEG-4 Part 2: each needs a web rendition).
    const data = await makeVideo('mpeg4', { width: 1280, height: 720, seconds: 8 });
    const form = new FormData();
    for (let i = 0; i < VIDEOS; i++) form.append('files', new Blob([data], { type: 'video/mp4' }), `tour-${i}.mp4`);
    const uploaded = await fetch(`${first.base}/v1/listings/${listingId}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());

    const ffmpegOfSuite = async (): Promise<string[]> => {
      const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid,args']);
      return stdout.split('\n').filter((line) => line.includes('ffmpeg') && line.includes(suite.dataDir));
    };
    // Kill it once one video is done and ffmpeg is at work on the next.
    const deadline = Date.now() + 90_000;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = await statuses(first.base, key, listingId);
      if (seen.includes('ready') && (await ffmpegOfSuite()).length > 0) break;
      await sleep(20);
    }
    assert.ok(seen.includes('ready') && seen.includes('pending'), `no kill point: ${seen.join(',')}`);
    first.server.child.kill('SIGKILL');
    await first.server.exited;
    // Its ffmpeg does not encode on for nobody: the watchdog kills it when the node's pipe closes.
    const gone = Date.now() + 10_000;
    while ((await ffmpegOfSuite()).length > 0 && Date.now() < gone) await sleep(100);
    assert.deepEqual(await ffmpegOfSuite(), [], 'ffmpeg outlived the killed node');

    const second = await serve(await freePort());
    try {
      const until = Date.now() + 150_000;
      while (Date.now() < until) {
        seen = await statuses(second.base, key, listingId);
        if (seen.every((s) => s === 'ready')) break;
        await sleep(200);
      }
      assert.deepEqual(seen, Array<string>(VIDEOS).fill('ready'));
    } finally {
      second.server.child.kill('SIGTERM');
      await second.server.exited;
    }

    const deps = createDeps(loadConfig(env()));
    try {
      const rows = await deps.db.kysely
        .selectFrom('media_variants')
        .innerJoin('media', 'media.id', 'media_variants.media_id')
        .select(['media_variants.name', 'media_variants.storage_key'])
        .where('media.listing_id', '=', listingId)
        .execute();
      assert.deepEqual(rows.map((r) => r.name).sort(), [...Array<string>(VIDEOS).fill('poster'), ...Array<string>(VIDEOS).fill('web')].sort()); // prettier-ignore
      const owned = new Set<string>();
      for (const r of await deps.db.kysely.selectFrom('media').select('storage_key').execute())
        owned.add(r.storage_key);
      for (const r of await deps.db.kysely.selectFrom('media_variants').select('storage_key').execute()) {
        owned.add(r.storage_key);
      }
      const ledger = new Set(
        (await deps.db.kysely.selectFrom('media_cleanup').select('storage_key').execute()).map((r) => r.storage_key),
      );
      const stored: string[] = [];
      for await (const object of deps.storage.list('')) stored.push(object.key);
      for (const k of stored) assert.ok(owned.has(k) || ledger.has(k), `stray object ${k}`);
      for (const k of owned) assert.ok(stored.includes(k), `missing object ${k}`);
    } finally {
      await closeDeps(deps);
    }
  },
);
