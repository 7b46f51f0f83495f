// Over 400 lines on purpose: the unit tests of one module (src/gallery/zip.ts), grouped by describe() per function.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { checkZipWithTools, sevenZip } from '../../test/support/zip-tools.ts';
import { planZip, uniqueNames, type ZipEntryInput, type ZipPlan } from './zip.ts';
import { zipStream } from './zip-stream.ts';
import { dosDateTime } from './zip-format.ts';

const run = promisify(execFile);

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface OpenCall {
  index: number;
  start: number;
  end: number;
}

/** Serves entry data from memory in uneven chunks, recording every slice asked for. */
function memoryOpen(datas: readonly Buffer[], calls: OpenCall[] = []) {
  return (index: number, start: number, end: number): Promise<Readable> => {
    calls.push({ index, start, end });
    const slice = datas[index]!.subarray(start, end + 1);
    const chunks = [slice.subarray(0, 7), slice.subarray(7, 300), slice.subarray(300)].filter((c) => c.length > 0);
    return Promise.resolve(Readable.from(chunks));
  };
}

function entriesFor(datas: readonly Buffer[], names: readonly string[], modifiedAt = new Date()): ZipEntryInput[] {
  return datas.map((data, i) => ({
    name: names[i]!,
    size: data.length,
    crc32: zlib.crc32(data),
    modifiedAt,
    identity: `med_${i}`,
  }));
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('uniqueNames', () => {
  test('numbers duplicates as "name (n).ext", ignoring case, keeping names already present', () => {
    assert.deepEqual(uniqueNames(['a.jpg', 'a.jpg', 'A.JPG']), ['a.jpg', 'a (2).jpg', 'A (3).JPG']);
    assert.deepEqual(uniqueNames(['a.jpg', 'a.jpg', 'a (2).jpg']), ['a.jpg', 'a (3).jpg', 'a (2).jpg']);
    assert.deepEqual(uniqueNames(['a (2).jpg', 'a (2).jpg']), ['a (2).jpg', 'a (2) (2).jpg']);
    assert.deepEqual(uniqueNames(['README', 'readme', '.profile', '.profile']), [
      'README',
      'readme (2)',
      '.profile',
      '.profile (2)',
    ]);
    assert.deepEqual(uniqueNames([]), []);
  });

  test('replaces what Windows refuses, and drops the trailing dots and spaces it would drop', () => {
    assert.deepEqual(uniqueNames(['What?.jpg', 'a<b>:c"d|e*.png', 'notes.', 'notes', 'x.jpg .']), [
      'What_.jpg',
      'a_b__c_d_e_.png',
      'notes',
      'notes (2)',
      'x.jpg',
    ]);
  });

  test('removes control characters and separators, never gives an empty or dot name', () => {
    assert.deepEqual(uniqueNames(['a/b\\c.jpg', 'tab\there\u0000.png', '\u0085x\u007f.gif', '', '..', ' . ', '\n']), [
      'a_b_c.jpg',
      'tabhere.png',
      'x.gif',
      'file',
      'file (2)',
      'file (3)',
      'file (4)',
    ]);
  });

  test('gives NFC, well-formed names and keeps them within 255 UTF-8 bytes, extension kept', () => {
    assert.deepEqual(uniqueNames(['cafe\u0301.jpg', 'caf\u00e9.jpg', 'bad\ud800.png']), [
      'caf\u00e9.jpg',
      'caf\u00e9 (2).jpg',
      'bad\ufffd.png',
    ]);
    const long = `${'é'.repeat(200)}.jpeg`;
    const [first, second] = uniqueNames([long, long]);
    assert.ok(Buffer.byteLength(first!) <= 255 && Buffer.byteLength(second!) <= 255);
    assert.match(first!, /^é+\.jpeg$/);
    assert.match(second!, /^é+ \(2\)\.jpeg$/);
  });

  test('is idempotent and always gives distinct, safe names', () => {
    const name = fc.oneof(
      fc.constantFrom('a.jpg', 'A.jpg', 'a (2).jpg', 'a', '.x', 'x.', '..', '', 'a .jpg', `${'x'.repeat(254)} y`),
      fc.string({ maxLength: 12, unit: 'binary' }),
      // Long enough to be cut to 255 bytes, with spaces and dots where the cut may fall.
      fc.string({ minLength: 60, maxLength: 300, unit: fc.constantFrom('é', ' ', '.', 'a', '😀', 'e\u0301') }),
    );
    fc.assert(
      fc.property(fc.array(name, { maxLength: 30 }), (names) => {
        const out = uniqueNames(names);
        assert.equal(out.length, names.length);
        assert.deepEqual(uniqueNames(out), out);
        assert.equal(new Set(out.map((n) => n.toLowerCase())).size, out.length);
        for (const n of out) {
          // eslint-disable-next-line no-control-regex
          assert.doesNotMatch(n, /[/\\<>:"|?*\u0000-\u001f\u007f-\u009f]|^[.\s]*$|[. ]$/);
          assert.ok(Buffer.byteLength(n) <= 255);
        }
      }),
    );
  });
});

describe('planZip and zipStream with real readers', () => {
  test('small archives pass unzip, Python zipfile and 7-Zip, with unique Unicode names and times', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lightbox-zip-'));
    try {
      const names = [
        'photo.jpg',
        'PHOTO.jpg',
        'photo (2).jpg',
        'cafe\u0301 ☕.jpg',
        'up/../evil.txt',
        '日本語.jpeg',
        '🏠.png',
        'empty.txt',
      ];
      const datas = names.map((_, i) => randomBytes(i === 7 ? 0 : 1000 + i * 4567));
      const modifiedAt = new Date('2024-05-06T07:08:10Z');
      const plan = planZip(entriesFor(datas, names, modifiedAt));
      const expectedNames = [
        'photo.jpg',
        'PHOTO (3).jpg',
        'photo (2).jpg',
        'café ☕.jpg',
        'up_.._evil.txt',
        '日本語.jpeg',
        '🏠.png',
        'empty.txt',
      ];
      assert.deepEqual(
        plan.entries.map((e) => e.name),
        expectedNames,
      );

      const bytes = await collect(zipStream(plan, memoryOpen(datas)));
      assert.equal(bytes.length, plan.size);
      const file = path.join(dir, 'all.zip');
      await writeFile(file, bytes);

      const report = await checkZipWithTools(file, { hash: true });
      assert.deepEqual(
        report,
        datas.map((d, i) => ({
          name: expectedNames[i],
          size: d.length,
          crc: zlib.crc32(d),
          offset: plan.entries[i]!.headerOffset,
          sha256: sha256(d),
        })),
      );

      // Extracted by 7-Zip: the same names on disk, the same bytes; unzip applies the UTC time.
      const out7 = path.join(dir, 'x7');
      await run(await sevenZip(), ['x', `-o${out7}`, file]);
      assert.deepEqual((await readdir(out7)).sort(), [...expectedNames].sort());
      for (const [i, name] of expectedNames.entries())
        assert.ok(datas[i]!.equals(await readFile(path.join(out7, name))));
      const outUnzip = path.join(dir, 'xu');
      await run('unzip', ['-q', file, '-d', outUnzip]);
      assert.equal((await stat(path.join(outUnzip, '🏠.png'))).mtime.getTime(), modifiedAt.getTime());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('an archive without entries is a valid 22-byte ZIP', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lightbox-zip-'));
    try {
      const plan = planZip([]);
      assert.equal(plan.size, 22);
      const file = path.join(dir, 'empty.zip');
      await writeFile(file, await collect(zipStream(plan, () => Promise.reject(new Error('nothing to open')))));
      assert.deepEqual(await checkZipWithTools(file), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('ranges', () => {
  const entry = fc.record({
    name: fc.oneof(fc.constantFrom('a.jpg', 'A.JPG', 'ü.png'), fc.string({ maxLength: 6 })),
    data: fc.uint8Array({ maxLength: 2500 }),
    modifiedAt: fc.date({ min: new Date('1960-01-01Z'), max: new Date('2150-01-01Z'), noInvalidDate: true }),
  });
  // Each end of a range is a random byte or one of the layout's boundaries (a header's first
  // or last byte, a data segment's first or last byte, the archive's last byte).
  const end = fc.tuple(fc.boolean(), fc.nat());

  test('any range streams exactly that slice of the whole archive, reading only data inside it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 6 }),
        fc.array(fc.tuple(end, end), { minLength: 1, maxLength: 12 }),
        async (specs, ranges) => {
          const datas = specs.map((s) => Buffer.from(s.data));
          const plan = planZip(
            specs.map((s, i) => ({ ...entriesFor([datas[i]!], [s.name], s.modifiedAt)[0]!, identity: String(i) })),
          );
          const whole = await collect(zipStream(plan, memoryOpen(datas)));
          assert.equal(whole.length, plan.size);

          const points = plan.segments.flatMap((s) => [s.offset, s.offset + s.length - 1]).concat([0, plan.size - 1]);
          const pick = ([boundary, n]: [boolean, number]): number =>
            boundary ? points[n % points.length]! : n % plan.size;
          for (const [a, b] of ranges) {
            const start = Math.min(pick(a), pick(b));
            const last = Math.max(pick(a), pick(b));
            const calls: OpenCall[] = [];
            const part = await collect(zipStream(plan, memoryOpen(datas, calls), { start, end: last }));
            assert.ok(part.equals(whole.subarray(start, last + 1)), `range ${start}-${last}`);
            let inRange = 0;
            for (const s of plan.segments) {
              if (s.kind === 'data') {
                inRange += Math.max(0, Math.min(last, s.offset + s.length - 1) - Math.max(start, s.offset) + 1);
              }
            }
            let read = 0;
            for (const c of calls) {
              const at = plan.entries[c.index]!.dataOffset;
              assert.ok(c.start <= c.end && c.end < plan.entries[c.index]!.size);
              assert.ok(at + c.start >= start && at + c.end <= last, 'read outside the range');
              read += c.end - c.start + 1;
            }
            assert.equal(read, inRange);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a range outside the archive is refused', () => {
    const plan = planZip([]);
    for (const r of [
      { start: 0, end: 22 },
      { start: 5, end: 4 },
      { start: -1, end: 3 },
      { start: 0.5, end: 3 },
    ]) {
      assert.throws(() => zipStream(plan, memoryOpen([]), r), RangeError);
    }
  });
});

describe('failures and flow control', () => {
  const data = randomBytes(10_000);
  const plan = (): ZipPlan => planZip(entriesFor([data], ['a.bin']));
  /** Collects what was emitted before the error, and the error. */
  async function failure(stream: Readable): Promise<{ got: number; error: Error }> {
    let got = 0;
    stream.on('data', (c: Buffer) => (got += c.length));
    const error = await new Promise<Error>((resolve, reject) => {
      stream.on('error', resolve);
      stream.on('end', () => reject(new Error('the stream ended cleanly')));
    });
    return { got, error };
  }

  test('an open failure, a source error, a short or a long source become stream errors', async () => {
    const p = plan();
    const dataOffset = p.entries[0]!.dataOffset;
    let r = await failure(zipStream(p, () => Promise.reject(new Error('storage down'))));
    assert.match(r.error.message, /storage down/);
    // An `open` that throws rather than rejects, for an entry reached after another one ends.
    const two = planZip(entriesFor([data, data], ['a.bin', 'b.bin']));
    const throwing = (index: number): Promise<Readable> => {
      if (index === 0) return Promise.resolve(Readable.from([data]));
      throw new Error('no such key');
    };
    r = await failure(zipStream(two, throwing));
    assert.match(r.error.message, /no such key/);

    const broken = new Readable({ read() {} });
    broken.push(data.subarray(0, 100));
    setImmediate(() => broken.destroy(new Error('connection reset')));
    r = await failure(zipStream(p, () => Promise.resolve(broken)));
    assert.match(r.error.message, /connection reset/);

    r = await failure(zipStream(p, () => Promise.resolve(Readable.from([data.subarray(0, 9_999)]))));
    assert.match(r.error.message, /ended after 9999 of 10000 bytes/);

    r = await failure(zipStream(p, () => Promise.resolve(Readable.from([data, Buffer.from('extra')]))));
    assert.match(r.error.message, /more than the 10000 bytes/);
    assert.ok(r.got <= dataOffset + data.length, 'bytes past the entry were sent');

    r = await failure(zipStream(p, () => Promise.resolve(Readable.from(['text']))));
    assert.match(r.error.message, /not bytes/);
  });

  test('destroying the archive stream destroys the source being read, even one still opening', async () => {
    const p = plan();
    const source = new Readable({ read() {} });
    source.push(data.subarray(0, 100));
    const zip = zipStream(p, () => Promise.resolve(source));
    zip.on('error', () => {});
    await new Promise((resolve) => zip.once('data', resolve));
    await new Promise((resolve) => setImmediate(resolve));
    zip.destroy();
    await new Promise((resolve) => source.once('close', resolve));
    assert.ok(source.destroyed);

    let resolveOpen: (s: Readable) => void = () => {};
    const late = new Readable({ read() {} });
    const zip2 = zipStream(p, () => new Promise<Readable>((resolve) => (resolveOpen = resolve)));
    zip2.resume();
    await new Promise((resolve) => setImmediate(resolve));
    zip2.destroy();
    resolveOpen(late);
    await new Promise((resolve) => late.once('close', resolve));
    assert.ok(late.destroyed);
  });

  test('a consumer that does not read holds the source back (bounded buffering)', async () => {
    const size = 64 * 1024 * 1024;
    let generated = 0;
    const chunk = Buffer.alloc(64 * 1024);
    const source = new Readable({
      read() {
        generated += chunk.length;
        this.push(chunk);
        if (generated === size) this.push(null);
      },
    });
    const p = planZip([{ name: 'z.bin', size, crc32: 0, modifiedAt: new Date(), identity: 'z' }]);
    const zip = zipStream(p, () => Promise.resolve(source));
    await new Promise((resolve) => zip.once('readable', resolve));
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(generated <= 3 * 1024 * 1024, `read ${generated} bytes ahead of the consumer`);
    assert.equal((await collect(zip)).length, p.size);
  });
});

describe('ETag', () => {
  const base = (): ZipEntryInput[] => [
    { name: 'a.jpg', size: 10, crc32: 1, modifiedAt: new Date('2024-01-01T00:00:00Z'), identity: 'm1' },
    { name: 'b.jpg', size: 20, crc32: 2, modifiedAt: new Date('2024-01-01T00:00:00Z'), identity: 'm2' },
  ];

  test('is strong and quoted, stable for the same list, and changes with any part of it', () => {
    const etag = planZip(base()).etag;
    assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(planZip(base()).etag, etag);
    const changes: ((e: ZipEntryInput[]) => void)[] = [
      (e) => e.reverse(),
      (e) => (e[0]!.name = 'c.jpg'),
      (e) => (e[0]!.size = 11),
      (e) => (e[0]!.crc32 = 3),
      (e) => (e[0]!.modifiedAt = new Date('2024-01-01T00:00:02Z')),
      (e) => (e[0]!.identity = 'm1-replaced'),
      (e) => e.pop(),
      (e) => ((e[0]!.identity = 'm1m'), (e[1]!.identity = '2')),
    ];
    const seen = new Set([etag]);
    for (const change of changes) {
      const entries = base();
      change(entries);
      const changed = planZip(entries).etag;
      assert.ok(!seen.has(changed), `unchanged by ${change.toString()}`);
      seen.add(changed);
    }
  });
});

describe('input checks and DOS times', () => {
  test('refuses sizes, CRCs and dates the format cannot hold', () => {
    const ok: ZipEntryInput = { name: 'a', size: 1, crc32: 0, modifiedAt: new Date(), identity: 'a' };
    for (const bad of [{ size: -1 }, { size: 1.5 }, { crc32: 2 ** 32 }, { crc32: -1 }, { modifiedAt: new Date(NaN) }]) {
      assert.throws(() => planZip([{ ...ok, ...bad }]), RangeError);
    }
  });

  test('writes UTC DOS times in two-second steps, clamped to 1980-2107', () => {
    assert.deepEqual(dosDateTime(Date.UTC(2024, 4, 6, 7, 8, 11)), {
      date: (44 << 9) | (5 << 5) | 6,
      time: (7 << 11) | (8 << 5) | 5,
    });
    assert.deepEqual(dosDateTime(Date.UTC(1970, 0, 1)), { date: (1 << 5) | 1, time: 0 });
    assert.deepEqual(dosDateTime(Date.UTC(2200, 0, 1)), {
      date: (127 << 9) | (12 << 5) | 31,
      time: (23 << 11) | (59 << 5) | 29,
    });
  });
});
