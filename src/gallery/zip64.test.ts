// ZIP64: the exact boundaries of every field (pure, always run), then real archives past
// 4 GiB and past 65,535 entries checked by unzip, Python zipfile and 7-Zip. The big ones use
// sparse files (reads return zeros, no disk used) as sources, but write the archive for real.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open as openFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test, type TestContext } from 'node:test';
import zlib from 'node:zlib';
import { bigZipTestSkipReason, checkZipWithTools } from '../../test/support/zip-tools.ts';
import { planZip, uniqueNames, type ZipEntryInput, type ZipPlan } from './zip.ts';
import { zipStream } from './zip-stream.ts';

const GiB = 1024 ** 3;
const MARKER = 0xffffffff;
const MiB = 1024 * 1024;
const when = new Date('2025-03-04T05:06:08Z');

interface Central {
  versionNeeded: number;
  size32: number;
  offset32: number;
  name: string;
  zip64: bigint[];
}

/** A minimal reader of the central directory, to check fields the real readers accept silently. */
function readCentral(plan: ZipPlan): { entries: Central[]; end: Buffer } {
  const tail = plan.segments.at(-1)!;
  assert.equal(tail.kind, 'header');
  const b = tail.kind === 'header' ? tail.bytes : Buffer.alloc(0);
  const entries: Central[] = [];
  let at = 0;
  for (let i = 0; i < plan.entries.length; i++) {
    assert.equal(b.readUInt32LE(at), 0x02014b50);
    const nameLength = b.readUInt16LE(at + 28);
    const extraLength = b.readUInt16LE(at + 30);
    const extra = b.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    const zip64: bigint[] = [];
    for (let x = 0; x < extra.length; x += 4 + extra.readUInt16LE(x + 2)) {
      if (extra.readUInt16LE(x) !== 1) continue;
      for (let v = 0; v < extra.readUInt16LE(x + 2); v += 8) zip64.push(extra.readBigUInt64LE(x + 4 + v));
    }
    entries.push({
      versionNeeded: b.readUInt16LE(at + 6),
      size32: b.readUInt32LE(at + 24),
      offset32: b.readUInt32LE(at + 42),
      name: b.subarray(at + 46, at + 46 + nameLength).toString('utf8'),
      zip64,
    });
    at += 46 + nameLength + extraLength;
  }
  return { entries, end: b.subarray(at) };
}

const localHeaderOf = (plan: ZipPlan, index: number): Buffer => {
  const seg = plan.segments.find((s) => s.offset === plan.entries[index]!.headerOffset)!;
  return seg.kind === 'header' ? seg.bytes : Buffer.alloc(0);
};
const entry = (name: string, size: number, crc32 = 0): ZipEntryInput => ({
  name,
  size,
  crc32,
  modifiedAt: when,
  identity: name,
});

describe('ZIP64 fields at their exact boundaries', () => {
  test('an entry of 0xFFFFFFFF bytes uses ZIP64 sizes in both headers; one byte less does not', () => {
    const small = planZip([entry('a', MARKER - 1)]);
    assert.equal(localHeaderOf(small, 0).readUInt16LE(4), 20);
    assert.equal(localHeaderOf(small, 0).readUInt32LE(22), MARKER - 1);
    assert.deepEqual(readCentral(small).entries[0]!.zip64, []);
    assert.equal(readCentral(small).end.length, 22 + 56 + 20, 'the directory starts past 4 GiB');

    const big = planZip([entry('a', MARKER)]);
    const local = localHeaderOf(big, 0);
    assert.equal(local.readUInt16LE(4), 45);
    assert.equal(local.readUInt32LE(18), MARKER);
    assert.equal(local.readUInt32LE(22), MARKER);
    // The local ZIP64 field comes first and holds both sizes (APPNOTE 4.5.3).
    assert.equal(local.readUInt16LE(30 + 1), 1);
    assert.equal(local.readUInt16LE(30 + 3), 16);
    assert.deepEqual([local.readBigUInt64LE(30 + 5), local.readBigUInt64LE(30 + 13)], [BigInt(MARKER), BigInt(MARKER)]);
    const central = readCentral(big).entries[0]!;
    assert.deepEqual(central, {
      versionNeeded: 45,
      size32: MARKER,
      offset32: 0,
      name: 'a',
      zip64: [0xffffffffn, 0xffffffffn],
    });
  });

  test('an entry whose header starts at 0xFFFFFFFF gets only its offset in a central ZIP64 field', () => {
    const firstHeader = planZip([entry('a', 0)]).entries[0]!.dataOffset;
    for (const offset of [MARKER - 1, MARKER]) {
      const plan = planZip([entry('a', offset - firstHeader), entry('b', 5), entry('c', 6 * GiB)]);
      assert.equal(plan.entries[1]!.headerOffset, offset);
      const [, b, c] = readCentral(plan).entries;
      if (offset === MARKER) {
        assert.deepEqual(b, { versionNeeded: 45, size32: 5, offset32: MARKER, name: 'b', zip64: [BigInt(MARKER)] });
        assert.equal(localHeaderOf(plan, 1).readUInt16LE(4), 45, 'both headers say 4.5');
      } else {
        assert.deepEqual(b, { versionNeeded: 20, size32: 5, offset32: offset, name: 'b', zip64: [] });
      }
      // Sizes first, then the offset, each only when its own field overflows.
      const cOffset = BigInt(plan.entries[2]!.headerOffset);
      assert.deepEqual(c, {
        versionNeeded: 45,
        size32: MARKER,
        offset32: MARKER,
        name: 'c',
        zip64: [6n * BigInt(GiB), 6n * BigInt(GiB), cOffset],
      });
    }
  });

  test('65,535 entries need the ZIP64 end records; 65,534 do not', () => {
    for (const count of [65_534, 65_535]) {
      const plan = planZip(Array.from({ length: count }, (_, i) => entry(`${i}`, 0)));
      const { end } = readCentral(plan);
      const cdOffset = plan.entries.at(-1)!.dataOffset;
      const cdSize = plan.size - cdOffset - end.length;
      const eocd = end.subarray(end.length - 22);
      assert.equal(eocd.readUInt32LE(0), 0x06054b50);
      assert.equal(eocd.readUInt16LE(10), Math.min(count, 0xffff));
      assert.deepEqual([eocd.readUInt32LE(12), eocd.readUInt32LE(16)], [cdSize, cdOffset]);
      if (count === 65_534) {
        assert.equal(end.length, 22);
        continue;
      }
      assert.equal(end.readUInt32LE(0), 0x06064b50);
      assert.equal(end.readBigUInt64LE(4), 44n);
      assert.deepEqual(
        [end.readBigUInt64LE(24), end.readBigUInt64LE(32), end.readBigUInt64LE(40), end.readBigUInt64LE(48)],
        [BigInt(count), BigInt(count), BigInt(cdSize), BigInt(cdOffset)],
      );
      assert.equal(end.readUInt32LE(56), 0x07064b50);
      assert.equal(end.readBigUInt64LE(56 + 8), BigInt(cdOffset + cdSize), 'the locator points at the record');
    }
  });
});

/** CRC-32 of zero bytes by length, so each length extends the longest shorter one computed. */
const zeroCrcs = new Map<number, number>([[0, 0]]);
/** CRC-32 of `size` zero bytes: what a sparse file of that size reads as. */
function crcOfZeros(size: number): number {
  const from = Math.max(...[...zeroCrcs.keys()].filter((k) => k <= size));
  let crc = zeroCrcs.get(from)!;
  const zeros = Buffer.alloc(8 * MiB);
  for (let left = size - from; left > 0; left -= zeros.length) {
    crc = zlib.crc32(zeros.subarray(0, Math.min(left, zeros.length)), crc);
  }
  zeroCrcs.set(size, crc);
  return crc;
}

const skip = await bigZipTestSkipReason();
/** Each big test takes 15-60 s on a busy 2-core machine; the suite default (120 s) is too near. */
const timeout = 5 * 60_000;

describe('ZIP64 archives checked by unzip, Python zipfile and 7-Zip', { skip }, () => {
  let dir = '';
  before(async () => (dir = await mkdtemp(path.join(tmpdir(), 'lightbox-zip64-'))));
  after(async () => rm(dir, { recursive: true, force: true }));

  interface Source {
    name: string;
    path: string;
    size: number;
    crc: number;
  }
  async function sparse(name: string, size: number): Promise<Source> {
    const file = path.join(dir, `src-${name}`);
    const handle = await openFile(file, 'w');
    await handle.truncate(size);
    await handle.close();
    return { name, path: file, size, crc: crcOfZeros(size) };
  }
  async function real(name: string, size: number): Promise<Source> {
    const file = path.join(dir, `src-${name}-${size}`);
    const data = randomBytes(size);
    await writeFile(file, data);
    return { name, path: file, size, crc: zlib.crc32(data) };
  }
  const planOf = (sources: Source[]): ZipPlan =>
    planZip(sources.map((s) => ({ ...entry(s.name, s.size, s.crc), identity: s.path })));
  const openFrom = (sources: Source[]) => (index: number, start: number, end: number) =>
    Promise.resolve(createReadStream(sources[index]!.path, { start, end, highWaterMark: MiB }));

  /** Streams the whole archive to a file, as the HTTP response would stream it. */
  async function writeZip(plan: ZipPlan, sources: Source[], file: string): Promise<void> {
    await pipeline(zipStream(plan, openFrom(sources)), createWriteStream(file, { highWaterMark: MiB }));
    assert.equal((await stat(file)).size, plan.size);
  }
  const expected = (plan: ZipPlan, sources: Source[]) =>
    sources.map((s, i) => ({
      name: plan.entries[i]!.name,
      size: s.size,
      crc: s.crc,
      offset: plan.entries[i]!.headerOffset,
    }));
  /** Reports how long each phase took (the budget is a couple of minutes for this suite). */
  async function timed<T>(t: TestContext, label: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    t.diagnostic(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  }

  test('one entry of 4 GiB + 1 KiB', { timeout }, async (t) => {
    const sources = [await sparse('big.bin', 4 * GiB + 1024)];
    const plan = planOf(sources);
    const file = path.join(dir, 'one.zip');
    await timed(t, 'write', () => writeZip(plan, sources, file));
    assert.deepEqual(await timed(t, 'check', () => checkZipWithTools(file)), expected(plan, sources));
    await rm(file);
  });

  test('entries whose offsets pass 4 GiB, and ranges across that boundary', { timeout }, async (t) => {
    const sources = [
      await real('first.jpg', 100_000),
      await sparse('a.raw', 2 * GiB),
      await sparse('b.raw', 2 * GiB + 512),
      await real('after.jpg', MiB + 3),
      await real('empty.txt', 0),
      await real('after.jpg', 3),
    ];
    const plan = planOf(sources);
    assert.ok(plan.entries[3]!.headerOffset > MARKER);
    const file = path.join(dir, 'several.zip');
    await timed(t, 'write', () => writeZip(plan, sources, file));
    // unzip reads only the small members; the 4 GiB test above has it read a whole big one.
    const unzipMembers = ['first.jpg', 'after.jpg', 'empty.txt', 'after (2).jpg'];
    const report = await timed(t, 'check', () => checkZipWithTools(file, { unzipMembers }));
    assert.deepEqual(report, expected(plan, sources));
    assert.equal(plan.entries[5]!.name, 'after (2).jpg');

    // A resumed download: ranges past 4 GiB are the same bytes as the file's.
    const handle = await openFile(file, 'r');
    try {
      const at = plan.entries[3]!.headerOffset;
      for (const [start, end] of [
        [2 ** 32 - 100, 2 ** 32 + 100],
        [at - 10, at + 200],
        [plan.size - 300, plan.size - 1],
        [plan.size - 1, plan.size - 1],
      ] as const) {
        const want = Buffer.alloc(end - start + 1);
        await handle.read(want, 0, want.length, start);
        const chunks: Buffer[] = [];
        for await (const c of zipStream(plan, openFrom(sources), { start, end })) chunks.push(c as Buffer);
        assert.ok(Buffer.concat(chunks).equals(want), `range ${start}-${end}`);
      }
    } finally {
      await handle.close();
    }
    await rm(file);
  });

  test(
    'an entry over 4 GiB at an offset over 4 GiB (headers written into a sparse archive)',
    { timeout },
    async (t) => {
      // 9 GiB of zeros would take minutes to write, so the archive file itself is sparse: only the
      // header ranges (and the small entry's data) are written, through ranged zipStream calls.
      const sources = [await sparse('a.bin', 5 * GiB), await sparse('b.bin', 4 * GiB + 7), await real('c.txt', 1000)];
      const plan = planOf(sources);
      const file = path.join(dir, 'sparse.zip');
      const handle = await openFile(file, 'w');
      try {
        await handle.truncate(plan.size);
        for (const seg of plan.segments) {
          if (seg.kind === 'data' && sources[seg.entry]!.name !== 'c.txt') continue;
          const range = { start: seg.offset, end: seg.offset + seg.length - 1 };
          const bytes = Buffer.concat(await zipStream(plan, openFrom(sources), range).toArray());
          await handle.write(bytes, 0, bytes.length, seg.offset);
        }
      } finally {
        await handle.close();
      }
      assert.deepEqual(readCentral(plan).entries[1]!.zip64.length, 3);
      // Every reader parses the whole directory (the listings must agree on every size and
      // offset) but verifies only the small entry behind the big ones: 9 GiB is too long to read.
      const report = await timed(t, 'check', () => checkZipWithTools(file, { members: ['c.txt'] }));
      assert.deepEqual(report, expected(plan, sources));
      await rm(file);
    },
  );

  test('70,000 entries, most of them named alike', { timeout }, async (t) => {
    const datas = Array.from({ length: 70_000 }, (_, i) => randomBytes(i % 17));
    const names = datas.map((_, i) => (i % 2 === 0 ? `IMG_${i}.jpg` : 'dup.jpg'));
    const plan = planZip(datas.map((d, i) => ({ ...entry(names[i]!, d.length, zlib.crc32(d)), identity: `${i}` })));
    const file = path.join(dir, 'many.zip');
    await pipeline(
      zipStream(plan, (i, s, e) => Promise.resolve(Readable.from([datas[i]!.subarray(s, e + 1)]))),
      createWriteStream(file),
    );
    const want = uniqueNames(names).map((name, i) => ({
      name,
      size: datas[i]!.length,
      crc: zlib.crc32(datas[i]!),
      offset: plan.entries[i]!.headerOffset,
    }));
    assert.equal(want.at(-1)!.name, 'dup (35000).jpg');
    const report = await timed(t, 'check', () => checkZipWithTools(file));
    // Member by member: a diff of two 70,000-item arrays would take minutes to print.
    assert.equal(report.length, want.length);
    report.forEach((member, i) => assert.deepEqual(member, want[i], `member ${i}`));
    assert.equal((await readFile(file)).length, plan.size);
    await rm(file);
  });
});
