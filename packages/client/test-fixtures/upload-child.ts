// Run by packages/client/src/uploads.test.ts in a child process, so only the client's memory is measured:
// uploads one file (by path, or as a Node stream) with @lightbox/client/node and prints, as JSON,
// the resident set size before the upload, the highest seen during it, and the media created.
// Arguments: baseUrl apiKey listingId file path|stream|generated (a stream that is not a file's)
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { Lightbox } from '../src/node.ts';

const [baseUrl, apiKey, listingId, file, mode] = process.argv.slice(2) as [string, string, string, string, string];
const lb = new Lightbox({ apiKey, baseUrl, timeout: 600_000 });
// Warm up: the same kind of upload of a small file first, so the code it loads (node:http, the
// multipart encoder) is in the baseline and only what the size costs is measured.
const small = new TextEncoder().encode('%PDF-1.4\n% warm-up\n');
await lb.media.upload(listingId, mode === 'path' ? new Blob([small]) : Readable.from([small]));
const before = process.memoryUsage().rss;
let peak = before;
const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
/** The file's bytes from a stream that is not a file's: a fresh 64 KiB chunk at a time. */
async function* generated(): AsyncGenerator<Buffer> {
  const handle = await open(file);
  try {
    for (let at = 0; ; at += 65536) {
      const chunk = Buffer.alloc(65536);
      const { bytesRead } = await handle.read(chunk, 0, 65536, at);
      if (bytesRead === 0) return;
      yield chunk.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
const input =
  mode === 'path'
    ? file
    : mode === 'stream'
      ? createReadStream(file)
      : { data: Readable.from(generated()), filename: 'generated.pdf' };
const uploaded = await lb.media.upload(listingId, input);
clearInterval(sample);
peak = Math.max(peak, process.memoryUsage().rss);
const media = uploaded.data[0];

process.stdout.write(JSON.stringify({ before, peak, size: media?.size, sha256: media?.sha256, kind: media?.kind }));
