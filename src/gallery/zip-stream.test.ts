// The archive written straight into an http.ServerResponse (what Fastify does with the ZIP), with
// entry data read into reused buffers where a reader is offered: the same bytes as the archive
// read as a stream, for the whole and for ranges, buffers used again only once written, memory
// bounded by a client that does not read, and failures and disconnects that abort the response
// and close every reader. zip.test.ts covers the layout, the names and the stream read as such.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { planZip, type ZipPlan, type ZipRange } from './zip.ts';
import { zipStream, type EntryReader, type ZipSources } from './zip-stream.ts';

const MiB = 1024 * 1024;

/** What the readers saw: opens, closes, reads, and the distinct memory they were asked to fill. */
interface ReaderLog {
  opened: number;
  closed: number;
  reads: number;
  bytes: number;
  memory: Set<ArrayBufferLike>;
}

const newLog = (): ReaderLog => ({ opened: 0, closed: 0, reads: 0, bytes: 0, memory: new Set() });

/** Entry data from memory, as storage streams (`open`) and as readers into the caller's buffers. */
function memorySources(
  datas: readonly Buffer[],
  log: ReaderLog,
  change: { read?: EntryReader['read']; open?: (index: number) => Promise<EntryReader> } = {},
): ZipSources {
  return {
    open: (index, start, end) => Promise.resolve(Readable.from([datas[index]!.subarray(start, end + 1)])),
    openReader: (index) => {
      if (change.open !== undefined) return change.open(index);
      log.opened++;
      return Promise.resolve({
        read:
          change.read ??
          (async (buffer, offset, length, position) => {
            await new Promise((resolve) => setImmediate(resolve)); // as a file read would, later
            log.reads++;
            log.memory.add(buffer.buffer);
            const slice = datas[index]!.subarray(position, position + length);
            buffer.set(slice, offset);
            log.bytes += slice.length;
            return slice.length;
          }),
        close: () => {
          log.closed++;
          return Promise.resolve();
        },
      });
    },
  };
}

function entries(datas: readonly Buffer[]) {
  return datas.map((data, i) => ({
    name: `f${i}.bin`,
    size: data.length,
    crc32: zlib.crc32(data),
    modifiedAt: new Date('2026-01-02T03:04:05Z'),
    identity: String(i),
  }));
}

/** A server that answers every request with what `respond` pipes into the response, as Fastify does. */
class ZipServer {
  server = http.createServer();
  errors: Error[] = [];
  /** The archive stream of the latest request. */
  last: Readable | undefined;
  respond: (res: http.ServerResponse) => Readable = () => Readable.from([]);
  pipe = (zip: Readable, res: http.ServerResponse): void => void zip.pipe(res);

  async start(): Promise<string> {
    this.server.on('request', (_req, res: http.ServerResponse) => {
      const zip = this.respond(res);
      this.last = zip;
      // Fastify's handling of a stream body: a failed body aborts the response, a closed response
      // destroys the body.
      zip.on('error', (err) => {
        this.errors.push(err);
        res.destroy();
      });
      res.on('close', () => zip.destroy());
      this.pipe(zip, res);
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Downloads `url`; `slow` pauses now and then, so that the server's writes queue up. */
function download(url: string, slow = false): Promise<{ status: number; body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        let settled = false;
        const done = (): void => {
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), complete: res.complete });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (slow && chunks.length % 4 === 0) {
            res.pause();
            setTimeout(() => res.resume(), 1);
          }
        });
        res.once('end', done);
        res.once('close', done);
        res.once('error', done);
      })
      .once('error', reject);
  });
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('the archive written into an http.ServerResponse', () => {
  const zips = new ZipServer();
  let url = '';
  before(async () => {
    url = await zips.start();
  });
  after(() => zips.stop());

  // Sizes around the 1 MiB buffers: empty, small, exactly one, one and a bit, several.
  const datas = [0, 1000, MiB, MiB + 1, 7 * MiB + 12345, 300].map((n) => randomBytes(n));
  const plan: ZipPlan = planZip(entries(datas));

  const serve = (log: ReaderLog, range?: ZipRange, change?: Parameters<typeof memorySources>[2]): void => {
    zips.errors = [];
    zips.respond = (res) => {
      res.setHeader('content-length', range === undefined ? plan.size : range.end - range.start + 1);
      return zipStream(plan, memorySources(datas, log, change), range);
    };
  };

  test('gives the bytes of the archive read as a stream, reading entries into a few reused buffers', async () => {
    const whole = Buffer.concat(await zipStream(plan, memorySources(datas, newLog())).toArray());
    for (const slow of [false, true]) {
      const log = newLog();
      serve(log);
      const got = await download(url, slow);
      assert.equal(got.status, 200);
      assert.ok(got.complete);
      // A buffer filled again before the socket had written it would show here, above all for the
      // slow client whose writes queue up.
      assert.equal(sha(got.body), sha(whole), `slow client: ${slow}`);
      assert.equal(
        log.bytes,
        datas.reduce((sum, d) => sum + d.length, 0),
      );
      assert.ok(log.reads >= 10, `${log.reads} reads`);
      assert.ok(log.memory.size <= 3, `${log.memory.size} buffers for ${log.reads} reads`);
      assert.equal(log.opened, datas.filter((d) => d.length > 0).length);
      assert.equal(log.closed, log.opened);
    }
  });

  test('any range gives that slice of the whole, reading only the data inside it', async () => {
    const whole = Buffer.concat(await zipStream(plan, memorySources(datas, newLog())).toArray());
    const points = plan.segments.flatMap((s) => [s.offset, s.offset + s.length - 1, s.offset + 1]);
    const ranges: ZipRange[] = [
      { start: 0, end: plan.size - 1 },
      { start: plan.size - 1, end: plan.size - 1 },
    ];
    for (let i = 0; i < 20; i++) {
      const a = points[(i * 7) % points.length]!;
      const b = i % 2 === 0 ? points[(i * 13 + 5) % points.length]! : Math.floor(Math.random() * plan.size);
      ranges.push({ start: Math.min(a, b), end: Math.min(plan.size - 1, Math.max(a, b)) });
    }
    for (const range of ranges) {
      const log = newLog();
      serve(log, range);
      const got = await download(url);
      assert.ok(got.body.equals(whole.subarray(range.start, range.end + 1)), `range ${range.start}-${range.end}`);
      let inRange = 0;
      for (const s of plan.segments) {
        if (s.kind === 'data') {
          inRange += Math.max(0, Math.min(range.end, s.offset + s.length - 1) - Math.max(range.start, s.offset) + 1);
        }
      }
      assert.equal(log.bytes, inRange, `range ${range.start}-${range.end}`);
      assert.equal(log.closed, log.opened);
    }
  });

  test('without readers (S3), entry streams are written with backpressure, to the same bytes', async () => {
    const whole = Buffer.concat(await zipStream(plan, memorySources(datas, newLog())).toArray());
    zips.respond = (res) => {
      res.setHeader('content-length', plan.size);
      const { open } = memorySources(datas, newLog());
      return zipStream(plan, { open });
    };
    const got = await download(url, true);
    assert.ok(got.complete);
    assert.equal(sha(got.body), sha(whole));
  });

  test('a client that does not read holds the reads back', async () => {
    const big = planZip(entries([Buffer.alloc(96 * MiB)]));
    let read = 0;
    let closed = false;
    zips.respond = (res) => {
      res.setHeader('content-length', big.size);
      return zipStream(big, {
        open: () => Promise.reject(new Error('a reader is offered')),
        openReader: () =>
          Promise.resolve({
            read: (_buffer, _offset, length) => {
              read += length;
              return Promise.resolve(length);
            },
            close: () => {
              closed = true;
              return Promise.resolve();
            },
          }),
      });
    };
    const request = http.get(url, { agent: false });
    const [res] = (await once(request, 'response')) as [http.IncomingMessage];
    res.pause();
    await sleep(500);
    // The pool, plus what the two sockets' kernel buffers hold on loopback.
    assert.ok(read <= 32 * MiB, `read ${read / MiB} MiB ahead of a client that reads nothing`);
    request.destroy();
    for (let i = 0; i < 100 && !closed; i++) await sleep(10);
    assert.ok(closed, 'the reader was not closed after the client went');
    assert.ok(zips.last?.destroyed);
  });

  test('a client that goes mid-download closes the reader and destroys the archive', async () => {
    const log = newLog();
    serve(log);
    const request = http.get(url, { agent: false });
    const [res] = (await once(request, 'response')) as [http.IncomingMessage];
    await once(res, 'data');
    request.destroy();
    for (let i = 0; i < 100 && (log.closed < log.opened || !zips.last?.destroyed); i++) await sleep(10);
    assert.ok(zips.last?.destroyed);
    assert.equal(log.closed, log.opened);
  });

  test('an entry that cannot be opened, a failing read or a short file abort the response', async () => {
    const broken: [string, Parameters<typeof memorySources>[2], RegExp][] = [
      ['open', { open: () => Promise.reject(new Error('no such key')) }, /no such key/],
      ['read', { read: () => Promise.reject(new Error('EIO')) }, /EIO/],
      ['short', { read: (_b, _o, length, position) => Promise.resolve(position >= MiB ? 0 : length) }, /ended after/],
    ];
    for (const [name, change, message] of broken) {
      const log = newLog();
      serve(log, undefined, change);
      const got = await download(url);
      assert.equal(got.complete, false, `${name}: the response ended cleanly`);
      assert.ok(got.body.length < plan.size);
      assert.match(zips.errors[0]?.message ?? '', message, name);
      assert.equal(log.closed, log.opened, name);
    }
  });

  test('piped anywhere else, the archive reads entry streams, never reusing a buffer', async () => {
    const log = newLog();
    const whole = Buffer.concat(await zipStream(plan, memorySources(datas, newLog())).toArray());
    const through = new PassThrough();
    const [, out] = await Promise.all([
      pipeline(zipStream(plan, memorySources(datas, log)), through),
      through.toArray(),
    ]);
    assert.ok(Buffer.concat(out as Buffer[]).equals(whole));
    assert.equal(log.opened, 0);
  });

  test('{ end: false } leaves the response open, and the archive stream still ends', async () => {
    serve(newLog());
    zips.respond = (res) => {
      res.setHeader('content-length', plan.size + 4);
      return zipStream(plan, memorySources(datas, newLog()));
    };
    zips.pipe = (zip, res) => {
      zip.pipe(res, { end: false });
      zip.once('end', () => res.end('tail'));
    };
    try {
      const got = await download(url);
      assert.ok(got.complete);
      assert.equal(got.body.subarray(plan.size).toString(), 'tail');
    } finally {
      zips.pipe = (zip, res) => void zip.pipe(res);
    }
  });
});
