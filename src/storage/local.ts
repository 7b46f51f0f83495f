// Media on the local disk, under DATA_DIR/media, one file per key. A file is only ever read
// through its media row, which is written after the file is complete, so no reader sees half
// a file; a failed write removes what it wrote. Folders hold no meaning of their own: a delete
// removes those it leaves empty (up to the root), and a write makes its folder again if a
// delete removed it meanwhile.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, opendir, readdir, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  assertSafeKey,
  isSafeKey,
  StorageNotFoundError,
  type ByteRange,
  type MediaStorage,
  type StoredObject,
  type StoredReader,
} from './storage.ts';

const WRITE_BUFFER = 1024 * 1024;
/** A write whose folder keeps vanishing (deletes emptying it in between) gives up after this. */
const CREATE_ATTEMPTS = 10;

const codeOf = (err: unknown): unknown => (err as NodeJS.ErrnoException).code;

export function createLocalStorage(root: string): MediaStorage {
  const base = path.resolve(root);

  function resolve(key: string): string {
    assertSafeKey(key);
    const full = path.resolve(base, ...key.split('/'));
    if (!full.startsWith(base + path.sep)) throw new Error(`storage key escapes its folder: ${key}`);
    return full;
  }

  /** Creates the file, and its folders; a folder removed between the two is made again. */
  async function create(target: string): Promise<FileHandle> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await mkdir(path.dirname(target), { recursive: true });
        return await open(target, 'w');
      } catch (err) {
        if (codeOf(err) !== 'ENOENT' || attempt >= CREATE_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Removes the folders above `file` that are now empty, nearest first, up to the root. Best
   * effort: a folder a write has just put a file in (ENOTEMPTY), or that is gone, ends it, and
   * so does anything else, since the key itself is deleted; the sweep tries the folders again.
   */
  async function removeEmptyParents(file: string): Promise<void> {
    for (let dir = path.dirname(file); dir.startsWith(base + path.sep); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
    }
  }

  /** Removes the empty folders under `dir` (and `dir` itself unless it is the root); true if it went. */
  async function prune(dir: string): Promise<boolean> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (codeOf(err) === 'ENOENT') return true;
      if (codeOf(err) === 'ENOTDIR') return false;
      throw err;
    }
    let empty = true;
    for (const entry of entries) {
      // Only real folders are descended into; a file or a link keeps its folder.
      if (!entry.isDirectory() || !(await prune(path.join(dir, entry.name)))) empty = false;
    }
    if (!empty || dir === base) return false;
    try {
      await rmdir(dir);
      return true;
    } catch (err) {
      // A write put a file in it since it was read (ENOTEMPTY, or EEXIST on some systems).
      if (codeOf(err) === 'ENOTEMPTY' || codeOf(err) === 'EEXIST') return false;
      if (codeOf(err) === 'ENOENT') return true;
      throw err;
    }
  }

  async function sizeOf(file: string): Promise<number | undefined> {
    try {
      return (await stat(file)).size;
    } catch (err) {
      if (codeOf(err) === 'ENOENT') return undefined;
      throw err;
    }
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
      else if (entry.isFile() && isSafeKey(key)) {
        const size = await sizeOf(full);
        // Deleted since the folder was read: no longer there to list.
        if (size !== undefined) yield { key, size };
      }
    }
  }

  return {
    kind: 'local',

    async put(key, body) {
      const target = resolve(key);
      let handle: FileHandle;
      try {
        handle = await create(target);
      } catch (err) {
        body.destroy();
        throw err;
      }
      try {
        await pipeline(body, createWriteStream(target, { fd: handle, highWaterMark: WRITE_BUFFER, flush: true }));
      } catch (err) {
        await rm(target, { force: true });
        await removeEmptyParents(target);
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

    async openReader(key): Promise<StoredReader> {
      const file = resolve(key);
      let handle: FileHandle;
      try {
        handle = await open(file, 'r');
      } catch (err) {
        if (codeOf(err) === 'ENOENT') throw new StorageNotFoundError(key);
        throw err;
      }
      return {
        read: async (buffer, offset, length, position) =>
          (await handle.read(buffer, offset, length, position)).bytesRead,
        close: () => handle.close(),
      };
    },

    async delete(key) {
      const file = resolve(key);
      await rm(file, { force: true });
      await removeEmptyParents(file);
    },

    async removeEmptyFolders() {
      await prune(base);
    },

    list(prefix) {
      const dir = prefix === '' ? base : resolve(prefix.replace(/\/+$/, ''));
      return walk(dir, prefix.replace(/\/+$/, ''));
    },

    localPath: (key) => resolve(key),
  };
}
