// Resumable uploads survive the server (docs/api.md §16): a real `lightbox serve` is killed with SIGKILL
// in the middle of an upload, started again, and tus-js-client carries on where the stored bytes
// end; and (PostgreSQL, as in two-nodes.test.ts) an upload begun on one node is finished on
// another. The media's sha256 is the file's, and storage holds exactly the media's bytes.
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as tus from 'tus-js-client';
import { isPostgres } from './support/test-app.ts';
import { mp4 } from './support/media-fixtures.ts';
import {
  createAccountKey,
  freePort,
  runLightbox,
  serveOn,
  startProcessSuite,
  type ProcessSuite,
} from './support/process-helpers.ts';
import { servedSha256, writeTestFile } from './support/tus-cases.ts';

const MIB = 1024 * 1024;
const SIZE = 256 * MIB;

let suite: ProcessSuite;
let file = '';
let digest = '';
let key = '';

const env = (): Record<string, string> => suite.env();

const serve = (port: number) => serveOn(port, env(), 30_000);

async function newGallery(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/listings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ address: '9 Crash Lane' }),
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { id: string }).id;
}

interface Started {
  upload: tus.Upload;
  done: Promise<string>;
}

/** Starts tus-js-client on the test file; `onProgress` sees the bytes the server acknowledged. */
function start(options: { endpoint?: string; uploadUrl?: string; onProgress?: (sent: number) => void }): Started {
  let upload: tus.Upload | undefined;
  const done = new Promise<string>((resolve, reject) => {
    upload = new tus.Upload(createReadStream(file), {
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.uploadUrl === undefined ? {} : { uploadUrl: options.uploadUrl }),
      uploadSize: SIZE,
      chunkSize: 8 * MIB,
      headers: { authorization: `Bearer ${key}` },
      metadata: { filename: 'tour.mp4' },
      // Long enough for a restart: tus-js-client retries a lost connection on its own.
      retryDelays: [0, 500, 1000, 2000, 3000, 5000, 5000, 5000, 10_000, 10_000],
      onChunkComplete: (_size, accepted) => options.onProgress?.(accepted),
      onError: reject,
      onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('Lightbox-Media-Id') ?? ''),
    });
    upload.start();
  });
  assert.ok(upload !== undefined);
  return { upload, done };
}

async function mediaOf(base: string, listingId: string, mediaId: string) {
  const res = await fetch(`${base}/v1/listings/${listingId}/media/${mediaId}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { id: string; listing_id: string; size: number; sha256: string };
}

before(async () => {
  suite = await startProcessSuite('lightbox-tus-crash-', 'warn');
  file = path.join(suite.dataDir, 'tour.mp4');
  digest = await writeTestFile(file, mp4(), SIZE);
  const email = 'owner@tus-crash.test';
  key = await createAccountKey(env(), { email, name: 'Crash Studio' }, 'tus');
});

after(() => suite.stop());

void test(
  'SIGKILL mid-upload: after a restart tus-js-client resumes, and the media is the file',
  { timeout: 300_000 },
  async () => {
    const port = await freePort();
    let { server, base } = await serve(port);
    const listingId = await newGallery(base);
    let killedAt = -1;
    let restarted: Promise<void> | undefined;
    const { done } = start({
      endpoint: `${base}/v1/listings/${listingId}/uploads`,
      onProgress: (accepted) => {
        if (killedAt >= 0 || accepted < SIZE / 3) return;
        killedAt = accepted;
        server.child.kill('SIGKILL');
        restarted = server.exited.then(async () => {
          ({ server, base } = await serve(port));
        });
      },
    });
    const mediaId = await done;
    await restarted;
    assert.ok(killedAt > 0 && killedAt < SIZE, `killed at ${killedAt}`);
    const media = await mediaOf(base, listingId, mediaId);
    assert.equal(media.size, SIZE);
    assert.equal(media.sha256, digest);
    assert.equal(await servedSha256(base, key, media), digest);
    // The doctor finds storage and the ledger in agreement: nothing unowned, nothing missing.
    const doctor = await runLightbox(['doctor'], env());
    assert.doesNotMatch(doctor, /unowned|missing/i, doctor);
    server.child.kill('SIGTERM');
    await server.exited;
  },
);

describe('two nodes on one database', { skip: !isPostgres && 'several nodes need PostgreSQL' }, () => {
  void test('an upload begun on one node is finished on the other', { timeout: 300_000 }, async () => {
    const a = await serve(await freePort());
    const b = await serve(await freePort());
    try {
      const listingId = await newGallery(a.base);
      let url = '';
      let stopped = false;
      const first = start({
        endpoint: `${a.base}/v1/listings/${listingId}/uploads`,
        onProgress: (accepted) => {
          if (stopped || accepted < SIZE / 2) return;
          stopped = true;
          void first.upload.abort();
        },
      });
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (!stopped) return;
          clearInterval(timer);
          url = first.upload.url ?? '';
          resolve();
        }, 50);
      });
      assert.match(url, /\/v1\/listings\/lst_[^/]+\/uploads\/upl_/);
      const onB = `${b.base}${new URL(url).pathname}`;
      const head = await fetch(onB, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${key}`, 'tus-resumable': '1.0.0' },
      });
      const offset = Number(head.headers.get('upload-offset'));
      assert.ok(offset >= SIZE / 2 && offset < SIZE, `node B sees offset ${offset}`);
      const mediaId = await start({ uploadUrl: onB }).done;
      const media = await mediaOf(a.base, listingId, mediaId);
      assert.equal(media.sha256, digest);
      assert.equal(await servedSha256(b.base, key, media), digest);
    } finally {
      a.server.child.kill('SIGTERM');
      b.server.child.kill('SIGTERM');
      await Promise.all([a.server.exited, b.server.exited]);
    }
  });
});
