// Test mode (docs/api.md §20) in a real browser, at 1280 and 390 px: the keys page's Test mode
// switch (test keys made and listed apart from live ones), "Delete all test data" through its
// confirmation page, and the client gallery of test data with its "Test mode" banner.
// Screenshots go to test-results/screenshots/ (git-ignored) as test-mode-<width>-<step>.png.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { call, createAccount, testModeOf, type TestAccount, type TestContext } from '../support/test-app.ts';
import { createTestContext } from '../support/test-app.ts';
import { freePort } from '../support/process-helpers.ts';
import { linkedGallery } from '../support/gallery.ts';
import { jpeg } from '../support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import {
  assertFitsPhone,
  inPage,
  launchChromium,
  screenshot,
  skipWithoutChromium as skip,
  watchConsole,
} from '../support/e2e-browser.ts';

const PASSWORD = 'correct horse battery';
const WIDTHS = [1280, 390] as const;

let ctx: TestContext;
let base: string;
let browser: Browser;
let live: TestAccount;
let testMode: TestAccount;
const consoleErrors: string[] = [];

async function signedIn(width: number): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: 860 },
    ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
  });
  const page = await context.newPage();
  watchConsole(page, consoleErrors);
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(live.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/dashboard`);
  return page;
}

const listingIds = async (account: TestAccount): Promise<string[]> =>
  (await call(ctx, 'GET', '/v1/listings?limit=100', { key: account.key }))
    .json<{ data: { id: string }[] }>()
    .data.map((l) => l.id);

describe('test mode in a browser', { skip }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    live = await createAccount(ctx, 'Harbour Light');
    testMode = await testModeOf(ctx, live);
    browser = await launchChromium();
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('a gallery of test data shows the Test mode banner at every width', async () => {
    const photo = await jpeg();
    const gallery = await linkedGallery(ctx, testMode, { address: '14 Test Harbour Road', beds: 3 });
    await uploaded(ctx, testMode.key, gallery.listingId, [
      { filename: 'a.jpg', contentType: 'image/jpeg', data: photo },
    ]);
    await makeVariantsNow(ctx);
    for (const width of WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 860 } });
      const page = await context.newPage();
      watchConsole(page, consoleErrors);
      await page.goto(`${base}${gallery.path}`);
      const banner = page.getByRole('note');
      assert.match(await banner.innerText(), /^Test mode · This gallery is test data/);
      // Visible: on screen, at the top, the whole width.
      const box = await banner.boundingBox();
      assert.ok(box !== null && box.y < 5 && box.width >= width - 20 && box.height > 20, JSON.stringify(box));
      await screenshot(page, `test-mode-${width}-gallery`);
      await context.close();
    }
  });

  for (const width of WIDTHS) {
    test(`${width} px: the Test mode switch makes and lists test keys apart; Delete all test data asks first`, async () => {
      const page = await signedIn(width);
      const liveGallery = (await call(ctx, 'POST', '/v1/listings', { key: live.key, body: { address: 'Live' } })).json<{
        id: string;
      }>().id;
      await call(ctx, 'POST', '/v1/listings', { key: testMode.key, body: { address: `Test ${width}` } });

      await page.goto(`${base}/dashboard/settings/api`);
      const rows = () =>
        inPage(page, `[...document.querySelectorAll('main tbody tr')].map(r => r.innerText).join('|')`);
      // Live: the live key only.
      assert.match(await rows(), /lbx_/);
      assert.doesNotMatch(await rows(), /lbx_test_/);
      await page.getByRole('link', { name: 'Test mode', exact: true }).click();
      await page.waitForURL(`${base}/dashboard/settings/api?mode=test`);
      assert.equal(
        await page.getByRole('link', { name: 'Test mode', exact: true }).getAttribute('aria-current'),
        'page',
      );
      await page.getByLabel('Name').fill(`Sandbox ${width}`);
      await page.getByRole('button', { name: 'Generate test key' }).click();
      await page.getByText('you will not see it again').waitFor();
      const key = await page.getByLabel('API key', { exact: true }).inputValue();
      assert.match(key, /^lbx_test_[0-9A-Za-z]{40}$/);
      const account = await fetch(`${base}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(((await account.json()) as { livemode: boolean }).livemode, false);
      // Test mode lists the test keys only.
      const testRows = await rows();
      assert.match(testRows, new RegExp(`Sandbox ${width}`));
      assert.doesNotMatch(testRows, /lbx_[0-9A-Za-z]{6}…/);
      if (width < 500) await assertFitsPhone(page);
      await screenshot(page, `test-mode-${width}-keys`);

      // Delete all test data: a confirmation page first; Cancel deletes nothing.
      assert.ok((await listingIds(testMode)).length > 0);
      await page.getByRole('link', { name: 'Delete all test data' }).click();
      await page.waitForURL(`${base}/dashboard/settings/api/test-data/delete`);
      await page.getByRole('heading', { name: 'Delete all test data?' }).waitFor();
      await screenshot(page, `test-mode-${width}-confirm`);
      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.waitForURL(`${base}/dashboard/settings/api?mode=test`);
      assert.ok((await listingIds(testMode)).length > 0, 'Cancel deleted nothing');
      await page.getByRole('link', { name: 'Delete all test data' }).click();
      await page.getByRole('button', { name: 'Delete all test data' }).click();
      await page.waitForURL(`${base}/dashboard/settings/api?mode=test&notice=test-data-deleted`);
      await page.getByText('All test data was deleted.').waitFor();
      await screenshot(page, `test-mode-${width}-deleted`);
      assert.deepEqual(await listingIds(testMode), []);
      assert.ok((await listingIds(live)).includes(liveGallery), 'live data kept');
      await page.context().close();
    });
  }
});
