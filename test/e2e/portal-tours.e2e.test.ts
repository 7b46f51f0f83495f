// docs/api.md §28 in a real browser (Debian's chromium through playwright-core, the app listening on
// a free port): the client's portal (a page of 24 galleries, then the next by its plain link) and a
// gallery with tours on the client gallery page and both property pages, at 390 and 1280 px, with
// and without JavaScript, checked with axe-core (no serious or critical violation), for sideways
// scroll on a phone, for CSP violations, and for requests to any site but this one and the tour
// players (answered here by a stand-in page: the test machine has no network).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, createAccount, createTestContext, type TestContext } from '../support/test-app.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { publish, type PropertyPageJson } from '../support/property.ts';
import {
  assertAccessible,
  assertFitsPhone,
  inPage,
  launchChromium,
  SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const shots = path.join(SHOTS, 'portal-tours');
const PLAYERS = ['my.matterport.com', 'www.youtube-nocookie.com'];

const CSP_RECORDER = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  });`;

describe('the portal and tours in a browser', { skip: skipWithoutChromium }, () => {
  let ctx: TestContext;
  let base: string;
  let browser: Browser;
  let portal: string;
  let gallery: string;
  let property: PropertyPageJson;
  const errors: string[] = [];

  function watch(p: Page): void {
    watchConsole(p, errors);
    p.on('request', (request) => {
      const url = request.url();
      const host = /^https?:\/\/([^/]+)/.exec(url)?.[1] ?? '';
      if (!url.startsWith(`${base}/`) && !PLAYERS.includes(host) && !/^(about|blob|data):/.test(url)) {
        errors.push(`a request to ${url}`);
      }
    });
  }

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    const me = await createAccount(ctx, 'Harbour Light Studio');
    const client = (
      await call(ctx, 'POST', '/v1/clients', { key: me.key, body: { name: 'Ann Lee', email: 'ann@harbour.test' } })
    ).json<{ id: string; portal_url: string }>();
    const streets = ['Quay St', 'Lantern Row', 'Harbour Rd', 'Mill Lane', 'Chapel Walk', 'Sea View Terrace'];
    let toured = '';
    for (let i = 0; i < 30; i++) {
      const status = i % 7 === 3 ? 'draft' : i % 11 === 5 ? 'archived' : 'active';
      const g = (
        await call(ctx, 'POST', '/v1/listings', {
          key: me.key,
          body: {
            address: `${i + 1} ${streets[i % streets.length]}, Port Ellis`,
            beds: 2 + (i % 3),
            baths: 1 + (i % 2),
            sqft: 900 + i * 37,
            status,
          },
        })
      ).json<{ id: string }>();
      if (i >= 22) {
        await uploaded(ctx, me.key, g.id, [
          { filename: `front-${i}.jpg`, contentType: 'image/jpeg', data: await sceneJpeg(960, 640, (i * 47) % 360) },
        ]);
      }
      const assigned = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${g.id}`, {
        key: me.key,
        query: { notify: 'false' },
      });
      assert.equal(assigned.statusCode, 200, assigned.body);
      if (i === 27) {
        await call(ctx, 'PATCH', `/v1/listings/${g.id}/client_link`, {
          key: me.key,
          body: { password: 'a long secret' },
        });
      }
      if (i === 29) toured = g.id;
    }
    await makeVariantsNow(ctx);
    const set = await call(ctx, 'PATCH', `/v1/listings/${toured}`, {
      key: me.key,
      body: {
        description: 'A bright terrace a short walk from the harbour.',
        tours: [
          { url: 'https://my.matterport.com/show/?m=SxQL3iGyoDo', label: '3D walkthrough', unbranded: true },
          { url: 'https://youtu.be/dQw4w9WgXcQ', label: 'The film', unbranded: false },
          { url: 'https://tours.example.com/30-sea-view', label: 'Floor plan and measurements', unbranded: true },
        ],
      },
    });
    assert.equal(set.statusCode, 200, set.body);
    gallery = new URL(set.json<{ client_link: { url: string } }>().client_link.url).pathname;
    const published = await publish(ctx, me.key, toured);
    assert.equal(published.statusCode, 200, published.body);
    property = published.json<{ property_page: PropertyPageJson }>().property_page;
    portal = new URL(client.portal_url).pathname;
    browser = await launchChromium();
    await mkdir(shots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  async function check(p: Page, name: string, phone: boolean, js: boolean): Promise<void> {
    // Through the page a screen at a time, as a reader scrolls: every lazy image comes into range and
    // loads. (A jump to the bottom skipped the middle cards, and decode() of a lazy image that never
    // started loading never settles: the hang of the first run.)
    const height = Number(await inPage(p, 'String(document.documentElement.scrollHeight)'));
    for (let y = 0; y < height; y += Math.floor((phone ? PHONE : DESKTOP).height / 2)) {
      await p.evaluate(`window.scrollTo(0, ${y})`);
    }
    await p.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await p.waitForLoadState('networkidle');
    await p.evaluate('window.scrollTo(0, 0)');
    // Bounded: an image that never loads is reported below by name, not a test that hangs. With
    // JavaScript off no timer of the page fires (and Chrome loads lazy images at once): the load
    // state above is the wait.
    if (js) {
      await p.evaluate(
        `Promise.race([
          Promise.all([...document.images].map((i) => i.decode().catch(() => undefined))),
          new Promise((resolve) => setTimeout(resolve, 15000)),
        ])`,
      );
    }
    const broken = await inPage(
      p,
      `JSON.stringify([...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src))`,
    );
    assert.equal(broken, '[]', `${name}: images that did not load`);
    // axe-core waits on the page's timers, which never fire with JavaScript off (the hang of the
    // second run); the markup is the server's either way, so the JavaScript runs check it.
    if (js) await assertAccessible(p, name);
    if (phone) await assertFitsPhone(p);
    if (js) assert.equal(await inPage(p, 'JSON.stringify(window.__cspViolations || [])'), '[]', `${name}: CSP`);
    await p.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  }

  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    for (const js of [true, false]) {
      const tag = `${size}-${js ? 'js' : 'nojs'}`;
      test(`the portal, its second page, and the pages with tours at ${size} width, JavaScript ${js ? 'on' : 'off'}`, async () => {
        const context = await browser.newContext({
          viewport,
          javaScriptEnabled: js,
          ...(size === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
        });
        // The players, as a stand-in (no network here): what matters is that the page may frame them.
        await context.route(/^https:\/\/(my\.matterport\.com|www\.youtube-nocookie\.com)\//, (route) =>
          route.fulfill({
            contentType: 'text/html',
            body: '<!doctype html><title>Player</title><body style="margin:0;display:grid;place-items:center;height:100vh;background:#333;color:#eee;font:20px sans-serif">Tour player</body>',
          }),
        );
        try {
          const p = await context.newPage();
          watch(p);
          await p.addInitScript(CSP_RECORDER);
          assert.equal((await p.goto(`${base}${portal}`, { waitUntil: 'load' }))?.status(), 200);
          const cards = Number(await inPage(p, `document.querySelectorAll('.portal-card').length`));
          assert.equal(cards, 24, 'a page of 24');
          const first = await inPage(p, `document.querySelector('.portal-card h2').textContent.trim()`);
          assert.equal(first, '30 Sea View Terrace, Port Ellis', 'newest first');
          await check(p, `portal-${tag}`, size === 'phone', js);
          // The next page by its plain link.
          await p.locator('a[rel="next"]').click();
          await p.waitForLoadState('load');
          assert.equal(Number(await inPage(p, `document.querySelectorAll('.portal-card').length`)), 6);
          await check(p, `portal-page2-${tag}`, size === 'phone', js);
          // A card opens its gallery.
          await p.goto(`${base}${portal}`, { waitUntil: 'load' });
          await p.locator('.portal-card h2 a').first().click();
          await p.waitForLoadState('load');
          assert.equal(new URL(p.url()).pathname, gallery);

          for (const [name, url, frames] of [
            ['gallery', `${base}${gallery}`, 2],
            ['property', property.url, 2],
            ['unbranded', property.unbranded_url, 1],
          ] as const) {
            const response = await p.goto(url, { waitUntil: 'load' });
            assert.equal(response?.status(), 200, name);
            assert.equal(Number(await inPage(p, `document.querySelectorAll('.tour iframe').length`)), frames, name);
            assert.equal(Number(await inPage(p, `document.querySelectorAll('.tour--link a').length`)), 1, name);
            // Scrolled into view, each lazy frame loads its player (the stand-in), which the CSP allows.
            await p.locator('.tours').scrollIntoViewIfNeeded();
            for (const frame of await p.locator('.tour iframe').all()) {
              await frame.scrollIntoViewIfNeeded();
              await frame.contentFrame().locator('text=Tour player').waitFor({ timeout: 10_000 });
            }
            await check(p, `${name}-tours-${tag}`, size === 'phone', js);
          }
        } finally {
          await context.close();
        }
        assert.deepEqual(errors, []);
      });
    }
  }
});
