// docs/api.md §30 in a real browser (Debian's chromium through playwright-core), at 1280 and
// 390 px: the gallery page's grid shows each photo's analysis flags and its similar group, and
// "Apply suggested order" puts the photos in that order in one click; Studio settings' room order
// moves a room with its up and down buttons. Every page is checked by axe-core, fits the phone and
// logs no console error. Screenshots: test-results/screenshots/suggested-order/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { sceneJpeg } from '../support/photos.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  assertAccessible,
  assertFitsPhone,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'suggested-order');
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
let base: string;
let owner: TestAccount;
let galleryId = '';
let ids: string[] = [];
let browser: Browser;
let page: Page;
let phone: Page;
const consoleErrors: string[] = [];

async function signIn(p: Page): Promise<void> {
  await p.goto(`${base}/dashboard/sign-in`);
  await p.getByLabel('Email').fill(owner.email);
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${base}/dashboard`);
}

async function check(p: Page, name: string): Promise<void> {
  const label = `${p === phone ? 'phone' : 'desktop'}-${name}`;
  await assertAccessible(p, label);
  if (p === phone) await assertFitsPhone(p);
  await p.screenshot({ path: path.join(SHOTS, `${label}.png`), fullPage: true });
}

/** What the pixel stage records, written as its job would (the grouping included). */
async function analysed(id: string, a: { group?: string; best?: boolean; sharpness: number; tilt?: number }) {
  await ctx.deps.db.kysely
    .updateTable('media')
    .set({
      analysis_status: 'ready',
      analysis_phash: '0123456789abcdef',
      analysis_sharpness: a.sharpness,
      analysis_blurry: a.sharpness < 0.45 ? 1 : 0,
      analysis_tilt_degrees: a.tilt ?? 0,
      analysis_similar_group: a.group ?? null,
      analysis_best_in_group: (a.best ?? true) ? 1 : 0,
    })
    .where('id', '=', id)
    .execute();
}

const order = async () => (await ctx.services.media.list(owner.accountId, galleryId)).data.map((m) => m.id);

describe('the suggested order on the dashboard', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base, ANALYSIS: 'off' });
    await ctx.app.listen({ host: '127.0.0.1', port });
    owner = await createAccount(ctx, 'Harbour Light');
    const created = await call(ctx, 'POST', '/v1/listings', { key: owner.key, body: { address: '4 Order Quay' } });
    galleryId = created.json<{ id: string }>().id;
    const photos = await Promise.all([0, 1, 2, 3, 4].map((i) => sceneJpeg(480, 320, i * 57)));
    const media = await uploaded(
      ctx,
      owner.key,
      galleryId,
      photos.map((data, i) => ({ filename: `IMG_${4201 + i}.jpg`, contentType: 'image/jpeg', data })),
    );
    ids = media.map((m) => m.id);
    await makeVariantsNow(ctx);
    const [p1, p2, p3, p4, p5] = ids as [string, string, string, string, string];
    await analysed(p1, { group: 'sim_a', best: false, sharpness: 0.6 });
    await analysed(p2, { sharpness: 0.3, tilt: 3.2 });
    await analysed(p3, { group: 'sim_a', best: true, sharpness: 0.9 });
    await analysed(p4, { group: 'sim_b', best: true, sharpness: 0.8, tilt: -2.6 });
    await analysed(p5, { group: 'sim_b', best: false, sharpness: 0.7 });
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    phone = await (
      await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
    ).newPage();
    for (const p of [page, phone]) watchConsole(p, consoleErrors);
    await signIn(page);
    await signIn(phone);
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('the flags and groups at 1280 and 390 px, then one click applies the order', async () => {
    const [p1, p2, p3, p4, p5] = ids as [string, string, string, string, string];
    for (const p of [page, phone]) {
      await p.goto(`${base}/dashboard/galleries/${galleryId}#media`);
      await p.locator(`#m-${p3} img`).waitFor();
      assert.equal(await p.locator(`#m-${p2} .tile-flags`).innerText(), 'Blurry\nTilted 3.2°');
      assert.match(await p.locator(`#m-${p3} .tile-flags`).innerText(), /Similar A · best/);
      assert.match(await p.locator(`#m-${p5} .tile-flags`).innerText(), /^Similar B\n\(one of 2 similar photos\)$/);
      await p.locator('#media').scrollIntoViewIfNeeded();
      await check(p, 'flags');
    }
    await page.getByRole('button', { name: 'Apply suggested order' }).click();
    await page.waitForURL(/notice=order-suggested/);
    assert.match(await page.locator('main').innerText(), /Suggested order applied/);
    assert.deepEqual(await order(), [p3, p1, p2, p4, p5]);
    await check(page, 'applied');
  });

  test('Studio settings: the room order with up and down buttons, at both widths', async () => {
    await phone.goto(`${base}/dashboard/settings/studio#rooms`);
    await check(phone, 'rooms');
    await phone.getByRole('button', { name: 'Move Kitchen up' }).click();
    await phone.waitForURL(/notice=rooms-saved/);
    const rooms = await ctx.services.accounts.roomOrder(owner.accountId);
    assert.deepEqual(rooms.slice(0, 3), ['Exterior Front', 'Kitchen', 'Living Room']);
    assert.equal(
      await phone
        .locator('.room-order li')
        .nth(1)
        .innerText()
        .then((t) => t.split('\n')[0]),
      'Kitchen',
    );
    await page.goto(`${base}/dashboard/settings/studio#rooms`);
    await check(page, 'rooms');
  });
});
