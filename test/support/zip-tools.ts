// Checks a ZIP file with three independent real readers (Info-ZIP unzip, Python's zipfile,
// 7-Zip), run in parallel because each reads every byte to verify the CRCs. Used by the
// gallery's ZIP writer tests; each reader is strict about different things.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdtemp, statfs } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAX_OUTPUT = 256 * 1024 * 1024;

/** One member as a reader sees it in the central directory. */
export interface MemberReport {
  name: string;
  size: number;
  crc: number;
  /** Where its local header starts. */
  offset: number;
  /** Hex SHA-256 of the member's bytes, when asked for. */
  sha256?: string;
}

// Lists every member, then reads the chosen ones to their end (zipfile raises BadZipFile on
// a CRC mismatch, and on a local header whose name differs from the central directory's).
// Hashing is optional: it doubles the cost on multi-GiB members.
const PYTHON = `
import hashlib, json, sys, zipfile
path, want_hash, only = sys.argv[1], sys.argv[2] == '1', set(sys.argv[3:])
out = []
with zipfile.ZipFile(path) as z:
    for info in z.infolist():
        assert info.compress_type == zipfile.ZIP_STORED, info.filename
        item = {'name': info.filename, 'size': info.file_size, 'crc': info.CRC, 'offset': info.header_offset}
        if not only or info.filename in only:
            h = hashlib.sha256()
            n = 0
            with z.open(info) as f:
                while chunk := f.read(1 << 20):
                    n += len(chunk)
                    if want_hash:
                        h.update(chunk)
            assert n == info.file_size, (info.filename, n, info.file_size)
            if want_hash:
                item['sha256'] = h.hexdigest()
        out.append(item)
json.dump(out, sys.stdout)
`;

let sevenZipPath: Promise<string> | undefined;

/**
 * The 7-Zip command the project installs (the 7zip-bin package, a devDependency), so the tests
 * need no 7-Zip on the machine. npm unpacks its binaries without the executable bit, so the
 * first call copies this machine's one to a temporary folder and makes it executable.
 */
export function sevenZip(): Promise<string> {
  sevenZipPath ??= (async () => {
    const { path7za } = createRequire(import.meta.url)('7zip-bin') as { path7za: string };
    const dir = await mkdtemp(path.join(tmpdir(), 'lightbox-7za-'));
    const copy = path.join(dir, path.basename(path7za));
    await copyFile(path7za, copy);
    await chmod(copy, 0o755);
    return copy;
  })();
  return sevenZipPath;
}

/** Where each member's local header starts, as Info-ZIP's zipinfo reads the central directory. */
async function zipinfoOffsets(file: string): Promise<number[]> {
  const { stdout } = await run('unzip', ['-Zv', file], { maxBuffer: MAX_OUTPUT }).catch((err: unknown) => {
    // Exit 1 with "Empty zipfile." for an archive without entries.
    const e = err as { code?: number; stdout?: string };
    if (e.code === 1 && /Empty zipfile\./.test(e.stdout ?? '')) return { stdout: '' };
    throw err;
  });
  return [...stdout.matchAll(/offset of local header from start of archive: +(\d+)/g)].map(([, n]) => Number(n));
}

/** 7-Zip's own reading of the central directory, in the same shape. */
function parseSevenZipListing(text: string): (Omit<MemberReport, 'offset'> & { offset: number | undefined })[] {
  return text
    .split(/\n\s*\n/)
    .filter((block) => block.includes('Path = '))
    .map((block) => {
      const field = (key: string): string => {
        const match = new RegExp(`^${key} = (.*)$`, 'm').exec(block);
        assert.ok(match, `7-Zip listed no ${key}`);
        return match[1]!;
      };
      return {
        name: field('Path'),
        size: Number(field('Size')),
        crc: parseInt(field('CRC') || '0', 16),
        // 7-Zip 16 (7zip-bin's) does not list it; newer ones do.
        offset: /^Offset = /m.test(block) ? Number(field('Offset')) : undefined,
      };
    });
}

export interface ToolOptions {
  /** Python also hashes every member it reads (SHA-256). */
  hash?: boolean;
  /** Every reader verifies only these members (all are still listed and cross-checked). */
  members?: string[];
  /**
   * unzip verifies only these members: it checks CRCs at about 350 MB/s, several times slower
   * than the others, and testing the members past 4 GiB proves it finds them through ZIP64.
   */
  unzipMembers?: string[];
}

/**
 * Runs the three readers; rejects if any of them finds a problem, or if Python and 7-Zip
 * disagree about any member's name, size, CRC or offset. Returns what Python saw.
 */
export async function checkZipWithTools(path: string, options: ToolOptions = {}): Promise<MemberReport[]> {
  const members = options.members ?? [];
  const sevenZa = await sevenZip();
  const [unzip, sevenZip7, sevenZipList, python, offsets] = await Promise.all([
    // unzip exits 1 with this warning for an archive without entries: valid, nothing to test.
    run('unzip', ['-t', '-q', path, ...(options.unzipMembers ?? members)], { maxBuffer: MAX_OUTPUT }).catch(
      (err: unknown) => {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        if (e.code === 1 && /zipfile is empty/.test(`${e.stdout ?? ''}${e.stderr ?? ''}`)) return { stdout: 'empty' };
        throw err;
      },
    ),
    run(sevenZa, ['t', path, ...members], { maxBuffer: MAX_OUTPUT }),
    run(sevenZa, ['l', '-slt', '-ba', path], { maxBuffer: MAX_OUTPUT }),
    run('python3', ['-c', PYTHON, path, options.hash === true ? '1' : '0', ...members], { maxBuffer: MAX_OUTPUT }),
    zipinfoOffsets(path),
  ]);
  assert.match(unzip.stdout, /No errors detected|^empty$/);
  assert.match(sevenZip7.stdout, /Everything is Ok/);
  // 7-Zip reports recoverable oddities ("Headers Error", "Unexpected end") as warnings.
  assert.doesNotMatch(sevenZip7.stdout + sevenZipList.stdout, /Warnings?:|ERRORS?:/);
  const report = JSON.parse(python.stdout) as MemberReport[];
  // Offsets from 7-Zip where it lists them, else from zipinfo: a second reader either way.
  const listed = parseSevenZipListing(sevenZipList.stdout).map((m, i) => ({ ...m, offset: m.offset ?? offsets[i] }));
  assert.equal(offsets.length, report.length, 'zipinfo lists another number of members');
  assert.deepEqual(
    listed,
    report.map(({ name, size, crc, offset }) => ({ name, size, crc, offset })),
  );
  assert.deepEqual(
    offsets,
    report.map(({ offset }) => offset),
  );
  return report;
}

const GiB = 1024 ** 3;
/** The big ZIP64 suites write up to ~4.3 GiB at a time; this leaves room for everyone else. */
const NEEDED_FREE = 12 * GiB;

/**
 * Why the multi-GiB ZIP tests should not run here, or false. They touch no database, and CI
 * runs the whole suite twice (SQLite, then PostgreSQL): once is enough.
 */
export async function bigZipTestSkipReason(): Promise<string | false> {
  if ((process.env.DATABASE_URL ?? '').startsWith('postgres')) {
    return 'multi-GiB ZIP tests use no database: they run in the SQLite pass only';
  }
  const s = await statfs(tmpdir());
  const free = s.bavail * s.bsize;
  if (free < NEEDED_FREE) {
    return `only ${(free / GiB).toFixed(1)} GiB free in ${tmpdir()}; the ZIP64 tests need 12 GiB`;
  }
  return false;
}
