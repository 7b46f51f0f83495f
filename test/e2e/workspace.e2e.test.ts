// The studio's workspace of docs/api.md §27 in a real browser (Debian's chromium through
// playwright-core) against the app on a free port, at 1280 and 390 px wide: a photographer with no
// developer creates a gallery, uploads photos and a document (with the page's script, and with the
// plain form without JavaScript), captions, hides, reorders (by mouse drag, by a finger's drag on
// the phone, by Earlier / Later buttons from the keyboard, and by an item's position without
// JavaScript), sets the cover, deletes (test/e2e/gallery-grid.e2e.test.ts has the grid's ticked
// items in depth), assigns to a new client, copies and protects the
// link, publishes the property pages, and sees the client's views and favorites; clients are
// listed, searched, created, edited and deleted. Every page is checked by axe-core (no serious or
// critical violation), fits the phone, and logs no console error (a CSP violation included).
// Screenshots: test-results/screenshots/workspace/ (git-ignored).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, createTestContext, type TestContext } from '../support/test-app.ts';
import { makeVariantsNow } from '../support/media-helpers.ts';
import { mp4, pdf } from '../support/media-fixtures.ts';
import { sceneJpeg } from '../support/photos.ts';
import { freePort } from '../support/process-helpers.ts';
import {
  assertAccessible,
  assertFitsPhone,
  inPage,
  launchChromium,
  SHOTS as SHARED_SHOTS,
  skipWithoutChromium,
  watchConsole,
} from '../support/e2e-browser.ts';

const SHOTS = path.join(SHARED_SHOTS, 'workspace');
const OWNER = { studio: 'Harbour Light', email: 'owner@harbour.example', password: 'a long studio password' };
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let ctx: TestContext;
let base: string;
let browser: Browser;
let desktop: BrowserContext;
let mobile: BrowserContext;
let plain: BrowserContext;
let page: Page;
let phone: Page;
let noScript: Page;
let accountId = '';
let galleryId = '';
const consoleErrors: string[] = [];

/** The checks every page gets: axe-core, the phone's width, a full-page screenshot. */
async function checkPage(p: Page, name: string): Promise<void> {
  const label = `${p === phone ? 'phone' : p === noScript ? 'noscript' : 'desktop'}-${name}`;
  // Without JavaScript nothing can be evaluated in the page: the same page is checked with it.
  if (p === noScript) {
    await phone.goto(p.url());
    await checkPage(phone, name);
  } else {
    await assertAccessible(p, label);
  }
  if (p === phone) await assertFitsPhone(p);
  await p.screenshot({ path: path.join(SHOTS, `${label}.png`), fullPage: true });
}

async function signIn(p: Page): Promise<void> {
  await p.goto(`${base}/dashboard/sign-in`);
  await p.getByLabel('Email').fill(OWNER.email);
  await p.getByLabel('Password').fill(OWNER.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${base}/dashboard`);
}

interface MediaJson {
  id: string;
  filename: string;
  position: number;
  caption: string | null;
  hidden: boolean;
}

async function media(): Promise<MediaJson[]> {
  return (await ctx.services.media.list(accountId, galleryId)).data;
}

const gallery = () => ctx.services.listings.get(accountId, galleryId);

describe('the studio workspace in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    accountId = (
      await ctx.services.accounts.create({ name: OWNER.studio, email: OWNER.email, password: OWNER.password })
    ).id;
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: DESKTOP });
    await desktop.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    mobile = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    plain = await browser.newContext({ viewport: PHONE, isMobile: true, javaScriptEnabled: false });
    page = await desktop.newPage();
    phone = await mobile.newPage();
    noScript = await plain.newPage();
    for (const p of [page, phone, noScript]) watchConsole(p, consoleErrors);
    await signIn(page);
    await signIn(phone);
    await signIn(noScript);
  });

  afterEach(() => {
    assert.deepEqual(consoleErrors.splice(0), [], 'the browser console reported errors');
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('create a gallery from the empty list', async () => {
    await page.getByRole('link', { name: 'Galleries' }).click();
    await page.waitForURL(`${base}/dashboard/galleries`);
    await page.getByText('No galleries yet.').waitFor();
    await checkPage(page, 'galleries-empty');
    await page.getByRole('link', { name: 'New gallery' }).click();
    await page.getByRole('button', { name: 'Create gallery' }).click();
    await page.getByText('Address: Enter the address').waitFor();
    await checkPage(page, 'gallery-new-refused');
    await page.getByLabel('Address').fill('12 Quay Street, Harbourside');
    await page.getByLabel('Status').selectOption('active');
    await page.getByLabel('Beds').fill('3');
    await page.getByLabel('Baths').fill('2');
    await page.getByLabel('Square feet').fill('1450');
    await page.getByLabel('Description').fill('A bright terrace house over the harbour, with a sea-view kitchen.');
    await page.getByRole('button', { name: 'Create gallery' }).click();
    await page.getByText('Gallery created.').waitFor();
    galleryId = /\/dashboard\/galleries\/(lst_[^?#]+)/.exec(page.url())?.[1] ?? '';
    assert.equal((await gallery()).address, '12 Quay Street, Harbourside');
    await checkPage(page, 'gallery-new');
  });

  test('upload with the script: several files at once, with progress, then the grid', async () => {
    const photos = await Promise.all([0, 60, 140, 220].map((hue) => sceneJpeg(1600, 1067, hue)));
    await page
      .getByLabel('Choose photos, videos or PDFs')
      .setInputFiles([
        ...photos.map((buffer, i) => ({ name: `room-${i + 1}.jpg`, mimeType: 'image/jpeg', buffer })),
        { name: 'floor-plan.pdf', mimeType: 'application/pdf', buffer: pdf('Floor plan') },
      ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(/notice=uploaded/);
    await page.getByText('Uploaded.').waitFor();
    assert.deepEqual(
      (await media()).map((m) => m.filename),
      ['room-1.jpg', 'room-2.jpg', 'room-3.jpg', 'room-4.jpg', 'floor-plan.pdf'],
    );
    // A refused file says why, in place, and nothing of it is kept.
    await page
      .getByLabel('Choose photos, videos or PDFs')
      .setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a photo') }]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('notes.txt: not uploaded, not a photo').waitFor();
    assert.equal((await media()).length, 5);
    // The refusal's 415 is what the browser logs for it: expected here, and only here.
    const refusal = consoleErrors.findIndex((e) => e.includes('status of 415') && e.includes('/media'));
    assert.ok(refusal >= 0, 'the refused upload was answered 415');
    consoleErrors.splice(refusal, 1);
    await makeVariantsNow(ctx);
    await page.goto(`${base}/dashboard/galleries/${galleryId}`);
    await page.locator('.media-grid img').first().waitFor();
    assert.equal(await page.locator('.media-grid img').count(), 4);
    assert.equal(
      await inPage(
        page,
        `[...document.querySelectorAll('.media-grid img')].every((i) => i.complete && i.naturalWidth > 0)`,
      ),
      'true',
      'every thumbnail shows',
    );
    await checkPage(page, 'gallery-uploaded');
  });

  test('without JavaScript: upload with the plain form, and move an item by its position', async () => {
    await noScript.goto(`${base}/dashboard/galleries/${galleryId}`);
    await noScript
      .getByLabel('Choose photos, videos or PDFs')
      .setInputFiles([{ name: 'garden.jpg', mimeType: 'image/jpeg', buffer: await sceneJpeg(1200, 800, 300) }]);
    await noScript.getByRole('button', { name: 'Upload', exact: true }).click();
    await noScript.getByText('Uploaded.').waitFor();
    assert.equal((await media()).at(-1)?.filename, 'garden.jpg');
    const garden = (await media()).at(-1)!;
    // An item's position is on its own page, opened from its thumbnail.
    await noScript.locator(`#m-${garden.id}`).getByRole('link', { name: 'garden.jpg' }).click();
    await noScript.getByLabel('Position').fill('1');
    await noScript.getByRole('button', { name: 'Save', exact: true }).click();
    await noScript.getByText('Saved.').waitFor();
    await noScript.getByRole('link', { name: '← 12 Quay Street, Harbourside' }).click();
    assert.deepEqual(
      (await media()).map((m) => m.filename),
      ['garden.jpg', 'room-1.jpg', 'room-2.jpg', 'room-3.jpg', 'room-4.jpg', 'floor-plan.pdf'],
    );
    await checkPage(noScript, 'gallery');
  });

  test('caption, hide, cover, delete, and reorder by drag', async () => {
    await page.goto(`${base}/dashboard/galleries/${galleryId}`);
    const [garden, room1, room2, , room4] = await media();
    assert.ok(garden && room1 && room2 && room4);
    // Caption and cover on the item's own page; hide by ticking in the grid.
    await page.locator(`#m-${room1.id}`).getByRole('link', { name: 'room-1.jpg' }).click();
    await page.locator(`#cap-${room1.id}`).fill('The kitchen, morning light');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Make cover' }).click();
    await page.getByText('Cover set').waitFor();
    await checkPage(page, 'media-item');
    await page.getByRole('link', { name: '← 12 Quay Street, Harbourside' }).click();
    await page.locator(`#m-${room2.id}`).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Hide the ticked items' }).click();
    await page.getByText('Hidden: the client no longer sees the ticked items.').waitFor();
    const now = await media();
    assert.equal(now.find((m) => m.id === room1.id)?.caption, 'The kitchen, morning light');
    assert.equal(now.find((m) => m.id === room2.id)?.hidden, true);
    assert.equal((await gallery()).cover_media_id, room1.id);

    await page.locator(`#m-${room4.id}`).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete… the ticked items' }).click();
    await page.getByRole('button', { name: 'Delete it for good' }).click();
    await page.getByText('Deleted.').waitFor();
    assert.equal((await media()).length, 5);

    // Drag the garden (first) onto the last photo: it goes after it.
    const room3 = (await media()).find((m) => m.filename === 'room-3.jpg')!;
    // Both on the screen first: Playwright would scroll to the target mid-drag, which no mouse does.
    await inPage(page, `document.getElementById('m-${garden.id}').scrollIntoView({ block: 'start' })`);
    await page.locator(`#m-${garden.id} .media-preview`).dragTo(page.locator(`#m-${room3.id} .media-preview`));
    await page.getByText('Order saved.').waitFor();
    assert.deepEqual(
      (await media()).map((m) => m.filename),
      ['room-1.jpg', 'room-2.jpg', 'room-3.jpg', 'garden.jpg', 'floor-plan.pdf'],
    );
    assert.equal(await page.locator('.media-grid > li').nth(3).getAttribute('data-media-id'), garden.id);
    await checkPage(page, 'gallery-edited');
  });

  test('reorder on the phone: drag by the handle with a finger, and Earlier / Later from the keyboard', async () => {
    await phone.goto(`${base}/dashboard/galleries/${galleryId}`);
    const before = await media();
    assert.deepEqual(
      before.map((m) => m.filename),
      ['room-1.jpg', 'room-2.jpg', 'room-3.jpg', 'garden.jpg', 'floor-plan.pdf'],
    );
    const garden = before[3]!;
    const plan = before[4]!;
    // The handle takes the finger (the page scrolls elsewhere); it, Earlier and Later show once
    // Reorder is pressed.
    await phone.getByRole('button', { name: 'Reorder' }).click();
    const handle = phone.locator(`#m-${plan.id} .drag-handle`);
    assert.equal(
      await inPage(phone, `getComputedStyle(document.querySelector('#m-${plan.id} .drag-handle')).touchAction`),
      'none',
    );
    // In the middle of the screen: at its top, the bar of actions that stays there would cover it.
    await inPage(phone, `document.getElementById('m-${garden.id}').scrollIntoView({ block: 'center' })`);
    const from = (await handle.boundingBox())!;
    const onto = (await phone.locator(`#m-${garden.id} .media-preview`).boundingBox())!;
    assert.ok(from.y + from.height < 844 && onto.y >= 0, 'both items are on the screen');

    // A real touch through chromium's input (Playwright's touchscreen only taps): the plan's handle
    // is dragged up onto the garden's picture, so the plan goes before it.
    const saved = phone.waitForResponse((r) => r.url().endsWith(`/galleries/${galleryId}/order`), { timeout: 10_000 });
    const cdp = await mobile.newCDPSession(phone);
    const touch = async (type: 'touchStart' | 'touchMove' | 'touchEnd', x: number, y: number) =>
      cdp.send('Input.dispatchTouchEvent', {
        type,
        touchPoints: type === 'touchEnd' ? [] : [{ x, y, id: 1, radiusX: 4, radiusY: 4, force: 1 }],
      });
    const x0 = from.x + from.width / 2;
    const y0 = from.y + from.height / 2;
    const x1 = onto.x + onto.width / 2;
    const y1 = onto.y + onto.height / 2;
    await touch('touchStart', x0, y0);
    for (let i = 1; i <= 10; i += 1) await touch('touchMove', x0 + ((x1 - x0) * i) / 10, y0 + ((y1 - y0) * i) / 10);
    await touch('touchEnd', x1, y1);
    await cdp.detach();
    assert.equal((await saved).status(), 200);
    await phone.getByText('Order saved.').waitFor();
    assert.deepEqual(
      (await media()).map((m) => m.filename),
      ['room-1.jpg', 'room-2.jpg', 'room-3.jpg', 'floor-plan.pdf', 'garden.jpg'],
    );
    const shown = phone.locator('.media-grid > li');
    assert.equal(await shown.nth(3).getAttribute('data-media-id'), plan.id);
    assert.equal(await shown.nth(4).getAttribute('data-media-id'), garden.id);
    await phone.screenshot({ path: path.join(SHOTS, 'phone-gallery-reordered-by-touch.png') });
    await checkPage(phone, 'gallery-reorder-touch');

    // The keyboard: focus the plan's Later and press Enter; the focus stays on the moved item (on
    // Earlier, once it is last and Later is off).
    const later = phone.locator(`#m-${plan.id}`).getByRole('button', { name: /^Later/ });
    const again = phone.waitForResponse((r) => r.url().endsWith(`/galleries/${galleryId}/order`), { timeout: 10_000 });
    await later.focus();
    await phone.keyboard.press('Enter');
    assert.equal((await again).status(), 200);
    assert.deepEqual(
      (await media()).map((m) => m.filename),
      ['room-1.jpg', 'room-2.jpg', 'room-3.jpg', 'garden.jpg', 'floor-plan.pdf'],
    );
    assert.equal(await later.isDisabled(), true);
    assert.match(await inPage(phone, 'document.activeElement.textContent'), /Earlier/);
    assert.equal(
      await phone
        .locator(`#m-${plan.id}`)
        .getByRole('button', { name: /^Earlier/ })
        .isEnabled(),
      true,
    );
    assert.equal(
      await phone
        .locator('.media-grid > li')
        .first()
        .getByRole('button', { name: /^Earlier/ })
        .isDisabled(),
      true,
    );
  });

  test('assign to a new client, copy the link, protect it, publish the property pages', async () => {
    await page.goto(`${base}/dashboard/galleries/${galleryId}#client`);
    await page.getByLabel('Name').fill('Ann Lee');
    await page.getByLabel('Email', { exact: true }).fill('ann@client.example');
    await page.getByRole('button', { name: 'Assign gallery' }).click();
    await page.getByText('The email with its link is on its way').waitFor();
    const link = (await gallery()).client_link;
    assert.ok(link !== null);
    await page.getByRole('button', { name: 'Copy Client link' }).click();
    await page.locator('#client-link-status').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await inPage(page, 'navigator.clipboard.readText()'), link.url);

    await page.getByLabel('Password', { exact: false }).first().fill('harbour-2026');
    await page.getByRole('button', { name: 'Save link settings' }).click();
    await page.getByText('Link settings saved.').waitFor();
    assert.equal((await gallery()).client_link?.password_protected, true);

    await page.getByRole('button', { name: 'Resend email' }).click();
    await page.getByText('The gallery email is on its way to the client again.').waitFor();

    await page.getByRole('button', { name: 'Publish property pages' }).click();
    await page.getByText('Published: the property pages are public').waitFor();
    const property = (await gallery()).property_page;
    assert.ok(property !== null);
    assert.equal(await page.getByLabel('Property page', { exact: true }).inputValue(), property.url);
    await checkPage(page, 'gallery-assigned');
  });

  test("the client's visit and favorite show in the activity", async () => {
    const link = (await gallery()).client_link!;
    const client = await browser.newContext({ viewport: PHONE, isMobile: true });
    const visit = await client.newPage();
    await visit.goto(link.url);
    await visit.locator('input[type="password"]').fill('harbour-2026');
    await visit.locator('button[type="submit"]').first().click();
    await visit.locator('.tile__favorite button').first().click();
    await visit.locator('.tile__favorite button[aria-pressed="true"]').first().waitFor();
    await client.close();
    const property = (await gallery()).property_page!;
    assert.equal((await fetch(property.url)).status, 200);

    await page.goto(`${base}/dashboard/galleries/${galleryId}#activity`);
    assert.equal(await page.getByTestId('link-views').textContent(), '1');
    assert.equal(await page.getByTestId('favorites-count').textContent(), '1');
    assert.equal(await page.getByTestId('property-views').textContent(), '1');
    await page.locator('.favorites-list').getByText('room-1.jpg').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Emails about this gallery' }).getByRole('row').count(), 3);
    await checkPage(page, 'gallery-activity');
  });

  test('the list: search, filter, sort; on the phone too', async () => {
    const key = await ctx.services.apiKeys.create(accountId, { name: 'seed' });
    for (const [address, status] of [
      ['4 Mill Lane', 'draft'],
      ['9 Beach Road', 'archived'],
    ] as const) {
      assert.equal(
        (await call(ctx, 'POST', '/v1/listings', { key: key.key, body: { address, status } })).statusCode,
        201,
      );
    }
    await page.goto(`${base}/dashboard/galleries`);
    await page.getByText('3 galleries').waitFor();
    await page.getByLabel('Search').fill('quay');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('1 gallery').waitFor();
    await page.getByRole('link', { name: '12 Quay Street, Harbourside' }).waitFor();
    await page.goto(`${base}/dashboard/galleries`);
    await page.getByLabel('Status').selectOption('archived');
    await page.getByLabel('Sort').selectOption('created_at');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('link', { name: '9 Beach Road' }).waitFor();
    assert.equal(await page.getByRole('link', { name: '4 Mill Lane' }).count(), 0);
    await checkPage(page, 'galleries');

    await phone.goto(`${base}/dashboard/galleries`);
    await checkPage(phone, 'galleries');
    await phone.getByRole('link', { name: '12 Quay Street, Harbourside' }).click();
    await phone.getByRole('heading', { level: 1, name: '12 Quay Street, Harbourside' }).waitFor();
    await checkPage(phone, 'gallery');
    await phone.goto(`${base}/dashboard/galleries/new`);
    await checkPage(phone, 'gallery-new');
    await phone.goto(`${base}/dashboard/galleries/${galleryId}/delete`);
    await checkPage(phone, 'gallery-delete');
  });

  test('clients: the list with search, a client page with their galleries, create, edit, delete', async () => {
    await page.getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: 'Ann Lee' }).waitFor();
    await checkPage(page, 'clients');
    await page.getByRole('link', { name: 'New client' }).click();
    await page.getByRole('button', { name: 'Add client' }).click();
    await page.getByText('Name: Enter the name').waitFor();
    await page.getByLabel('Name').fill('Bo Chen');
    await page.getByLabel('Email').fill('ann@client.example');
    await page.getByRole('button', { name: 'Add client' }).click();
    await page.getByText('Another client has this email address').first().waitFor();
    await checkPage(page, 'client-new-refused');
    await page.getByLabel('Email').fill('bo@client.example');
    await page.getByLabel('Company').fill('Chen Estates');
    await page.getByRole('button', { name: 'Add client' }).click();
    await page.getByText('Client added.').waitFor();
    await page.getByLabel('Phone').fill('+44 20 7946 0000');
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.getByText('Client saved.').waitFor();
    await checkPage(page, 'client');

    await page.goto(`${base}/dashboard/clients?search=ann`);
    await page.getByText('1 client', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Ann Lee' }).click();
    await page.getByRole('link', { name: '12 Quay Street, Harbourside' }).waitFor();
    await checkPage(page, 'client-ann');

    await phone.goto(`${base}/dashboard/clients`);
    await checkPage(phone, 'clients');
    await phone.getByRole('link', { name: 'Bo Chen' }).click();
    await checkPage(phone, 'client');
    await phone.getByRole('link', { name: 'Delete this client…' }).click();
    await checkPage(phone, 'client-delete');
    await phone.getByRole('button', { name: 'Delete client' }).click();
    await phone.getByText('The client was deleted.').waitFor();
    assert.equal((await ctx.services.clients.list(accountId, { limit: 10 })).pagination.total, 1);
  });

  test('a large video uploads resumably (tus), in pieces, with progress', async () => {
    await page.goto(`${base}/dashboard/galleries/${galleryId}`);
    // A real MP4's head, padded to 24 MiB: three 8 MiB pieces.
    const head = mp4();
    const video = Buffer.concat([head, Buffer.alloc(24 * 1024 * 1024 - head.length)]);
    const pieces: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/dashboard/galleries/${galleryId}/uploads`)) pieces.push(r.method());
    });
    // The connection drops during the second piece: the script asks the server where it stopped
    // (HEAD) and carries on from there.
    let patches = 0;
    await page.route(`${base}/dashboard/galleries/${galleryId}/uploads/*`, async (route) => {
      if (route.request().method() === 'PATCH') patches += 1;
      if (patches === 2) {
        patches += 1;
        await route.abort('connectionreset');
        return;
      }
      await route.continue();
    });
    await page
      .getByLabel('Choose photos, videos or PDFs')
      .setInputFiles([{ name: 'walkthrough.mp4', mimeType: 'video/mp4', buffer: video }]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('progressbar', { name: 'Upload of walkthrough.mp4' }).waitFor();
    await page.waitForURL(/notice=uploaded/);
    await page.unroute(`${base}/dashboard/galleries/${galleryId}/uploads/*`);
    assert.deepEqual(pieces, ['POST', 'PATCH', 'PATCH', 'HEAD', 'PATCH', 'PATCH']);
    // The dropped piece is what the browser logs; nothing else.
    const dropped = consoleErrors.findIndex((e) => e.includes('ERR_CONNECTION_RESET'));
    if (dropped >= 0) consoleErrors.splice(dropped, 1);
    const last = (await media()).at(-1);
    assert.equal(last?.filename, 'walkthrough.mp4');
    assert.equal((last as { kind?: string } | undefined)?.kind, 'video');
  });

  test('fifty photos in one go, with the script', async () => {
    const id = (await ctx.services.listings.create(accountId, { address: '50 Shore Road' })).id;
    await page.goto(`${base}/dashboard/galleries/${id}`);
    const photos = await Promise.all(Array.from({ length: 50 }, (_, i) => sceneJpeg(640, 427, i * 7)));
    await page.getByLabel('Choose photos, videos or PDFs').setInputFiles(
      photos.map((buffer, i) => ({
        name: `shore-${String(i + 1).padStart(2, '0')}.jpg`,
        mimeType: 'image/jpeg',
        buffer,
      })),
    );
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(/notice=uploaded/, { timeout: 120_000 });
    const list = (await ctx.services.media.list(accountId, id)).data;
    assert.equal(list.length, 50);
    assert.deepEqual(
      list.map((m) => m.filename),
      photos.map((_, i) => `shore-${String(i + 1).padStart(2, '0')}.jpg`),
    );
    assert.equal(await page.locator('.media-grid > li').count(), 50);
  });

  test('unassign, then delete the gallery after confirming', async () => {
    await page.goto(`${base}/dashboard/galleries/${galleryId}`);
    await page.getByRole('button', { name: 'Unassign' }).click();
    await page.getByText('Unassigned: the client link no longer works.').waitFor();
    assert.equal((await gallery()).client_id, null);
    // Deleting the gallery is under its details, opened to edit.
    await page.locator('#details summary').click();
    await page.getByRole('link', { name: 'Delete this gallery…' }).click();
    await checkPage(page, 'gallery-delete');
    await page.getByRole('button', { name: 'Delete gallery' }).click();
    await page.getByText('The gallery and its media were deleted.').waitFor();
    await assert.rejects(gallery());
  });
});
