// Local storage's folders (the storage contract itself is src/storage/storage.test.ts): a delete takes
// the folders it empties along, up to the root; the sweep removes empty folders; and a write
// whose folder is removed under it by a delete or the sweep makes it again. And its readers.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createLocalStorage } from './local.ts';
import { StorageNotFoundError, type MediaStorage } from './storage.ts';

const TYPE = { contentType: 'application/octet-stream' };

describe('local storage folders', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'lightbox-folders-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  const put = (storage: MediaStorage, key: string, text = key): Promise<void> =>
    storage.put(key, Readable.from([Buffer.from(text)]), TYPE);
  const tree = async (dir: string): Promise<string[]> => (await readdir(dir, { recursive: true })).sort();

  test('a delete removes the folders it leaves empty, up to the root and not the root', async () => {
    const base = path.join(root, 'deletes');
    const storage = createLocalStorage(base);
    await put(storage, 'a/b/c');
    await put(storage, 'a/b/d');
    await put(storage, 'a/e');
    await storage.delete('a/b/c');
    assert.deepEqual(await tree(base), ['a', 'a/b', 'a/b/d', 'a/e']);
    await storage.delete('a/b/d');
    assert.deepEqual(await tree(base), ['a', 'a/e']);
    await storage.delete('a/e');
    assert.deepEqual(await tree(base), []);
    // Deleting what is not there, in folders that are not there, is still fine.
    await storage.delete('x/y/z');
    assert.deepEqual(await tree(base), []);
    // A write that fails takes the folder it made along.
    let reads = 0;
    const broken = new Readable({
      read() {
        reads += 1;
        if (reads === 1) this.push(Buffer.alloc(64 * 1024, 1));
        else this.destroy(new Error('body broke half-way'));
      },
    });
    await assert.rejects(storage.put('f/g/h', broken, TYPE), /body broke half-way/);
    assert.deepEqual(await tree(base), []);
  });

  test('the sweep removes every empty folder; a folder holding any file stays, and so does the root', async () => {
    const base = path.join(root, 'sweep');
    const storage = createLocalStorage(base);
    await mkdir(path.join(base, 'acc_1', 'lst_1', 'deeper'), { recursive: true });
    await mkdir(path.join(base, 'acc_1', 'lst_2'), { recursive: true });
    await mkdir(path.join(base, 'acc_2', 'lst_3'), { recursive: true });
    await writeFile(path.join(base, 'acc_2', '.DS_Store'), 'finder');
    await put(storage, 'acc_3/lst_4/med_5');
    await storage.removeEmptyFolders?.();
    assert.deepEqual(await tree(base), ['acc_2', 'acc_2/.DS_Store', 'acc_3', 'acc_3/lst_4', 'acc_3/lst_4/med_5']);
    await storage.delete('acc_3/lst_4/med_5');
    await rm(path.join(base, 'acc_2', '.DS_Store'));
    await storage.removeEmptyFolders?.();
    assert.deepEqual(await tree(base), []);
    // A root that is not there yet is not an error either.
    await createLocalStorage(path.join(root, 'never-made')).removeEmptyFolders?.();
  });

  test('writes racing deletes and the sweep that empty their folder all land', async () => {
    const base = path.join(root, 'race');
    const storage = createLocalStorage(base);
    await put(storage, 'acc/lst/k0');
    const later = async (turns: number, work: () => Promise<void> | undefined): Promise<void> => {
      for (let turn = 0; turn < turns; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
      await work();
    };
    for (let i = 0; i < 300; i += 1) {
      // The only file of the folder goes while the next is written into it, a few event-loop
      // turns apart so that every interleaving comes up (the folder is removed between the
      // write making it and creating its file in some tens of the rounds).
      await Promise.all([
        storage.delete(`acc/lst/k${i}`),
        later(i % 7, () => put(storage, `acc/lst/k${i + 1}`)),
        later(i % 3, () => storage.removeEmptyFolders?.()),
      ]);
      const body = Buffer.concat(await (await storage.get(`acc/lst/k${i + 1}`)).toArray());
      assert.equal(body.toString(), `acc/lst/k${i + 1}`, `round ${i}`);
    }
    assert.deepEqual(await tree(base), ['acc', 'acc/lst', 'acc/lst/k300']);
  });
});

describe('local storage readers (reads into buffers the caller owns)', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'lightbox-readers-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('read the bytes at any position into the given buffer, 0 at the end', async () => {
    const storage = createLocalStorage(root);
    const bytes = randomBytes(100_000);
    await storage.put('acc/lst/med', Readable.from([bytes]), TYPE);
    const reader = await storage.openReader!('acc/lst/med');
    try {
      const buffer = Buffer.alloc(70_000, 0xee);
      assert.equal(await reader.read(buffer, 5, 40_000, 1234), 40_000);
      assert.ok(buffer.subarray(5, 40_005).equals(bytes.subarray(1234, 41_234)));
      assert.equal(buffer[4], 0xee, 'nothing written before the offset');
      assert.equal(buffer[40_005], 0xee, 'nothing written past the length');
      // The same buffer again, across the end of the file: only what is there.
      assert.equal(await reader.read(buffer, 0, 70_000, 60_000), 40_000);
      assert.ok(buffer.subarray(0, 40_000).equals(bytes.subarray(60_000)));
      assert.equal(await reader.read(buffer, 0, 10, 100_000), 0);
    } finally {
      await reader.close();
    }
  });

  test('a missing key is StorageNotFoundError; an unsafe one is refused', async () => {
    const storage = createLocalStorage(root);
    await assert.rejects(storage.openReader!('acc/lst/none'), StorageNotFoundError);
    await assert.rejects(storage.openReader!('../outside'), /unsafe storage key/);
  });
});
