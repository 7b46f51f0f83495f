// Uploads of 100 MiB through the client, by path and as a Node stream, against a real server: the
// client runs in a child process (packages/client/test-fixtures/upload-child.ts) and its resident set may
// not grow by more than 32 MB (64 MB from a stream that is not a file's: see MAX_GROWTH): the file
// is streamed, never held whole.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startClientServer, type ClientServer } from '../../../test/support/client.ts';

const CHILD = fileURLToPath(new URL('../test-fixtures/upload-child.ts', import.meta.url));
const SIZE = 100 * 1024 * 1024;
/**
 * Files (by path, or fs streams, which carry their path) are read through one reused buffer: 32 MB.
 * A stream that is not a file's hands over a fresh chunk each time, and those wait for the
 * collector (V8 collects external memory in steps of about 64 MB): measured 25-32 MB here, so it
 * is held to 64 MB, still well under the 100 MiB that buffering the file whole would cost.
 */
const MAX_GROWTH = { path: 32e6, stream: 32e6, generated: 64e6 } as const;

/** A 100 MiB PDF (a real header, then filler), written in 1 MiB blocks. */
async function bigPdf(file: string): Promise<string> {
  const handle = await open(file, 'w');
  const hash = createHash('sha256');
  const block = Buffer.alloc(1024 * 1024, 0x20);
  Buffer.from('%PDF-1.4\n% lightbox client upload test\n').copy(block);
  for (let written = 0; written < SIZE; written += block.length) {
    const chunk = written === 0 ? block : block.fill(0x20, 0, 64);
    hash.update(chunk);
    await handle.write(chunk);
  }
  await handle.close();
  return hash.digest('hex');
}

async function streamHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('client: a 100 MiB upload streams', () => {
  let s: ClientServer;
  let dir: string;
  let file: string;
  let digest: string;

  before(async () => {
    s = await startClientServer();
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-client-upload-'));
    file = path.join(dir, 'big.pdf');
    await bigPdf(file);
    digest = await streamHash(file);
  });
  after(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const mode of ['path', 'stream', 'generated'] as const) {
    test(`from a ${mode}: the client's RSS grows by less than ${MAX_GROWTH[mode] / 1e6} MB`, async () => {
      const g = await s.lb.listings.create({ address: `${mode} upload` });
      const { stdout } = await promisify(execFile)(process.execPath, [CHILD, s.base, s.account.key, g.id, file, mode], {
        maxBuffer: 1024 * 1024,
      });
      const out = JSON.parse(stdout) as { before: number; peak: number; size: number; sha256: string; kind: string };
      assert.deepEqual([out.size, out.sha256, out.kind], [SIZE, digest, 'document']);
      assert.equal((await s.lb.media.list(g.id)).data.length, 2, 'the warm-up file and the big one');
      const growth = out.peak - out.before;
      assert.ok(growth < MAX_GROWTH[mode], `RSS grew by ${(growth / 1e6).toFixed(1)} MB`);
      process.stdout.write(`# ${mode}: client RSS grew ${(growth / 1e6).toFixed(1)} MB for 100 MiB\n`);
    });
  }
});
