// lb.media.uploadResumable over tus (docs/api.md §16) through a proxy that cuts the first
// PATCH's connection partway: the client asks the server where it is (HEAD) and goes on, and the
// media made has every byte (sha256).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startClientServer, type ClientServer } from '../../../test/support/client.ts';
import { NotFoundError } from './index.ts';

const SIZE = 5 * 1024 * 1024;

describe('client: resumable upload resumed after the connection is cut', () => {
  let s: ClientServer;
  let dir: string;

  before(async () => {
    s = await startClientServer();
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-client-tus-'));
  });
  after(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('every byte arrives, and progress is reported to the end', async () => {
    const bytes = Buffer.alloc(SIZE, 0x20);
    Buffer.from('%PDF-1.4\n% resumable\n').copy(bytes);
    const file = path.join(dir, 'plan.pdf');
    await writeFile(file, bytes);

    // Forwards to the server; the first PATCH's connection is cut after 300 KiB of its body.
    const target = new URL(s.base);
    let cuts = 0;
    const proxy = net.createServer((down) => {
      const up = net.connect(Number(target.port), target.hostname);
      let seen = 0;
      let patch = false;
      down.on('data', (chunk: Buffer) => {
        if (!patch && chunk.toString('latin1').startsWith('PATCH ') && cuts === 0) patch = true;
        seen += chunk.length;
        if (patch && cuts === 0 && seen > 300 * 1024) {
          cuts += 1;
          down.destroy();
          up.destroy();
          return;
        }
        up.write(chunk);
      });
      up.on('data', (chunk: Buffer) => down.write(chunk));
      up.on('end', () => down.end());
      down.on('error', () => up.destroy());
      up.on('error', () => down.destroy());
      down.on('close', () => up.destroy());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const lb = s.client({ baseUrl: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}` });
      lb.http.random = () => 0;
      const g = await lb.listings.create({ address: '8 Resume Road' });
      const progress: number[] = [];
      const media = await lb.media.uploadResumable(g.id, file, {
        chunkSize: 1024 * 1024,
        onProgress: (uploaded, total) => {
          assert.equal(total, SIZE);
          progress.push(uploaded);
        },
      });
      assert.equal(cuts, 1, 'the connection was cut once');
      assert.equal(media.filename, 'plan.pdf');
      assert.equal(media.size, SIZE);
      assert.equal(media.sha256, createHash('sha256').update(bytes).digest('hex'));
      assert.equal(progress.at(-1), SIZE);
    } finally {
      proxy.close();
    }
  });

  test('abandonUpload removes an unfinished upload: its URL then answers 404', async () => {
    const file = path.join(dir, 'tour.pdf');
    const bytes = Buffer.alloc(3 * 1024 * 1024, 0x20);
    Buffer.from('%PDF-1.4\n% abandoned\n').copy(bytes);
    await writeFile(file, bytes);
    const g = await s.lb.listings.create({ address: '9 Abandon Lane' });
    // Stop after the first chunk, keeping the upload's URL.
    const stop = new AbortController();
    let url: string | undefined;
    await assert.rejects(
      s.lb.media.uploadResumable(g.id, file, {
        chunkSize: 1024 * 1024,
        signal: stop.signal,
        onUploadUrl: (u) => (url = u),
        onProgress: () => stop.abort(),
      }),
    );
    assert.ok(url !== undefined);
    const head = await fetch(url, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${s.account.key}`, 'tus-resumable': '1.0.0' },
    });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('upload-offset'), String(1024 * 1024));

    await s.lb.media.abandonUpload(url);
    const gone = await fetch(url, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${s.account.key}`, 'tus-resumable': '1.0.0' },
    });
    assert.equal(gone.status, 404);
    await assert.rejects(s.lb.media.abandonUpload(url), NotFoundError);
    assert.equal((await s.lb.media.list(g.id)).data.length, 0);
  });
});
