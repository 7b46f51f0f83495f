// Media on the local disk, under DATA_DIR/media, one file per key. A file is only ever read
// through its media row, which is written after the file is complete, so no reader sees half
// a file; a failed write removes what it wrote.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, opendir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  assertSafeKey,
  isSafeKey,
  StorageNotFoundError,
  type ByteRange,
  type MediaStorage,
  type StoredObject,
} from './storage.ts';

const WRITE_BUFFER = 1024 * 1024;

export function createLocalStorage(root: string): MediaStorage {
  const base = path.resolve(root);

  function resolve(key: string): string {
    assertSafeKey(key);
    const full = path.resolve(base, ...key.split('/'));
    if (!full.startsWith(base + path.sep)) throw new Error(`storage key escapes its folder: ${key}`);
    return full;
  }

  async function* walk(dir: string, prefix: string): AsyncGenerator<StoredObject> {
    let handle;
    try {
      handle = await opendir(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw err;
    }
    for await (const entry of handle) {
      const full = path.join(dir, entry.name);
      const key = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) yield* walk(full, key);
      // Only names this storage could have written: a stray file (.DS_Store, a backup) is
      // neither listed nor swept.
      else if (entry.isFile() && isSafeKey(key)) yield { key, size: (await stat(full)).size };
    }
  }

  return {
    kind: 'local',

    async put(key, body) {
      const target = resolve(key);
      await mkdir(path.dirname(target), { recursive: true });
      try {
        await pipeline(body, createWriteStream(target, { highWaterMark: WRITE_BUFFER, flush: true }));
      } catch (err) {
        await rm(target, { force: true });
        throw err;
      }
    },

    async get(key, range?: ByteRange) {
      const file = resolve(key);
      try {
        await stat(file);
      } catch {
        throw new StorageNotFoundError(key);
      }
      return createReadStream(file, {
        highWaterMark: 256 * 1024,
        ...(range === undefined ? {} : { start: range.start, end: range.end }),
      });
    },

    async delete(key) {
      await rm(resolve(key), { force: true });
    },

    list(prefix) {
      const dir = prefix === '' ? base : resolve(prefix.replace(/\/+$/, ''));
      return walk(dir, prefix.replace(/\/+$/, ''));
    },

    localPath: (key) => resolve(key),
  };
}
