// The property pages (docs/api.md §25) in a real browser (Debian's chromium driven by
// playwright-core) against the real app listening on a free port: the branded page, the
// unbranded page and the embeddable view, at phone and desktop widths, with and without
// JavaScript; the photo viewer; the embeddable view framed by another site (another origin)
// while the pages themselves refuse to be. Any console error, CSP violation or request to another
// site fails the test. Screenshots go to PROPERTY_SHOTS (default test-results/screenshots/property).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, createTestContext, type TestContext } from '../support/test-app.ts';
import { pdf } from '../support/media-fixtures.ts';
import { makeVariantsNow, uploaded, type MediaJson } from '../support/media-helpers.ts';
import { patchMedia } from '../support/gallery-order.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { BRAND, brandedAccount, publish, type PropertyPageJson } from '../support/property.ts';
import {
  SHOTS,
  assertFitsPhone,
  inPage,
  launchChromium,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const shots = process.env.PROPERTY_SHOTS ?? path.join(SHOTS, 'property');

const CSP_RECORDER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  });`;

describe('property pages in a browser', { skip: skipWithoutChromium }, () => {
  let ctx: TestContext;
  let base: string;
  let browser: Browser;
  let pages: PropertyPageJson;
  let photos: MediaJson[];
  let hidden: MediaJson;
  let framer: Server;
  let framerBase: string;
  const errors: string[] = [];

  function watch(p: Page): void {
    watchConsole(p, errors);
    p.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${base}/`) && !url.startsWith(`${framerBase}/`) && !/^(about|blob|data):/.test(url)) {
        errors.push(`a request to ${url}`);
      }
    });
  }

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    const me = await brandedAccount(ctx);
    const created = await call(ctx, 'POST', '/v1/listings', {
      key: me.key,
      body: {
        address: '7 Lantern Row, Port Ellis',
        beds: 4,
        baths: 2.5,
        sqft: 2140,
        mls_number: 'MLS-88123',
        status: 'active',
        description:
          'A bright Victorian terrace a short walk from the harbour, with a walled south-facing garden, ' +
          'a kitchen opening onto the terrace and three double bedrooms under high ceilings.\n\n' +
          'Original fireplaces, a new roof and a cellar dry enough for a workshop.',
      },
    });
    const listingId = created.json<{ id: string }>().id;
    const parts = await Promise.all(
      [0, 40, 80, 120, 160, 200, 240, 280].map(async (hue, i) => ({
        filename: `room-${i + 1}.jpg`,
        contentType: 'image/jpeg',
        data: await sceneJpeg(i % 3 === 2 ? 1200 : 1600, i % 3 === 2 ? 1600 : 1067, hue),
      })),
    );
    const media = await uploaded(ctx, me.key, listingId, [
      ...parts,
      { filename: 'floor-plan.pdf', contentType: 'application/pdf', data: pdf('plan') },
    ]);
    hidden = media[3]!;
    assert.equal((await patchMedia(ctx, me.key, listingId, hidden.id, { hidden: true })).statusCode, 200);
    assert.equal(
      (await patchMedia(ctx, me.key, listingId, media[1]!.id, { caption: 'The garden in June' })).statusCode,
      200,
    );
    photos = media.filter((m) => m.kind === 'photo' && m.id !== hidden.id);
    await makeVariantsNow(ctx);
    const res = await publish(ctx, me.key, listingId);
    assert.equal(res.statusCode, 200, res.body);
    pages = res.json<{ property_page: PropertyPageJson }>().property_page;

    // Another site (another origin): a blog post with the oEmbed iframe, and one framing the page itself.
    const oembed = await call(ctx, 'GET', '/oembed', { query: { url: pages.unbranded_url } });
    const iframe = oembed.json<{ html: string }>().html;
    const framerPort = await freePort();
    framerBase = `http://localhost:${framerPort}`;
    framer = createServer((request, response) => {
      const body =
        request.url === '/page'
          ? `<iframe id="f" src="${pages.url}" width="600" height="400"></iframe>`
          : `<h1>A blog post</h1><p>Have a look:</p>${iframe}`;
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html><body style="font-family:sans-serif;margin:24px">${body}</body></html>`);
    });
    await new Promise<void>((resolve) => framer.listen(framerPort, '127.0.0.1', resolve));
    browser = await launchChromium();
    await mkdir(shots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => framer?.close(resolve));
    await ctx?.close();
  });

  const views = () =>
    [
      ['branded', pages.url],
      ['unbranded', pages.unbranded_url],
      ['embed', `${pages.url}/embed`],
    ] as const;

  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    for (const js of [true, false]) {
      test(`every view at ${size} width, JavaScript ${js ? 'on' : 'off'}`, async () => {
        const context = await browser.newContext({
          viewport,
          javaScriptEnabled: js,
          ...(size === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
        });
        try {
          for (const [name, url] of views()) {
            const p = await context.newPage();
            watch(p);
            await p.addInitScript(CSP_RECORDER);
            const response = await p.goto(url, { waitUntil: 'load' });
            assert.equal(response?.status(), 200, `${name}: ${url}`);
            // Scroll through so every lazy image loads, then check each one did.
            await p.evaluate('window.scrollTo(0, document.body.scrollHeight)');
            await p.waitForLoadState('networkidle');
            await p.evaluate('window.scrollTo(0, 0)');
            await p.evaluate('Promise.all([...document.images].map((i) => i.decode().catch(() => undefined)))');
            const broken = await inPage(
              p,
              `JSON.stringify([...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src))`,
            );
            assert.equal(broken, '[]', `${name}: images that did not load`);
            const shown = JSON.parse(
              await inPage(p, `JSON.stringify([...document.querySelectorAll('#photo-grid a')].map((a) => a.href))`),
            ) as string[];
            assert.ok(shown.length > 0, `${name}: no photos`);
            assert.ok(!shown.some((h) => h.includes(hidden.id)), `${name}: the hidden photo shows`);
            if (name !== 'embed') {
              assert.deepEqual(
                shown.map((h) => h.split('/').pop()),
                photos.map((m) => m.id),
                `${name}: every visible photo, in order`,
              );
            }
            const text = await inPage(p, 'document.body.innerText');
            assert.ok(text.includes('7 Lantern Row, Port Ellis'), name);
            assert.equal(
              text.toLowerCase().includes(BRAND.studio.toLowerCase()),
              name !== 'unbranded',
              `${name}: the studio's name`,
            );
            if (size === 'phone') await assertFitsPhone(p);
            if (js) {
              const violations = await inPage(p, 'JSON.stringify(window.__cspViolations || [])');
              assert.equal(violations, '[]', `${name}: CSP violations`);
            }
            await p.screenshot({ path: path.join(shots, `${name}-${size}-${js ? 'js' : 'nojs'}.png`), fullPage: true });
            if (js && name === 'branded') {
              // The viewer: the first photo opens large, the arrow moves on, Escape closes.
              await p.locator('#photo-grid a').first().click();
              await p.locator('.pswp--open').waitFor({ timeout: 10_000 });
              await p.waitForTimeout(400);
              await p.screenshot({ path: path.join(shots, `${name}-${size}-viewer.png`) });
              await p.keyboard.press('ArrowRight');
              await p.keyboard.press('Escape');
              await p.locator('.pswp--open').waitFor({ state: 'detached', timeout: 10_000 });
            }
            if (!js && name === 'branded') {
              // Without the script a photo opens its own page, and steps to the next.
              await p.locator('#photo-grid a').first().click();
              await p.waitForLoadState('load');
              assert.match(p.url(), /\/photo\/med_/);
              await p.screenshot({ path: path.join(shots, `${name}-${size}-photo-page.png`) });
              await p.locator('a[rel="next"]').click();
              await p.waitForLoadState('load');
              assert.ok(p.url().endsWith(`/photo/${photos[1]!.id}`), p.url());
            }
            await p.close();
          }
          assert.deepEqual(errors, []);
        } finally {
          await context.close();
        }
      });
    }
  }

  test('another site frames the embeddable view; the pages themselves refuse to be framed', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const p = await context.newPage();
      watchConsole(p, []);
      await p.goto(`${framerBase}/post`, { waitUntil: 'load' });
      const frame = p.frameLocator('iframe');
      await frame.locator('h1').waitFor({ timeout: 10_000 });
      assert.equal(await frame.locator('h1').textContent(), '7 Lantern Row, Port Ellis');
      await p.waitForLoadState('networkidle');
      await p.screenshot({ path: path.join(shots, 'embed-in-a-blog-post.png'), fullPage: true });

      const q = await context.newPage();
      await q.goto(`${framerBase}/page`, { waitUntil: 'load' });
      await q.waitForTimeout(500);
      const inner = q.frames().find((f) => f !== q.mainFrame());
      const framed = inner === undefined ? '' : await inner.evaluate('document.body ? document.body.innerText : ""');
      assert.ok(!String(framed).includes('7 Lantern Row'), 'the full page showed inside another site');
    } finally {
      await context.close();
    }
  });
});
