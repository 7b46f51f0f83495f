// The client gallery (docs/api.md §14) in a real browser (Debian's chromium driven by playwright-core)
// against the real app listening on a free port, with its background jobs running (photo
// variants, notification emails to the file mailer): a studio builds a gallery through the API
// (photos in a chosen order, one hidden, a video, a PDF), assigns it, and the client opens the
// link taken from the .eml file. The page is checked with and without JavaScript, at phone and
// desktop sizes: order, the viewer (click, ArrowRight, Escape), the video playing, an original
// and the ZIP downloaded and compared byte for byte, the empty gallery, the 404 page. Any
// console error or Content-Security-Policy violation fails the test. Screenshots go to
// test-results/screenshots/gallery-*.png (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import PostalMime from 'postal-mime';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startJobs, type Jobs } from '../../src/jobs.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { multipart, pdf, type Part } from '../support/media-fixtures.ts';
import { eventually, sha256, type MediaJson } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import {
  SHOTS,
  inPage,
  launchChromium,
  skipWithoutChromium,
  watchConsole as watchBrowserConsole,
} from '../support/e2e-browser.ts';

const run = promisify(execFile);
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const skip = skipWithoutChromium;

let ctx: TestContext;
let jobs: Jobs;
let base: string;
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let page: Page;
let phone: Page;
let account: TestAccount;
/** What the browser's console said was wrong, on any page, since the last check. */
const consoleErrors: string[] = [];
const jobErrors: string[] = [];

/** The gallery the client receives, as built in the first test. */
const gallery = {
  id: '',
  link: '',
  /** Visible media ids in position order, by kind. */
  photos: [] as string[],
  hidden: '',
  cover: '',
  video: '',
  document: '',
  /** Every original uploaded, by media id. */
  originals: new Map<string, { filename: string; data: Buffer }>(),
  /** Visible ids in position order (all kinds): what the ZIP holds. */
  visible: [] as string[],
};

/**
 * Console errors and uncaught exceptions (the shared watch), CSP violations (reported by the page
 * itself through an init script, below), and any request to another site.
 */
function watchConsole(p: Page): void {
  watchBrowserConsole(p, consoleErrors);
  // Nothing is loaded from another site (what the CSP would block, and what it would let by).
  p.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${base}/`) && !/^(about|blob|data):/.test(url)) consoleErrors.push(`a request to ${url}`);
  });
}

/** Runs in every document before its own scripts: records each CSP violation where the test can read it. */
const CSP_RECORDER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  });`;

async function cspViolations(p: Page): Promise<string[]> {
  return JSON.parse(await inPage(p, 'JSON.stringify(window.__cspViolations || [])')) as string[];
}

async function shot(p: Page, name: string, fullPage = true): Promise<void> {
  const size = p.viewportSize()?.width === PHONE.width ? 'phone' : 'desktop';
  await p.screenshot({ path: path.join(SHOTS, `gallery-${size}-${name}.png`), fullPage });
}

/** An attribute of every element a selector finds, in page order (works with page JavaScript off). */
async function attributes(p: Page, selector: string, name: string): Promise<string[]> {
  // Typed by hand: this project's TypeScript has no DOM types.
  type Tagged = { getAttribute(attribute: string): string | null };
  return p
    .locator(selector)
    .evaluateAll((elements: Tagged[], attribute: string) => elements.map((e) => e.getAttribute(attribute) ?? ''), name);
}

async function api(method: string, url: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${account.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function apiJson<T>(method: string, url: string, body?: unknown, status = 200): Promise<T> {
  const res = await api(method, url, body);
  const text = await res.text();
  assert.equal(res.status, status, `${method} ${url}: ${text}`);
  return JSON.parse(text) as T;
}

/** Uploads over HTTP, as a studio's software would; returns the created media. */
async function upload(listingId: string, parts: Part[]): Promise<MediaJson[]> {
  const { body, contentType } = multipart(parts);
  const res = await fetch(`${base}/v1/listings/${listingId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': contentType },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  const created = (JSON.parse(text) as { data: MediaJson[] }).data;
  created.forEach((m, i) => gallery.originals.set(m.id, { filename: m.filename, data: Buffer.from(parts[i]!.data) }));
  return created;
}

/**
 * A short WebM (VP8) that chromium plays: a moving square on a canvas, recorded in the browser
 * itself with MediaRecorder (no ffmpeg on the machine, no binary fixture in the repository).
 */
async function recordWebm(p: Page): Promise<Buffer> {
  const encoded = await inPage(
    p,
    `(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 320;
      canvas.height = 180;
      const g = canvas.getContext('2d');
      const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
      const chunks = [];
      recorder.ondataavailable = (e) => chunks.push(e.data);
      const stopped = new Promise((resolve) => (recorder.onstop = resolve));
      recorder.start();
      for (let frame = 0; frame < 40; frame++) {
        g.fillStyle = '#1f4e5f';
        g.fillRect(0, 0, 320, 180);
        g.fillStyle = '#f2c14e';
        g.fillRect(20 + frame * 6, 60, 60, 60);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      recorder.stop();
      await stopped;
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let binary = '';
      for (const b of bytes) binary += String.fromCharCode(b);
      return btoa(binary);
    })()`,
  );
  return Buffer.from(encoded, 'base64');
}

/** The link in the text part of the notification email sent for this gallery link. */
async function linkFromEmail(expected: string): Promise<string> {
  let link = '';
  await eventually(async () => {
    const dir = path.join(ctx.dataDir, 'outbox');
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml'));
    for (const file of files) {
      const email = await PostalMime.parse(await readFile(path.join(dir, file)));
      const lines = (email.text ?? '').split('\n').map((l) => l.trim());
      const found = lines.find((l) => l === expected);
      if (found !== undefined) link = found;
    }
    assert.notEqual(link, '', `no email in the outbox carries ${expected}`);
  }, 20_000);
  return link;
}

/** The media ids the page's grid shows, in page order (from each thumbnail's URL). */
async function gridIds(p: Page): Promise<string[]> {
  const srcs = JSON.parse(
    await inPage(
      p,
      `JSON.stringify([...document.querySelectorAll('#photo-grid img')].map((i) => i.getAttribute('src')))`,
    ),
  ) as string[];
  // The media id: the last segment of the path, without the version (`?v=`).
  return srcs.map((src) => src.split('?')[0]!.split('/').pop() ?? '');
}

/** Every image on the page has loaded (lazy ones scrolled into view first). */
async function allImagesLoaded(p: Page): Promise<void> {
  await p.evaluate('window.scrollTo(0, document.body.scrollHeight)');
  await eventually(async () => {
    const pending = await inPage(
      p,
      `[...document.images].filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src).join(' ')`,
    );
    assert.equal(pending, '', 'images not loaded');
  });
  await p.evaluate('window.scrollTo(0, 0)');
}

/** The path of the large photo the open viewer shows, once it has loaded. */
async function viewerPhoto(p: Page): Promise<string> {
  let src = '';
  await eventually(async () => {
    src = await inPage(
      p,
      `(() => {
        const img = document.querySelector('.pswp__item[aria-hidden="false"] img.pswp__img:not(.pswp__img--placeholder)');
        return img && img.complete && img.naturalWidth > 0 ? new URL(img.src).pathname : '';
      })()`,
    );
    assert.notEqual(src, '', 'the large photo is not shown');
    // The opening fade has ended (what a screenshot should show).
    assert.equal(await inPage(p, `getComputedStyle(document.querySelector('.pswp')).opacity`), '1');
    // The backdrop is opaque black: nothing of the page shows through around the photo.
    assert.equal(await inPage(p, `getComputedStyle(document.querySelector('.pswp__bg')).opacity`), '1');
    assert.equal(
      await inPage(p, `getComputedStyle(document.querySelector('.pswp__bg')).backgroundColor`),
      'rgb(0, 0, 0)',
    );
  });
  return src;
}

async function waitForVariants(listingId: string): Promise<void> {
  await eventually(async () => {
    const { data } = await apiJson<{ data: MediaJson[] }>('GET', `/v1/listings/${listingId}/media`);
    // Photos' sizes and the video's poster and web rendition (docs/api.md §25).
    const waiting = data.filter((m) => m.kind !== 'document' && m.variants?.status !== 'ready');
    assert.deepEqual(
      waiting.map((m) => `${m.filename}: ${m.variants?.status}`),
      [],
    );
  }, 60_000);
}

/** Assigns the gallery to a new client; returns the link the API reports (the email must carry it). */
async function assignToClient(listingId: string, name: string): Promise<string> {
  const client = await apiJson<{ id: string }>(
    'POST',
    '/v1/clients',
    { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@client.example` },
    201,
  );
  const assigned = await apiJson<{ client_link: { url: string } | null }>(
    'POST',
    `/v1/clients/${client.id}/listings/${listingId}`,
  );
  assert.ok(assigned.client_link !== null);
  return assigned.client_link.url;
}

describe('the client gallery in a browser', { skip }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // No SMTP_URL: the file mailer writes each email to DATA_DIR/outbox as an .eml file.
    ctx = await createTestContext({ PUBLIC_URL: base, GALLERY_RATE_LIMIT_PER_MINUTE: '100000' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    // The serve process's jobs, in this server: photo variants and notification emails.
    jobs = startJobs(ctx.deps, ctx.services, {
      info: () => undefined,
      warn: (obj, msg) => jobErrors.push(`${msg} ${JSON.stringify(obj)}`),
      error: (obj, msg) => jobErrors.push(`${msg} ${JSON.stringify(obj)}`),
    });
    account = await createAccount(ctx, 'Harbour Light Studio');
    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    mobile = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    for (const c of [desktop, mobile]) await c.addInitScript(CSP_RECORDER);
    page = await desktop.newPage();
    phone = await mobile.newPage();
    watchConsole(page);
    watchConsole(phone);
  });

  // Every page of every test: no console error, no CSP violation.
  afterEach(async () => {
    const seen = consoleErrors.splice(0);
    assert.deepEqual(seen, [], 'the browser console reported errors');
    for (const p of [page, phone]) {
      if (p.url().startsWith(base)) assert.deepEqual(await cspViolations(p), [], `CSP violations on ${p.url()}`);
    }
  });

  after(async () => {
    await browser?.close();
    await jobs?.stop();
    await ctx?.close();
  });

  test('the studio builds a gallery through the API; the client link arrives by email', async () => {
    const listing = await apiJson<{ id: string }>(
      'POST',
      '/v1/listings',
      {
        address: '14 Lighthouse Lane, Port Ellen',
        beds: 4,
        baths: 2.5,
        sqft: 2380,
        description:
          'A bright harbour-front house with a walled garden and views to the lighthouse.\nPhotographed on a clear October morning.',
      },
      201,
    );
    gallery.id = listing.id;

    const sizes: [number, number][] = [
      [2400, 1600],
      [1600, 2400],
      [2400, 1600],
      [2400, 1350],
      [2000, 2000],
      [2400, 1600],
      [2400, 1600],
    ];
    const photos = await Promise.all(sizes.map(([w, h], i) => sceneJpeg(w, h, i * 47)));
    const uploadedPhotos = await upload(
      listing.id,
      photos.map((data, i) => ({ filename: `room-${i + 1}.jpg`, contentType: 'image/jpeg', data })),
    );
    const hiddenPhoto = await sceneJpeg(1200, 800, 180);
    const [hidden] = await upload(listing.id, [
      { filename: 'outtake.jpg', contentType: 'image/jpeg', data: hiddenPhoto },
    ]);
    const [video] = await upload(listing.id, [
      { filename: 'walkthrough.webm', contentType: 'video/webm', data: await recordWebm(page) },
    ]);
    const [document] = await upload(listing.id, [
      { filename: 'floor-plan.pdf', contentType: 'application/pdf', data: pdf('Floor plan, 14 Lighthouse Lane') },
    ]);
    assert.ok(hidden !== undefined && video !== undefined && document !== undefined);
    assert.equal(video.kind, 'video');
    assert.equal(document.kind, 'document');
    gallery.hidden = hidden.id;
    gallery.video = video.id;
    gallery.document = document.id;

    // A chosen order that is not the upload order; the hidden photo in the middle of it.
    const ids = uploadedPhotos.map((m) => m.id);
    const order = [ids[4]!, ids[0]!, ids[2]!, hidden.id, ids[1]!, ids[6]!, ids[3]!, ids[5]!, video.id, document.id];
    await apiJson('PUT', `/v1/listings/${listing.id}/media/order`, { media_ids: order });
    await apiJson('PATCH', `/v1/listings/${listing.id}/media/${hidden.id}`, { hidden: true });
    await apiJson('PATCH', `/v1/listings/${listing.id}/media/${ids[0]!}`, {
      caption: 'The sitting room at first light',
    });
    await apiJson('PATCH', `/v1/listings/${listing.id}/media/${ids[2]!}`, { caption: 'Kitchen & garden doors' });
    // The cover: a photo that is not the first.
    await apiJson('PATCH', `/v1/listings/${listing.id}`, { cover_media_id: ids[3]! });
    gallery.cover = ids[3]!;
    gallery.visible = order.filter((id) => id !== hidden.id);
    gallery.photos = gallery.visible.filter((id) => id !== video.id && id !== document.id);

    await waitForVariants(listing.id);
    const url = await assignToClient(listing.id, 'Ann Lee');
    gallery.link = await linkFromEmail(url);
    assert.match(gallery.link, new RegExp(`^${base}/g/[A-Za-z0-9_-]{22,}$`));
    assert.deepEqual(jobErrors, []);
  });

  test('the page shows the studio, the address and facts, the cover, then every visible photo in order', async () => {
    for (const p of [page, phone]) {
      const res = await p.goto(gallery.link);
      assert.equal(res?.status(), 200);
      const csp = res?.headers()['content-security-policy'] ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);

      assert.equal(await p.getByRole('heading', { level: 1 }).textContent(), '14 Lighthouse Lane, Port Ellen');
      await p.getByText('Harbour Light Studio', { exact: true }).first().waitFor();
      await p.getByText('4 beds · 2.5 baths · 2,380 sq ft').waitFor();
      await p.getByText('Photographed on a clear October morning.').waitFor();
      // The versioned URL (?v=): the page names the bytes, so the browser may keep them.
      const cover = await inPage(p, `document.querySelector('.hero img')?.getAttribute('src') ?? ''`);
      assert.match(cover, new RegExp(`^${new URL(gallery.link).pathname}/large/${gallery.cover}\\?v=[\\w-]+$`));

      assert.deepEqual(await gridIds(p), gallery.photos, 'thumbnails in position order, the hidden one left out');
      const html = await p.content();
      assert.ok(!html.includes(gallery.hidden), 'the hidden photo is nowhere on the page');
      // Every thumbnail has its size set (no layout shift) and all but the first few load lazily.
      const sized = await inPage(
        p,
        `[...document.querySelectorAll('#photo-grid img')].every((i) => +i.getAttribute('width') > 0 && +i.getAttribute('height') > 0)`,
      );
      assert.equal(sized, 'true');
      const loading = await attributes(p, '#photo-grid img', 'loading');
      assert.equal(loading[0], 'eager', 'the first row is not held back');
      assert.equal(loading.at(-1), 'lazy', 'photos far down the page load when scrolled to');
      await allImagesLoaded(p);
      const overflow = await inPage(p, 'document.documentElement.scrollWidth - window.innerWidth');
      assert.ok(Number(overflow) <= 0, `the page is ${overflow} px wider than the window`);
      await shot(p, 'page');
      await shot(p, 'top', false);
      await p.locator('#photo-grid').scrollIntoViewIfNeeded();
      await shot(p, 'grid', false);
    }
  });

  test('a thumbnail opens the large photo in the viewer; ArrowRight moves on, Escape closes', async () => {
    for (const p of [page, phone]) {
      await p.goto(gallery.link);
      const links = p.locator('#photo-grid a.tile__link');
      await links.nth(1).click();
      const viewer = p.locator('.pswp');
      await viewer.waitFor();
      const current = () => viewerPhoto(p);
      const link = (id: string) => `${new URL(gallery.link).pathname}/large/${id}`;
      assert.equal(await current(), link(gallery.photos[1]!));
      assert.equal(await p.locator('.pswp__counter').textContent(), `2 / ${gallery.photos.length}`);
      await p.locator('.pswp__custom-caption').getByText('The sitting room at first light').waitFor();
      await shot(p, 'viewer', false);

      await p.keyboard.press('ArrowRight');
      await eventually(async () => assert.equal(await current(), link(gallery.photos[2]!)));
      assert.equal(await p.locator('.pswp__counter').textContent(), `3 / ${gallery.photos.length}`);
      await p.locator('.pswp__custom-caption').getByText('Kitchen & garden doors').waitFor();

      await p.keyboard.press('Escape');
      await viewer.waitFor({ state: 'detached' });
    }
  });

  test('the video plays in the page', async () => {
    for (const p of [page, phone]) {
      const ranges: string[] = [];
      p.on('response', (response) => {
        if (response.url().includes(`/media/${gallery.video}/play`)) {
          ranges.push(`${response.status()} ${response.headers()['content-range'] ?? ''}`);
        }
      });
      await p.goto(gallery.link);
      const video = p.locator('video');
      await video.scrollIntoViewIfNeeded();
      assert.equal(
        new URL(await inPage(p, `document.querySelector('video').currentSrc`)).pathname,
        `${new URL(gallery.link).pathname}/media/${gallery.video}/play`,
      );
      await p.evaluate(`(() => { const v = document.querySelector('video'); v.muted = true; return v.play(); })()`);
      await eventually(async () => {
        const state = JSON.parse(
          await inPage(
            p,
            `(() => { const v = document.querySelector('video'); return JSON.stringify({ ready: v.readyState, time: v.currentTime, error: v.error && v.error.message }); })()`,
          ),
        ) as { ready: number; time: number; error: string | null };
        assert.equal(state.error, null);
        assert.ok(state.ready >= 2 && state.time > 0, `video not playing: ${JSON.stringify(state)}`);
      });
      await p.evaluate(`document.querySelector('video').pause()`);
      // The browser asked for byte ranges, and the server answered them: of the web rendition the
      // WebM was made into (docs/api.md §25).
      const media = await apiJson<{ variants: { web: { size: number } | null } }>('GET', `/v1/listings/${gallery.id}/media/${gallery.video}`); // prettier-ignore
      const size = media.variants.web?.size ?? gallery.originals.get(gallery.video)!.data.length;
      assert.ok(
        ranges.some((r) => new RegExp(`^206 bytes \\d+-\\d+/${size}$`).test(r)),
        `no 206 among ${ranges.join(', ')}`,
      );
      await shot(p, 'video', false);
    }
  });

  test('an original and the whole gallery download, byte for byte', async () => {
    await page.goto(gallery.link);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-gallery-'));
    try {
      // The floor plan, from its link in the page.
      const plan = gallery.originals.get(gallery.document)!;
      const [planDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: /floor-plan\.pdf/ }).click(),
      ]);
      assert.equal(planDownload.suggestedFilename(), 'floor-plan.pdf');
      const planPath = path.join(dir, 'plan.pdf');
      await planDownload.saveAs(planPath);
      assert.equal(sha256(await readFile(planPath)), sha256(plan.data));

      // A photo's original, from the viewer's download button.
      await page.locator('#photo-grid a.tile__link').first().click();
      await page.locator('.pswp').waitFor();
      assert.equal(await viewerPhoto(page), `${new URL(gallery.link).pathname}/large/${gallery.photos[0]!}`);
      const first = gallery.originals.get(gallery.photos[0]!)!;
      const [photoDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('.pswp__button--download').click(),
      ]);
      assert.equal(photoDownload.suggestedFilename(), first.filename);
      const photoPath = path.join(dir, 'photo.jpg');
      await photoDownload.saveAs(photoPath);
      assert.equal(sha256(await readFile(photoPath)), sha256(first.data));
      await page.keyboard.press('Escape');
      await page.locator('.pswp').waitFor({ state: 'detached' });

      // Download all: one ZIP of every visible original, in position order.
      const [zipDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: /Download all/ }).click(),
      ]);
      const zipPath = path.join(dir, 'gallery.zip');
      await zipDownload.saveAs(zipPath);
      assert.equal(await zipDownload.failure(), null);
      const { stdout: names } = await run('unzip', ['-Z1', zipPath]);
      const expected = gallery.visible.map((id) => gallery.originals.get(id)!);
      assert.deepEqual(
        names.split('\n').filter((n) => n !== ''),
        expected.map((o) => o.filename),
      );
      await run('unzip', ['-q', zipPath, '-d', path.join(dir, 'out')]);
      for (const original of expected) {
        const extracted = await readFile(path.join(dir, 'out', original.filename));
        assert.equal(sha256(extracted), sha256(original.data), original.filename);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('without JavaScript the page still shows every thumbnail and every download', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const plain = await browser.newContext({ viewport, javaScriptEnabled: false });
      try {
        const p = await plain.newPage();
        watchConsole(p);
        await p.goto(gallery.link);
        const token = new URL(gallery.link).pathname;
        // What is on the page, read from the DOM through the browser's own engine (Playwright's
        // locators work with page JavaScript off).
        const thumbs = await attributes(p, '#photo-grid img', 'src');
        assert.deepEqual(
          thumbs.map((src) => src.split('?')[0]!.split('/').pop()),
          gallery.photos,
        );
        const largeLinks = await attributes(p, '#photo-grid a.tile__link', 'href');
        assert.deepEqual(
          largeLinks,
          gallery.photos.map((id) => `${token}/photo/${id}`),
        );
        const downloads = await attributes(p, 'a[href$="/download"]', 'href');
        for (const id of gallery.visible) {
          assert.ok(downloads.includes(`${token}/media/${id}/download`), `no download link for ${id}`);
        }
        await p.getByRole('link', { name: /Download all/ }).waitFor();
        await p.locator('video').waitFor();
        await shot(p, 'no-js');
        // A thumbnail is a plain link to the photo's page: the large variant, sized to the
        // screen, with the next photo and the original a click away.
        await p.locator('#photo-grid a.tile__link').nth(1).click();
        await p.waitForURL(`${base}${token}/photo/${gallery.photos[1]!}`);
        const large = p.locator('main img');
        assert.equal((await large.getAttribute('src'))?.split('?')[0], `${token}/large/${gallery.photos[1]!}`);
        const box = await large.boundingBox();
        assert.ok(
          box !== null && box.width <= viewport.width && box.height <= viewport.height,
          'the photo fits the screen',
        );
        await p.getByText('The sitting room at first light').waitFor();
        await p.getByRole('link', { name: /Original/ }).waitFor();
        await shot(p, 'no-js-photo', false);
        await p.getByRole('link', { name: /Next/ }).click();
        await p.waitForURL(`${base}${token}/photo/${gallery.photos[2]!}`);
        await p.getByRole('link', { name: /14 Lighthouse Lane/ }).click();
        await p.waitForURL(`${base}${token}#photo-${gallery.photos[2]!}`);
      } finally {
        await plain.close();
      }
    }
  });

  test('a gallery with no visible media says so', async () => {
    const listing = await apiJson<{ id: string }>('POST', '/v1/listings', { address: '3 Quay Street' }, 201);
    const [only] = await upload(listing.id, [
      { filename: 'not-yet.jpg', contentType: 'image/jpeg', data: await sceneJpeg(600, 400, 90) },
    ]);
    await apiJson('PATCH', `/v1/listings/${listing.id}/media/${only!.id}`, { hidden: true });
    const link = await linkFromEmail(await assignToClient(listing.id, 'Bo Quay'));
    for (const p of [page, phone]) {
      const res = await p.goto(link);
      assert.equal(res?.status(), 200);
      await p.getByText(/nothing in this gallery yet/).waitFor();
      assert.equal(await p.locator('#photo-grid').count(), 0);
      assert.equal(await p.getByRole('link', { name: /Download all/ }).count(), 0);
      assert.ok(!(await p.content()).includes(only!.id));
      await shot(p, 'empty');
    }
  });

  test('an unknown link and a replaced one answer the same plain 404 page', async () => {
    const unknown = `${base}/g/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    for (const p of [page, phone]) {
      const res = await p.goto(unknown);
      assert.equal(res?.status(), 404);
      assert.equal(await p.getByRole('heading', { level: 1 }).textContent(), 'This gallery is no longer available');
      await shot(p, '404');
    }
    const unknownPage = await (await fetch(unknown)).text();

    // The studio replaces the link: the one in the email stops at once, with the same page.
    await apiJson('POST', `/v1/listings/${gallery.id}/client_link`);
    const res = await page.goto(gallery.link);
    assert.equal(res?.status(), 404);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This gallery is no longer available');
    assert.equal(await (await fetch(gallery.link)).text(), unknownPage);
    assert.deepEqual(jobErrors, []);
  });
});
