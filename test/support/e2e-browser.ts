// What the browser suites (test/e2e/*.e2e.test.ts) share: Debian's chromium launched through
// playwright-core, the console watched for errors, screenshots under test-results/screenshots/
// (git-ignored), the check that a phone page needs no sideways scroll, and axe-core's.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = path.resolve('test-results/screenshots');
export const chromiumAvailable = existsSync(CHROMIUM);
/** On a developer's machine without chromium a suite is skipped, saying why; in CI it must run. */
export const skipWithoutChromium: string | false =
  !chromiumAvailable && process.env.CI !== 'true' ? `${CHROMIUM} is missing (apt-get install chromium)` : false;

/** Headless chromium, quiet (no background traffic); the screenshot folder made. */
export async function launchChromium(): Promise<Browser> {
  assert.ok(chromiumAvailable, `${CHROMIUM} is required when CI=true`);
  await mkdir(SHOTS, { recursive: true });
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

/**
 * Collects console errors and uncaught exceptions into `sink`. A page the server answered with an
 * error status on purpose (a refused form's 400, a 404) makes the browser log "Failed to load
 * resource" for that document: the test asserts that status itself, so only that one line is
 * let through; a missing favicon, stylesheet or script is not.
 */
export function watchConsole(p: Page, sink: string[]): void {
  const refusedDocuments = new Set<string>();
  p.on('response', (response) => {
    if (response.request().isNavigationRequest() && response.status() >= 400) refusedDocuments.add(response.url());
  });
  p.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error') return;
    const source = message.location().url;
    if (message.text().startsWith('Failed to load resource') && refusedDocuments.has(source)) return;
    sink.push(`${p.url()}: ${message.text()} (${source})`);
  });
  p.on('pageerror', (error) => sink.push(`${p.url()}: ${error.message}`));
}

/** A full-page screenshot, test-results/screenshots/<name>.png. */
export async function screenshot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
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

/**
 * axe-core in the page (evaluated over the DevTools protocol: the page's CSP is untouched): no
 * serious or critical violation. It waits on the page's timers, so the page's JavaScript must be on
 * (a page without it is checked through a page that has it: see test/e2e/proofing.e2e.test.ts).
 */
export async function assertAccessible(p: Page, name: string): Promise<void> {
  if ((await inPage(p, 'typeof window.axe')) !== 'object') await p.evaluate(axe.source);
  const found = JSON.parse(
    await inPage(
      p,
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => JSON.stringify(r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', '))))`,
    ),
  ) as string[];
  assert.deepEqual(found, [], `${name} (${p.url()}): axe-core found serious or critical violations`);
}

/** axe-core (with script), the phone's width, a full-page screenshot `<dir>/<name>.png`. */
export async function checkPage(
  p: Page,
  dir: string,
  name: string,
  { phone, js = true }: { phone: boolean; js?: boolean },
): Promise<void> {
  if (js) await assertAccessible(p, name);
  if (phone) await assertFitsPhone(p);
  await p.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** Where a suite's pages open: its browser and server, and what it closes and checks at the end. */
export interface Session {
  browser: Browser;
  base: string;
  contexts: BrowserContext[];
  consoleErrors: string[];
}

/**
 * A new context at `viewport` (a phone's below 500 px: touch, mobile), signed in to the dashboard
 * as `email`; its console watched into the session's errors, the context closed by the suite.
 */
export async function signedIn(
  session: Session,
  viewport: { width: number; height: number },
  { email, password, js = true, clipboard = false }: { email: string; password: string; js?: boolean; clipboard?: boolean }, // prettier-ignore
): Promise<Page> {
  const phone = viewport.width < 500;
  const context = await session.browser.newContext({
    viewport,
    javaScriptEnabled: js,
    ...(phone ? { isMobile: true, hasTouch: true } : {}),
  });
  if (js && clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.base });
  session.contexts.push(context);
  const p = await context.newPage();
  watchConsole(p, session.consoleErrors);
  await p.goto(`${session.base}/dashboard/sign-in`);
  await p.getByLabel('Email').fill(email);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.waitForURL(`${session.base}/dashboard`);
  return p;
}
