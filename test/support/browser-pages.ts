// What the browser suites (playwright-core over Debian's chromium) share: launching chromium the
// same way, expressions evaluated in a page, and the check that nothing needs a sideways scroll.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
/** On a developer's machine without chromium a suite is skipped, saying why; in CI it must run. */
export const skipWithoutChromium =
  !chromiumAvailable && process.env.CI !== 'true' ? `${CHROMIUM} is missing (apt-get install chromium)` : false;

export function launchChromium(): Promise<Browser> {
  assert.ok(chromiumAvailable, `${CHROMIUM} is required when CI=true`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** An expression evaluated in the page (as text: this project's TypeScript has no DOM types). */
export async function inPage(p: Page, expression: string): Promise<string> {
  return String(await p.evaluate(expression));
}

/**
 * Nothing on a phone page needs a sideways scroll: the page is no wider than the screen, and
 * every table cell (a value, an action) lies within the screen's width.
 */
export async function assertFitsPhone(p: Page, cells = 'main td'): Promise<void> {
  const overflow = JSON.parse(
    await inPage(
      p,
      `JSON.stringify({
        page: document.documentElement.scrollWidth - window.innerWidth,
        cells: [...document.querySelectorAll(${JSON.stringify(cells)})]
          .filter((c) => c.getClientRects().length > 0)
          .map((c) => ({ text: c.textContent.trim().slice(0, 30), box: c.getBoundingClientRect() }))
          .filter(({ box }) => box.left < 0 || box.right > window.innerWidth + 0.5)
          .map(({ text, box }) => text + ' at ' + Math.round(box.left) + '..' + Math.round(box.right)),
      })`,
    ),
  ) as { page: number; cells: string[] };
  assert.ok(overflow.page <= 0, `${p.url()} is ${overflow.page} px wider than the phone`);
  assert.deepEqual(overflow.cells, [], `${p.url()}: table cells off screen`);
}
