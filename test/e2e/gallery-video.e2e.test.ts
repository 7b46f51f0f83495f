// Videos on the client gallery page in a real browser (docs/api.md §25), at phone and desktop
// sizes, with the app's own variants job running: a video whose original browsers cannot play
// well (MPEG-4 Part 2) shows its poster and plays its H.264 web rendition; one that already is an
// H.264/AAC faststart MP4 shows its poster and plays the original. The photo viewer on a phone is
// opaque: the page never shows through around the photo (checked on the screenshot's pixels).
// Screenshots go to test-results/screenshots/gallery-video-*.png (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startJobs, type Jobs } from '../../src/jobs.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { multipart, type Part } from '../support/media-fixtures.ts';
import { eventually, type MediaJson } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { makeVideo } from '../support/videos.ts';
import { SHOTS, inPage, launchChromium, skipWithoutChromium, watchConsole } from '../support/e2e-browser.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let ctx: TestContext;
let jobs: Jobs;
let base: string;
let browser: Browser;
let contexts: { size: 'phone' | 'desktop'; context: BrowserContext; page: Page }[] = [];
/** A phone whose owner asked for less motion (iOS "Reduce Motion", Android "Remove animations"). */
let calmPhone: Page;
let account: TestAccount;
const consoleErrors: string[] = [];
const jobErrors: string[] = [];
let link = '';
const videos = { web: '', asIs: '' };
let webSize = 0;

async function api<T>(method: string, url: string, body?: unknown, status = 200): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${account.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.equal(res.status, status, `${method} ${url}: ${text}`);
  return JSON.parse(text) as T;
}

async function upload(listingId: string, parts: Part[]): Promise<MediaJson[]> {
  const { body, contentType } = multipart(parts);
  const res = await fetch(`${base}/v1/listings/${listingId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return (JSON.parse(text) as { data: MediaJson[] }).data;
}

async function shot(p: Page, size: string, name: string, fullPage = false): Promise<string> {
  const file = path.join(SHOTS, `gallery-video-${size}-${name}.png`);
  await p.screenshot({ path: file, fullPage });
  return file;
}

describe('videos on the client gallery page, in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    jobs = startJobs(ctx.deps, ctx.services, {
      info: () => undefined,
      warn: (obj, msg) => jobErrors.push(`${msg} ${JSON.stringify(obj)}`),
      error: (obj, msg) => jobErrors.push(`${msg} ${JSON.stringify(obj)}`),
    });
    account = await createAccount(ctx, 'Harbour Light Studio');
    browser = await launchChromium();
    const desktop = await browser.newContext({ viewport: DESKTOP });
    const mobile = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    contexts = [
      { size: 'phone', context: mobile, page: await mobile.newPage() },
      { size: 'desktop', context: desktop, page: await desktop.newPage() },
    ];
    const calm = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      reducedMotion: 'reduce',
    });
    calmPhone = await calm.newPage();
    for (const page of [...contexts.map((c) => c.page), calmPhone]) watchConsole(page, consoleErrors);
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await jobs?.stop();
    await ctx?.close();
  });

  test('the studio uploads photos and two videos; their variants are made in the background', async () => {
    const listing = await api<{ id: string }>('POST', '/v1/listings', { address: '3 Quay Row, Port Ellen' }, 201);
    await upload(
      listing.id,
      await Promise.all(
        [0, 1, 2].map(async (i) => ({
          filename: `room-${i}.jpg`,
          contentType: 'image/jpeg',
          data: await sceneJpeg(1800, 1200, i * 60),
        })),
      ),
    );
    const [web, asIs] = await upload(listing.id, [
      { filename: 'walkthrough.mp4', contentType: 'video/mp4', data: await makeVideo('mpeg4', { width: 640, height: 360, seconds: 3 }) }, // prettier-ignore
      { filename: 'drone.mp4', contentType: 'video/mp4', data: await makeVideo('h264-faststart', { width: 640, height: 360, seconds: 3 }) }, // prettier-ignore
    ]);
    videos.web = web!.id;
    videos.asIs = asIs!.id;
    await eventually(async () => {
      const { data } = await api<{ data: MediaJson[] }>('GET', `/v1/listings/${listing.id}/media`);
      assert.deepEqual(
        data.filter((m) => m.variants?.status !== 'ready').map((m) => m.filename),
        [],
      );
    }, 60_000);
    const made = await api<{ variants: { web: { size: number } | null } }>('GET', `/v1/listings/${listing.id}/media/${videos.web}`); // prettier-ignore
    const kept = await api<{ variants: { web: unknown } }>('GET', `/v1/listings/${listing.id}/media/${videos.asIs}`);
    assert.ok(made.variants.web !== null);
    assert.equal(kept.variants.web, null);
    webSize = made.variants.web.size;
    const client = await api<{ id: string }>('POST', '/v1/clients', { name: 'Ann Lee', email: 'ann@client.example' }, 201); // prettier-ignore
    const assigned = await api<{ client_link: { url: string } }>('POST', `/v1/clients/${client.id}/listings/${listing.id}?notify=false`); // prettier-ignore
    link = assigned.client_link.url;
    assert.deepEqual(jobErrors, []);
  });

  test('each video shows its poster, then plays: the web rendition, or the original that plays as it is', async () => {
    for (const { size, page: p } of contexts) {
      const posters: string[] = [];
      const plays: string[] = [];
      p.on('response', (r) => {
        if (r.url().includes('/poster/')) posters.push(`${r.status()} ${r.headers()['content-type']}`);
        if (r.url().includes('/play')) plays.push(`${r.status()} ${r.headers()['content-range'] ?? ''}`);
      });
      await p.goto(link);
      const first = p.locator('video').first();
      await first.scrollIntoViewIfNeeded();
      // The poster is shown before anything plays (preload none: no video bytes asked for yet).
      await eventually(() => Promise.resolve(assert.deepEqual(posters, ['200 image/jpeg', '200 image/jpeg'])));
      assert.equal(plays.length, 0, 'video bytes fetched before play');
      await p.evaluate('window.scrollTo(0, document.body.scrollHeight)');
      await shot(p, size, 'posters');
      await shot(p, size, 'page', true);

      for (const [id, expected] of [
        [videos.web, webSize],
        [videos.asIs, 0],
      ] as const) {
        const selector = `video[src$="/media/${id}/play"]`;
        await p.evaluate(
          `(() => { const v = document.querySelector('${selector}'); v.muted = true; return v.play(); })()`,
        );
        await eventually(async () => {
          const state = JSON.parse(
            await inPage(
              p,
              `(() => { const v = document.querySelector('${selector}'); return JSON.stringify({ ready: v.readyState, time: v.currentTime, error: v.error && v.error.message, w: v.videoWidth }); })()`,
            ),
          ) as { ready: number; time: number; error: string | null; w: number };
          assert.equal(state.error, null);
          assert.ok(state.ready >= 2 && state.time > 0.2, `${id} not playing: ${JSON.stringify(state)}`);
          assert.equal(state.w, 640);
        });
        await p.evaluate(`document.querySelector('${selector}').pause()`);
        if (expected > 0) {
          assert.ok(
            plays.some((r) => r.endsWith(`/${expected}`)),
            `the web rendition (${expected} bytes) was not what played: ${plays.join(', ')}`,
          );
        }
      }
      await p.locator(`video[src$="/media/${videos.web}/play"]`).scrollIntoViewIfNeeded();
      await shot(p, size, 'playing');
    }
  });

  test('the photo viewer on a phone is opaque: nothing of the page shows around the photo', async () => {
    for (const { size, page: p } of [...contexts, { size: 'phone-reduced-motion' as const, page: calmPhone }]) {
      await p.goto(link);
      // From the grid, scrolled down the page, as a client opens a photo.
      await p.locator('#photo-grid a.tile__link').nth(1).scrollIntoViewIfNeeded();
      await p.locator('#photo-grid a.tile__link').nth(1).click();
      await p.locator('.pswp').waitFor();
      await eventually(async () => {
        const loaded = await inPage(
          p,
          `(() => { const img = document.querySelector('.pswp__item[aria-hidden="false"] img.pswp__img:not(.pswp__img--placeholder)'); return img && img.complete && img.naturalWidth > 0 ? 'yes' : 'no'; })()`,
        );
        assert.equal(loaded, 'yes');
        assert.equal(await inPage(p, `getComputedStyle(document.querySelector('.pswp')).opacity`), '1');
      });
      const file = await shot(p, size, 'viewer');
      // The screenshot's rows above and below the photo (a 3:2 photo on a tall phone, or a wide
      // desktop's sides): every pixel is black, not the page's light background.
      const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const photoBox = JSON.parse(
        await inPage(
          p,
          `JSON.stringify(document.querySelector('.pswp__item[aria-hidden="false"] img.pswp__img:not(.pswp__img--placeholder)').getBoundingClientRect())`,
        ),
      ) as { top: number; bottom: number; left: number; right: number };
      const scale = info.width / (size === 'desktop' ? DESKTOP.width : PHONE.width);
      let light = 0;
      let counted = 0;
      for (let y = 0; y < info.height; y += 4) {
        for (let x = 0; x < info.width; x += 4) {
          const inside =
            y >= photoBox.top * scale - 4 &&
            y <= photoBox.bottom * scale + 4 &&
            x >= photoBox.left * scale - 4 &&
            x <= photoBox.right * scale + 4;
          // The toolbar's icons and counter are white on purpose: only the band where no control is.
          const controls = y < 60 * scale;
          if (inside || controls) continue;
          const i = (y * info.width + x) * 3;
          counted += 1;
          if (data[i]! + data[i + 1]! + data[i + 2]! > 3 * 40) light += 1;
        }
      }
      assert.ok(counted > 100, `too few pixels outside the photo to judge (${counted})`);
      assert.ok(light / counted < 0.01, `${light} of ${counted} pixels around the photo are light: the page shows through`); // prettier-ignore
      // Behind it the page is black and does not scroll; closed, the page is as it was.
      assert.equal(await inPage(p, `document.documentElement.classList.contains('viewer-open')`), 'true');
      assert.equal(await inPage(p, `getComputedStyle(document.documentElement).backgroundColor`), 'rgb(0, 0, 0)');
      await p.keyboard.press('Escape');
      await p.locator('.pswp').waitFor({ state: 'detached' });
      assert.equal(await inPage(p, `document.documentElement.classList.contains('viewer-open')`), 'false');
      assert.notEqual(await inPage(p, `getComputedStyle(document.body).overflow`), 'hidden');
    }
  });
});
