// Some readers (sharp) want a file path, not a stream. On local storage the stored file is that
// path; on object storage the object is streamed to a temporary file under DATA_DIR/tmp, which
// is removed when the reader is done, whatever happens. The bytes are never held in memory.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { MediaStorage } from './storage.ts';

export async function withLocalFile<T>(
  storage: MediaStorage,
  key: string,
  tmpDir: string,
  read: (file: string) => Promise<T>,
): Promise<T> {
  const local = storage.localPath?.(key);
  if (local !== undefined) return read(local);
  await mkdir(tmpDir, { recursive: true });
  // Unique per call: two readers of one key (a retry racing a slow first try) never share a copy.
  const copy = path.join(tmpDir, `${path.basename(key)}-${randomBytes(6).toString('hex')}`);
  try {
    await pipeline(await storage.get(key), createWriteStream(copy, { highWaterMark: 1024 * 1024 }));
    return await read(copy);
  } finally {
    await rm(copy, { force: true });
  }
}
