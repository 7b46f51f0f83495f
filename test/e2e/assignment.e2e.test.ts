// A gallery assigned to a client, end to end in a real browser (Debian's chromium driven by
// playwright-core) against the real app on a free port: the email the file mailer wrote (.eml,
// parsed with postal-mime as a mail program would), its HTML shown at phone and desktop widths
// with images on and off, its button followed to the client's gallery; then the dashboard's
// latest assignments counting that view, and Resend. Screenshots go to test-results/screenshots/
// (git-ignored): email-*.png and *-assignments*.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import PostalMime, { type Email } from 'postal-mime';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, createAccount, createTestContext, type TestAccount, type TestContext } from '../support/test-app.ts';
import { pdf } from '../support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../support/media-helpers.ts';
import { newClient, newGallery, notificationRows, workerOf } from '../support/notification-helpers.ts';
import { freePort } from '../support/process-helpers.ts';
import { SHOTS, assertFitsPhone, inPage, launchChromium, skipWithoutChromium } from '../support/e2e-browser.ts';

const PASSWORD = 'correct horse battery';
const SIZES = {
  // A common phone (iPhone 12 to 15) and a laptop.
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 900 },
} as const;
const DASHBOARD_PHONE = { width: 375, height: 812 };

let ctx: TestContext;
let base: string;
let browser: Browser;
let owner: TestAccount;
let email: Email;
let galleryId: string;
let clientId: string;

/** A cover that looks like one: a house by the sea at dusk, drawn, then encoded as a camera would. */
async function coverPhoto(width = 1800, height = 1200): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 1800 1200">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
        <stop offset="0" stop-color="#3d5a80"/><stop offset="0.6" stop-color="#e8a87c"/><stop offset="1" stop-color="#f6d6ad"/>
      </linearGradient>
      <linearGradient id="sea" x1="0" y1="0" x2="0" y2="1">
        <stop offset="0" stop-color="#5b7f95"/><stop offset="1" stop-color="#2f4858"/>
      </linearGradient>
    </defs>
    <rect width="1800" height="760" fill="url(#sky)"/>
    <circle cx="1320" cy="610" r="90" fill="#fbe3b8" opacity="0.9"/>
    <rect y="700" width="1800" height="500" fill="url(#sea)"/>
    <path d="M0 820 Q450 760 900 800 T1800 790 L1800 1200 L0 1200 Z" fill="#c9b79c"/>
    <g transform="translate(420 430)">
      <rect x="0" y="170" width="620" height="320" fill="#f4efe6"/>
      <polygon points="-40,180 310,0 660,180" fill="#5a4a42"/>
      <rect x="70" y="250" width="110" height="120" fill="#ffd58a"/>
      <rect x="260" y="330" width="100" height="160" fill="#6d4c3d"/>
      <rect x="440" y="250" width="110" height="120" fill="#ffd58a"/>
    </g>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

/** The one .eml the file mailer wrote to DATA_DIR/outbox, parsed. */
async function onlyEmail(): Promise<{ file: string; email: Email }> {
  const dir = path.join(ctx.dataDir, 'outbox');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'));
  assert.equal(files.length, 1, files.join());
  const file = path.join(dir, files[0]!);
  return { file, email: await PostalMime.parse(await readFile(file)) };
}

interface Shown {
  page: Page;
  context: BrowserContext;
  /** Every URL the page asked for. */
  requests: string[];
}

/** The email's HTML in a page of that size, as a mail program shows it (no script runs in email). */
async function showEmail(size: keyof typeof SIZES, images: boolean): Promise<Shown> {
  const context = await browser.newContext({
    viewport: SIZES[size],
    isMobile: size === 'phone',
    hasTouch: size === 'phone',
    javaScriptEnabled: false,
  });
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  // Images off, as many mail programs start: every image request is refused.
  if (!images) {
    await context.route('**/*', (route) =>
      route.request().resourceType() === 'image' ? route.abort() : route.continue(),
    );
  }
  const page = await context.newPage();
  await page.setContent(email.html ?? '', { waitUntil: 'load' });
  await page.screenshot({
    path: path.join(SHOTS, `email-${size}-${images ? 'images' : 'no-images'}.png`),
    fullPage: true,
  });
  return { page, context, requests };
}

describe('the assignment email and the assignments panel in a browser', { skip: skipWithoutChromium }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    // PUBLIC_URL is where the server really listens: the email's link and cover are loaded as sent.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();

    owner = await createAccount(ctx, 'Harbour Light Studio');
    const gallery = await newGallery(ctx, owner, {
      address: '12 Quay Street, Portsmouth',
      beds: 3,
      baths: 2,
      sqft: 1450,
      status: 'active',
      description:
        'A bright three-bedroom house on the harbour front, photographed at golden hour.\n' +
        'Twilight exteriors, every room, and the floor plan.',
    });
    galleryId = gallery.id;
    await uploaded(ctx, owner.key, gallery.id, [
      { filename: 'front.jpg', data: await coverPhoto() },
      { filename: 'living-room.jpg', data: await coverPhoto(1200, 800) },
      { filename: 'floor-plan.pdf', data: pdf('floor plan') },
    ]);
    await makeVariantsNow(ctx);
    const client = await newClient(ctx, owner, { name: 'Ann Lee', email: 'ann.lee@client.example' });
    clientId = client.id;
    const res = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    await workerOf(ctx).drain();
    ({ email } = await onlyEmail());
  });

  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  test('the .eml: to the client, replies to the studio, a text and an HTML part, both with the link', async () => {
    const [row] = await notificationRows(ctx, galleryId);
    assert.equal(row?.status, 'sent', row?.last_error ?? '');
    assert.deepEqual(
      email.to?.map((a) => a.address),
      ['ann.lee@client.example'],
    );
    assert.deepEqual(email.replyTo, [{ name: 'Harbour Light Studio', address: owner.email }]);
    const link = /^(http:\/\/127\.0\.0\.1:\d+\/g\/[A-Za-z0-9_-]{32})$/m.exec(email.text ?? '')?.[1];
    assert.ok(link?.startsWith(base), email.text);
    assert.ok(email.html?.includes(`href="${link}"`));
    assert.ok(email.html?.includes(`src="${link}/cover.jpg" width="600" height="400"`), 'the cover, sized');
    assert.match(
      email.text ?? '',
      /Bedrooms: 3\nBathrooms: 2\nSquare feet: 1,450\nIn the gallery: 2 photos, 0 videos, 1 document/,
    );
  });

  for (const size of ['phone', 'desktop'] as const) {
    test(`${size}, images on: the cover loads through the link alone, nothing else is asked for`, async () => {
      const { page, context, requests } = await showEmail(size, true);
      try {
        const cover = page.getByRole('img', { name: 'Cover photo: 12 Quay Street, Portsmouth' });
        const shown = JSON.parse(
          await inPage(
            page,
            `JSON.stringify((() => { const i = document.querySelector('img'); return { natural: i.naturalWidth, width: i.getBoundingClientRect().width }; })())`,
          ),
        ) as { natural: number; width: number };
        assert.ok(shown.natural > 0, 'the cover loaded (no key, no cookie: only the link)');
        assert.ok(await cover.isVisible());
        // Everything the page loaded is the cover, from the server the link names.
        const loaded = requests.filter((u) => !u.startsWith('about:') && !u.startsWith('data:'));
        assert.deepEqual(loaded, [`${(/href="([^"]+)"/.exec(email.html ?? '') ?? [])[1]}/cover.jpg`]);
        await assertVisibleWithin(page, size);
        if (size === 'phone') {
          await assertFitsPhone(page, 'td');
          assert.ok(shown.width <= SIZES.phone.width, `the cover is ${shown.width} px wide on the phone`);
        } else {
          assert.equal(Math.round(shown.width), 600);
        }
      } finally {
        await context.close();
      }
    });

    test(`${size}, images off: the alt text, the facts and the button still read`, async () => {
      const { page, context } = await showEmail(size, false);
      try {
        const natural = await inPage(page, `document.querySelector('img').naturalWidth`);
        assert.equal(natural, '0', 'the image was refused');
        // The cover keeps its box (its height is in the markup), coloured, with its alt text.
        const box = await page.locator('img').boundingBox();
        assert.ok(box !== null && box.height > 100, `the cover's box is ${box?.height} px tall`);
        await assertVisibleWithin(page, size);
        if (size === 'phone') await assertFitsPhone(page, 'td');
      } finally {
        await context.close();
      }
    });
  }

  test("the button opens the client's gallery", async () => {
    const { page, context } = await showEmail('desktop', true);
    try {
      // target="_blank": the gallery opens in a new tab, as from a mail program.
      const [gallery] = await Promise.all([
        context.waitForEvent('page'),
        page.getByRole('link', { name: 'View your gallery' }).click(),
      ]);
      await gallery.waitForLoadState();
      assert.match(gallery.url(), /\/g\/[A-Za-z0-9_-]{32}$/);
      await gallery.getByText('12 Quay Street, Portsmouth').first().waitFor();
      await gallery.screenshot({ path: path.join(SHOTS, 'email-gallery-opened.png') });
    } finally {
      await context.close();
    }
  });

  for (const size of ['desktop', 'phone'] as const) {
    test(`${size}: the dashboard lists the assignment with its view, and Resend queues the email again`, async () => {
      const context = await browser.newContext(
        size === 'phone' ? { viewport: DASHBOARD_PHONE, isMobile: true, hasTouch: true } : { viewport: SIZES.desktop },
      );
      const page = await context.newPage();
      try {
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel('Email').fill(owner.email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${base}/dashboard`);
        const panel = page.getByRole('region', { name: 'Latest assignments' });
        const row = panel.getByRole('row').nth(1);
        const text = (await row.innerText()).replace(/\s+/g, ' ');
        // Opened once, from the email's button.
        assert.match(
          text,
          /12 Quay Street, Portsmouth Ann Lee ann\.lee@client\.example \d+ \w+ \d{4} 1 0 \d+ \w+ \d{4}, \d\d:\d\d UTC Open gallery/,
        );
        await page
          .locator('#assignments')
          .screenshot({ path: path.join(SHOTS, `${size === 'phone' ? 'mobile' : 'desktop'}-assignments.png`) });
        await page.screenshot({
          path: path.join(SHOTS, `${size === 'phone' ? 'mobile' : 'desktop'}-overview-assignments.png`),
          fullPage: true,
        });
        if (size === 'phone') await assertFitsPhone(page);
        const scroll = await inPage(
          page,
          `(() => { const w = document.querySelector('#assignments .table-wrap'); return w.scrollWidth - w.clientWidth; })()`,
        );
        assert.equal(scroll, '0', 'the table needs no sideways scroll');
        for (const name of ['Open gallery 12 Quay Street, Portsmouth', 'Resend email to Ann Lee']) {
          const control = panel.getByRole(name.startsWith('Open') ? 'link' : 'button', { name });
          const box = await control.boundingBox();
          assert.ok(box !== null, `${name} is shown`);
          // Within the panel (its table scrolls sideways only when it must), and so within the screen.
          const card = await page.locator('#assignments').boundingBox();
          assert.ok(card !== null && card.x >= 0 && card.x + card.width <= page.viewportSize()!.width);
          assert.ok(
            box.x >= card.x && box.x + box.width <= card.x + card.width - 8,
            `${name} at ${box.x}..${box.x + box.width}, the panel at ${card.x}..${card.x + card.width}`,
          );
        }

        const before = (await notificationRows(ctx, galleryId)).length;
        await panel.getByRole('button', { name: 'Resend email to Ann Lee' }).click();
        await page.waitForURL(`${base}/dashboard?notice=email-resent`);
        await page.getByText('The gallery email is on its way to the client again.').waitFor();
        const rows = await notificationRows(ctx, galleryId);
        assert.equal(rows.length, before + 1);
        assert.equal(rows.at(-1)?.status, 'queued');
        assert.equal(rows.at(-1)?.client_id, clientId);
        await page.screenshot({
          path: path.join(SHOTS, `${size === 'phone' ? 'mobile' : 'desktop'}-assignments-resent.png`),
        });
      } finally {
        await context.close();
      }
    });
  }
});

/** The studio's name, the address, the button and the link as text are on screen, within its width. */
async function assertVisibleWithin(page: Page, size: keyof typeof SIZES): Promise<void> {
  for (const locator of [
    page.getByText('Harbour Light Studio', { exact: true }),
    page.getByRole('heading', { name: '12 Quay Street, Portsmouth' }),
    page.getByRole('link', { name: 'View your gallery' }),
    page.getByText('Square feet'),
    page.getByRole('link', { name: /^http:\/\/127\.0\.0\.1:\d+\/g\// }),
  ]) {
    const box = await locator.boundingBox();
    assert.ok(box !== null, `${String(locator)} is not shown`);
    assert.ok(
      box.x >= 0 && box.x + box.width <= SIZES[size].width + 0.5,
      `${String(locator)} at ${box.x}..${box.x + box.width}`,
    );
  }
}
