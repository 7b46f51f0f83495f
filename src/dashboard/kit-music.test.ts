// The listing kit's music track (docs/api.md §32) over HTTP: Settings > Studio takes an MP3, M4A,
// AAC or WAV (sniffed, decoded by ffmpeg, at most 20 MB) and keeps it in media storage under the
// account's `kit_music_key`; anything else is refused beside the field with nothing stored; a new
// track replaces the old one's bytes, and "Remove music" removes them (silent videos again).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Browser } from '../../test/support/dashboard-browser.ts';
import { multipart, pdf, type Part } from '../../test/support/media-fixtures.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../../test/support/test-app.ts';
import { ffmpegPath } from '../modules/variants/variants.video.ts';

const run = promisify(execFile);
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
let owner: TestAccount;
let browser: Browser;
let dir: string;

/** A tone of `seconds` made by the installed ffmpeg, in `format` (mp3, m4a, wav). */
async function tone(format: 'mp3' | 'm4a' | 'wav', seconds = 2): Promise<Buffer> {
  const file = path.join(dir, `tone-${seconds}.${format}`);
  const codec = { mp3: ['-c:a', 'libmp3lame'], m4a: ['-c:a', 'aac'], wav: ['-c:a', 'pcm_s16le'] }[format];
  await run(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=330:duration=${seconds}`, ...codec, '-y', file]); // prettier-ignore
  return readFile(file);
}

async function sendMusic(data: Buffer, filename = 'track.mp3', contentType = 'audio/mpeg') {
  const parts: Part[] = [
    { field: '_csrf', data: browser.token() ?? '' },
    { field: 'music', filename, contentType, data },
  ];
  const body = multipart(parts);
  return ctx.app.inject({
    method: 'POST',
    url: '/dashboard/settings/studio/music',
    remoteAddress: browser.address,
    headers: {
      cookie: browser.cookieHeader(),
      'content-type': body.contentType,
      origin: 'http://localhost',
      'sec-fetch-site': 'same-origin',
    },
    payload: body.body,
  });
}

const musicKey = async (): Promise<string | null> =>
  (
    await ctx.deps.db.kysely
      .selectFrom('accounts')
      .select('kit_music_key')
      .where('id', '=', owner.accountId)
      .executeTakeFirstOrThrow()
  ).kit_music_key;

async function storedKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of ctx.deps.storage.list('')) keys.push(o.key);
  return keys.sort();
}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-kit-music-'));
  ctx = await createTestContext();
  owner = await createAccount(ctx, 'Harbour Light Studio');
  browser = new Browser(ctx.app);
  assert.equal((await browser.signIn(owner.email, PASSWORD)).statusCode, 303);
  await browser.get('/dashboard/settings/studio');
});
after(async () => {
  await ctx.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the listing kit music', () => {
  let firstKey: string;

  test('none at first: the page says the videos have no sound', async () => {
    const page = await browser.get('/dashboard/settings/studio');
    assert.match(page.body, /id="music"/);
    assert.match(page.body, /have no sound now/);
    assert.doesNotMatch(page.body, /Remove music/);
    assert.equal((await browser.get('/dashboard/settings/studio/music')).statusCode, 404);
  });

  test('refused: another type, what only looks like audio, too short, over 20 MB: 400 beside the field, nothing stored', async () => {
    const before = await storedKeys();
    const mp3 = await tone('mp3');
    const cases: [Buffer, string, RegExp][] = [
      [pdf('not music'), 'track.pdf', /must be an MP3, M4A, AAC or WAV file/],
      [mp3.subarray(0, 700), 'cut.mp3', /cannot be read as audio|shorter than a second/], // prettier-ignore
      [await tone('wav', 0.3), 'short.wav', /shorter than a second/],
      [Buffer.concat([mp3, Buffer.alloc(20 * 1024 * 1024)]), 'big.mp3', /larger than 20 MB/],
    ];
    for (const [data, filename, words] of cases) {
      const res = await sendMusic(data, filename);
      assert.equal(res.statusCode, 400, `${filename}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, words, filename);
      assert.match(res.body, /id="f-music-error"/, filename);
      assert.match(res.body, /aria-invalid="true"/, filename);
      await browser.get('/dashboard/settings/studio');
    }
    assert.equal(await musicKey(), null);
    await ctx.services.mediaCleanup.purgeDue();
    assert.deepEqual(await storedKeys(), before);
  });

  test('uploaded (MP3): kept in media storage, played back on the page', async () => {
    const mp3 = await tone('mp3');
    const res = await sendMusic(mp3);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard/settings/studio?notice=music-saved#music');
    firstKey = (await musicKey())!;
    assert.ok(firstKey.startsWith(`${owner.accountId}/music-mp3-`), firstKey);
    const page = await browser.get('/dashboard/settings/studio?notice=music-saved');
    assert.match(page.body, /Remove music/);
    assert.match(page.body, /Music saved/);
    const src = /class="music-preview"[^>]*src="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(src !== undefined, 'the page has a player');
    const track = await browser.get(src.replace(/&amp;/g, '&'));
    assert.equal(track.statusCode, 200);
    assert.equal(track.headers['content-type'], 'audio/mpeg');
    assert.deepEqual(track.rawPayload, mp3);
    assert.equal(await ctx.services.kitMusic.key(owner.accountId), firstKey);
  });

  test('replaced (M4A, then WAV): the old bytes are removed', async () => {
    for (const [format, type] of [
      ['m4a', 'audio/mp4'],
      ['wav', 'audio/wav'],
    ] as const) {
      await browser.get('/dashboard/settings/studio');
      const res = await sendMusic(await tone(format), `track.${format}`, type);
      assert.equal(res.statusCode, 303, res.body);
      const key = (await musicKey())!;
      assert.match(key, new RegExp(`/music-${format}-`));
      await assert.rejects(ctx.deps.storage.get(firstKey).then((s) => s.toArray()));
      const opened = await ctx.services.kitMusic.open(owner.accountId);
      assert.equal(opened?.contentType, type);
      opened?.body.destroy();
      firstKey = key;
    }
  });

  test('removed: silent again, the stored track gone', async () => {
    await browser.get('/dashboard/settings/studio');
    const res = await browser.post('/dashboard/settings/studio/music/delete', {});
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard/settings/studio?notice=music-removed#music');
    assert.equal(await musicKey(), null);
    await assert.rejects(ctx.deps.storage.get(firstKey).then((s) => s.toArray()));
    assert.equal((await browser.get('/dashboard/settings/studio/music')).statusCode, 404);
    const page = await browser.get('/dashboard/settings/studio');
    assert.doesNotMatch(page.body, /Remove music/);
  });
});
