// Deleting a gallery and what happens to its bytes: no empty folder is left under the media
// directory, by the delete or, for folders left earlier, by the sweep.
// node:test's describe() and test() return promises that the runner itself awaits.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { call, createAccount, createTestContext } from '../../../test/helpers.ts';
import { pdf } from '../../../test/media-fixtures.ts';
import { newGallery, uploaded } from '../../../test/media-helpers.ts';

describe('folders under the media directory', () => {
  test('a deleted gallery takes its folder along (and its account’s, once empty); the sweep removes empty ones', async () => {
    const ctx = await createTestContext();
    try {
      const owner = await createAccount(ctx);
      const media = path.join(ctx.dataDir, 'media');
      const first = await newGallery(ctx, owner);
      const second = await newGallery(ctx, owner);
      await uploaded(ctx, owner.key, first, [{ filename: 'a.pdf', data: pdf() }]);
      const [single] = await uploaded(ctx, owner.key, second, [{ filename: 'b.pdf', data: pdf() }]);
      assert.deepEqual((await readdir(path.join(media, owner.accountId))).sort(), [first, second].sort());

      assert.equal((await call(ctx, 'DELETE', `/v1/listings/${first}`, { key: owner.key })).statusCode, 204);
      assert.deepEqual(await readdir(path.join(media, owner.accountId)), [second]);
      // Deleting the last media of a gallery empties its folder too.
      const res = await call(ctx, 'DELETE', `/v1/listings/${second}/media/${single!.id}`, { key: owner.key });
      assert.equal(res.statusCode, 204);
      assert.deepEqual(await readdir(media), []);

      // Folders an earlier version left behind, empty or holding only more empty folders, go
      // with the sweep; a folder with a stray file in it stays, as does the file.
      await mkdir(path.join(media, 'acc_old', 'lst_old'), { recursive: true });
      await mkdir(path.join(media, 'acc_old', 'lst_older'), { recursive: true });
      await mkdir(path.join(media, 'acc_kept', 'lst_gone'), { recursive: true });
      await writeFile(path.join(media, 'acc_kept', '.DS_Store'), 'finder');
      assert.deepEqual(await ctx.services.mediaCleanup.sweep(), { purged: 0, orphans: 0 });
      assert.deepEqual(await readdir(media), ['acc_kept']);
      assert.deepEqual(await readdir(path.join(media, 'acc_kept')), ['.DS_Store']);
      assert.ok(existsSync(media), 'the root itself stays, even when empty');
    } finally {
      await ctx.close();
    }
  });
});
