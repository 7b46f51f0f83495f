// The listing kit's music track (docs/api.md §32) in a browser: the owner uploads it on Settings >
// Studio, the page plays it back, the section is accessible and fits a phone, and "Remove music"
// takes it away. Screenshots at 1280 and 390 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { ffmpegPath } from '../../src/modules/variants/variants.video.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  assertAccessible,
  assertFitsPhone,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'kit-music');
const run = promisify(execFile);

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let dir: string;
const consoleErrors: string[] = [];

describe('the listing kit music in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light Photography');
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-kit-music-e2e-'));
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('uploaded on Settings > Studio, played back, removed; at 1280 and 390 px', async () => {
    const file = path.join(dir, 'theme.mp3');
    await run(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=3', '-c:a', 'libmp3lame', '-y', file]); // prettier-ignore
    const settings = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const d = await settings.newPage();
    watchConsole(d, consoleErrors);
    await d.goto(`${base}/dashboard/sign-in`);
    await d.getByLabel('Email').fill(owner.email);
    await d.getByLabel('Password').fill('correct horse battery');
    await d.getByRole('button', { name: 'Sign in' }).click();
    await d.waitForURL(`${base}/dashboard`);
    await d.goto(`${base}/dashboard/settings/studio#music`);
    await d.locator('#music').screenshot({ path: path.join(SHOTS, 'settings-music-none-1280.png') });
    await d
      .getByLabel('Upload a music track')
      .setInputFiles({ name: 'theme.mp3', mimeType: 'audio/mpeg', buffer: await readFile(file) });
    await d.getByRole('button', { name: 'Upload music' }).click();
    await d.waitForURL(/notice=music-saved/);
    const player = d.locator('audio.music-preview');
    await player.waitFor();
    // The player reads the track from the page's own route.
    const duration = await player.evaluate(
      (a) =>
        new Promise<number>((resolve) => {
          a.addEventListener('loadedmetadata', () => resolve(a.duration), { once: true });
          a.addEventListener('error', () => resolve(-1), { once: true });
          a.preload = 'metadata';
          a.load();
        }),
    );
    assert.ok(duration > 2.5 && duration < 3.5, `the player reads the track: ${duration} s`);
    await assertAccessible(d, 'studio settings with music');
    await d.locator('#music').screenshot({ path: path.join(SHOTS, 'settings-music-1280.png') });
    await d.setViewportSize({ width: 390, height: 844 });
    await assertFitsPhone(d);
    await d.locator('#music').screenshot({ path: path.join(SHOTS, 'settings-music-390.png') });
    await d.getByRole('button', { name: 'Remove music' }).click();
    await d.waitForURL(/notice=music-removed/);
    assert.equal(await d.locator('audio.music-preview').count(), 0);
    await settings.close();
    assert.deepEqual(consoleErrors, []);
  });
});
