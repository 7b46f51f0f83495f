// Uploads for `npm run bench:delivery` (packages/bench/src/delivery.ts): big originals streamed from
// random bytes, and batches of small generated photos, through the real upload endpoint.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { HOST } from './procs.ts';

const MiB = 1024 * 1024;

/** One original of `size` bytes (a head, then random bytes) as a streamed multipart upload. */
export async function uploadStreamed(
  port: number,
  key: string,
  listingId: string,
  name: string,
  head: Buffer,
  size: number,
) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const open = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const close = Buffer.from(`\r\n--${boundary}--\r\n`);
  function* body(): Generator<Buffer> {
    yield open;
    yield head;
    for (let sent = head.length; sent < size;) {
      const n = Math.min(4 * MiB, size - sent);
      yield randomBytes(n);
      sent += n;
    }
    yield close;
  }
  await send(port, key, listingId, `multipart/form-data; boundary=${boundary}`, open.length + size + close.length, Readable.from(body())); // prettier-ignore
}

export async function uploadParts(
  port: number,
  key: string,
  listingId: string,
  parts: { name: string; data: Buffer }[],
) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const chunks = parts.flatMap((p) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${p.name}"\r\nContent-Type: image/jpeg\r\n\r\n`), // prettier-ignore
    p.data,
    Buffer.from('\r\n'),
  ]);
  const body = Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
  await send(port, key, listingId, `multipart/form-data; boundary=${boundary}`, body.length, Readable.from([body]));
}

async function send(port: number, key: string, listingId: string, type: string, length: number, body: Readable) {
  await new Promise<void>((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        method: 'POST',
        path: `/v1/listings/${listingId}/media`,
        headers: { authorization: `Bearer ${key}`, 'content-type': type, 'content-length': length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.once('end', () =>
          res.statusCode === 201 ? resolve() : reject(new Error(`upload: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.once('error', reject);
    body.pipe(req);
  });
}

/** A photo of a few kilobytes, each one different (a gradient with its number's colour). */
export async function photo(n: number): Promise<{ name: string; data: Buffer }> {
  const data = await sharp({
    create: { width: 640, height: 427, channels: 3, background: { r: (n * 37) % 256, g: (n * 91) % 256, b: (n * 13) % 256 } }, // prettier-ignore
  })
    .jpeg({ quality: 80 })
    .toBuffer();
  return { name: `photo-${String(n + 1).padStart(3, '0')}.jpg`, data };
}
