// The baseline `npm run bench:upload` divides by: a bare node:http server that streams each POST
// body to a file with SHA-256 and fsync, and answers with the file's name, size and digest
// (DELETE /upload-N removes it). Run as a child of the benchmark:
// `node packages/bench/src/lib/upload-bare.ts --child DIR` (startUploadBare in procs.ts); announces its port as
// one JSON line on stdout.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

async function bareServer(dir: string): Promise<void> {
  let count = 0;
  const server = http.createServer((req, res) => {
    const answer = (status: number, json?: unknown): void => {
      const text = json === undefined ? '' : JSON.stringify(json);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const name = (req.url ?? '/').slice(1);
    if (req.method === 'DELETE' && /^upload-\d+$/.test(name)) {
      rm(path.join(dir, name), { force: true }).then(
        () => answer(204),
        (err: unknown) => answer(500, { error: String(err) }),
      );
      return;
    }
    if (req.method !== 'POST') {
      answer(405);
      return;
    }
    const file = `upload-${++count}`;
    const hash = createHash('sha256');
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
    });
    // Durable before answering, like the local storage (flush: fsync before close).
    pipeline(req, createWriteStream(path.join(dir, file), { flush: true })).then(
      () => answer(201, { file, size, sha256: hash.digest('hex') }),
      (err: unknown) => answer(500, { error: String(err) }),
    );
  });
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  // Never outlive the benchmark: its end of our stdin closes when it goes.
  process.stdin.resume();
  process.stdin.once('close', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
  process.once('SIGTERM', () => process.exit(0));
}

// It imports nothing of the benchmark's, so that the baseline process holds no more than it needs.
if (process.argv[2] === '--child' && import.meta.filename === process.argv[1]) {
  const dir = process.argv[3];
  if (dir === undefined) throw new Error('usage: upload-bare.ts --child DIR');
  await bareServer(dir);
}
