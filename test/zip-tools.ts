// Checks a ZIP file with three independent real readers (Info-ZIP unzip, Python's zipfile,
// 7-Zip), run in parallel because each reads every byte to verify the CRCs. Used by the
// gallery's ZIP writer tests; each reader is strict about different things.
import { execFile } from 'node:child_process';
import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';

const run = promisify(execFile);
const MAX_OUTPUT = 256 * 1024 * 1024;

export interface MemberReport {
  name: string;
  size: number;
  crc: number;
  /** Hex SHA-256 of the member's bytes, when asked for. */
  sha256?: string;
}

// Reads every member to its end (zipfile raises BadZipFile on a CRC mismatch), checks the
// local header agrees with the central directory (zipfile compares the names), and reports
// what it saw. Hashing is optional: it doubles the cost on multi-GiB members.
const PYTHON = `
import hashlib, json, sys, zipfile
path, want_hash = sys.argv[1], sys.argv[2] == '1'
out = []
with zipfile.ZipFile(path) as z:
    for info in z.infolist():
        h = hashlib.sha256()
        n = 0
        with z.open(info) as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                n += len(chunk)
                if want_hash:
                    h.update(chunk)
        assert n == info.file_size, (info.filename, n, info.file_size)
        assert info.compress_type == zipfile.ZIP_STORED, info.filename
        item = {'name': info.filename, 'size': info.file_size, 'crc': info.CRC}
        if want_hash:
            item['sha256'] = h.hexdigest()
        out.append(item)
json.dump(out, sys.stdout)
`;

/** Runs the three readers; rejects if any of them finds a problem. Returns what Python saw. */
export async function checkZipWithTools(path: string, options: { hash?: boolean } = {}): Promise<MemberReport[]> {
  const [unzip, sevenZip, python] = await Promise.all([
    // unzip exits 1 with this warning for an archive without entries: valid, nothing to test.
    run('unzip', ['-t', '-q', path], { maxBuffer: MAX_OUTPUT }).catch((err: unknown) => {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      if (e.code === 1 && /zipfile is empty/.test(`${e.stdout ?? ''}${e.stderr ?? ''}`)) return { stdout: 'empty' };
      throw err;
    }),
    run('7zz', ['t', path], { maxBuffer: MAX_OUTPUT }),
    run('python3', ['-c', PYTHON, path, options.hash === true ? '1' : '0'], { maxBuffer: MAX_OUTPUT }),
  ]);
  assert.match(unzip.stdout, /No errors detected|^empty$/);
  assert.match(sevenZip.stdout, /Everything is Ok/);
  // 7-Zip reports recoverable oddities ("Headers Error", "Unexpected end") as warnings.
  assert.doesNotMatch(sevenZip.stdout, /Warnings?:|ERRORS?:/);
  return JSON.parse(python.stdout) as MemberReport[];
}

/** Free bytes on the filesystem holding the temporary folder. */
export async function freeTmpBytes(): Promise<number> {
  const s = await statfs(tmpdir());
  return s.bavail * s.bsize;
}
