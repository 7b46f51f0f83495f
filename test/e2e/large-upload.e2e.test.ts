// A 2 GiB video through the dashboard in a real browser (issue 32: "upload ... a 2 GB video ...
// from a phone or a laptop"): chromium at 1280 px picks the file, dashboard.js sends it with
// tus-js-client in 8 MiB pieces to the dashboard's tus mount, and the gallery then holds a video of
// exactly that size and sha256. The file is a real MP4 (ffmpeg's test pattern) padded with zeros
// up to the per-file limit, MEDIA_MAX_FILE_BYTES' default of 2 GiB: the server sniffs the type
// from the first bytes, so it is a video; its variants are not made here (ffmpeg on 2 GiB would
// only fail on the padding, and take the CPU of a shared machine). The file is written to a temp
// directory, handed to chromium by path (no copy through the test's memory), and removed after.
// The test process (the server) must stay bounded in memory while the bytes stream through it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import type { Browser, Page } from 'playwright-core';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { makeVideo } from '../support/videos.ts';
import { freePort } from '../support/process-helpers.ts';
import { SHOTS, launchChromium, skipWithoutChromium, watchConsole } from '../support/e2e-browser.ts';

const OWNER = { studio: 'Big Reel', email: 'owner@bigreel.example', password: 'a long studio password' };
const SIZE = 2 * 1024 ** 3;
const PIECE = 8 * 1024 * 1024;
/** How much the server's resident memory may grow while 2 GiB pass through it. */
const MEMORY_HEADROOM = 512 * 1024 * 1024;

let ctx: TestContext;
let base: string;
let browser: Browser;
let page: Page;
let dir = '';
let file = '';
let digest = '';
let accountId = '';
let galleryId = '';
const consoleErrors: string[] = [];

/** A real MP4's bytes, then zeros up to `size`, written in pieces; returns the file's sha256. */
async function writeVideo(target: string, size: number): Promise<string> {
  const head = await makeVideo('h264-faststart', { seconds: 1, audio: false });
  const hash = createHash('sha256');
  const out = createWriteStream(target);
  const write = async (chunk: Buffer) => {
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write(head);
  const zeros = Buffer.alloc(PIECE);
  for (let left = size - head.length; left > 0; left -= PIECE)
    await write(left >= PIECE ? zeros : zeros.subarray(0, left));
  out.end();
  await once(out, 'finish');
  return hash.digest('hex');
}

describe('a 2 GiB video uploaded in the browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-large-upload-'));
    file = path.join(dir, 'harbour-walkthrough.mp4');
    digest = await writeVideo(file, SIZE);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, LOG_LEVEL: 'warn' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    accountId = (
      await ctx.services.accounts.create({ name: OWNER.studio, email: OWNER.email, password: OWNER.password })
    ).id;
    galleryId = (await ctx.services.listings.create(accountId, { address: '1 Reel Street' })).id;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchConsole(page, consoleErrors);
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  test(
    'through tus, in pieces, with progress: the gallery holds the whole video',
    { timeout: 20 * 60_000 },
    async () => {
      await page.goto(`${base}/dashboard/galleries/${galleryId}`);
      let patches = 0;
      page.on('request', (r) => {
        if (r.method() === 'PATCH' && r.url().includes(`/dashboard/galleries/${galleryId}/uploads/`)) patches += 1;
      });
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }, 250);
      const started = performance.now();
      try {
        await page.getByLabel('Choose photos, videos or PDFs').setInputFiles(file);
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        await page.getByRole('progressbar', { name: 'Upload of harbour-walkthrough.mp4' }).waitFor();
        // The bar moves while the pieces go (at least a tenth sent, not yet all of it).
        await page.getByText(/harbour-walkthrough\.mp4: [1-9]\d%/).waitFor({ timeout: 10 * 60_000 });
        await page.screenshot({ path: path.join(SHOTS, 'large-upload-progress.png') });
        await page.waitForURL(/notice=uploaded/, { timeout: 19 * 60_000 });
      } finally {
        clearInterval(sampler);
      }
      const seconds = (performance.now() - started) / 1000;
      const growth = rssPeak - rssBefore;
      console.log(
        `2 GiB through the browser: ${seconds.toFixed(1)} s (${(SIZE / 1024 ** 2 / seconds).toFixed(1)} MiB/s), ` +
          `${patches} PATCH pieces, server RSS +${Math.round(growth / 1024 ** 2)} MiB at its peak`,
      );
      assert.equal(patches, SIZE / PIECE, 'one PATCH per 8 MiB piece');
      assert.ok(growth < MEMORY_HEADROOM, `the server grew by ${Math.round(growth / 1024 ** 2)} MiB`);

      const media = (await ctx.services.media.list(accountId, galleryId)).data;
      assert.equal(media.length, 1);
      const [video] = media;
      assert.ok(video);
      assert.equal(video.filename, 'harbour-walkthrough.mp4');
      assert.equal(video.kind, 'video');
      assert.equal(video.size, SIZE);
      assert.equal(video.sha256, digest);
      await page.locator(`#m-${video.id}`).waitFor();
      await page.locator('#media').screenshot({ path: path.join(SHOTS, 'large-upload-done.png') });
      assert.deepEqual(consoleErrors, [], 'the browser console reported errors');
    },
  );
});
