// docs/api.md §25: sending a selection emails the studio (the account's email) the gallery, the chosen
// files in position order and the note; through the durable queue, so a failure is retried with the
// same Message-ID and the email is never lost. Text and HTML parts; every value escaped.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createAccount, testModeOf, type TestAccount } from '../../../test/support/test-app.ts';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { jpeg } from '../../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../../test/support/media-helpers.ts';
import {
  captureLog,
  fakeClock,
  smtpTestContext,
  visibleText,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import { linkedGallery } from '../../../test/support/gallery.ts';
import { createJobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { SELECTION_EMAIL_DELAY_MS, selectionEmailHandler } from './selection-email.job.ts';
import type { TestContext } from '../../../test/support/test-app.ts';

describe('the studio is emailed a selection', () => {
  let env: SmtpTestContext;
  let ctx: TestContext;
  let owner: TestAccount;

  before(async () => {
    env = await smtpTestContext({ PUBLIC_URL: 'http://127.0.0.1:3000' });
    ctx = env.ctx;
    owner = await createAccount(ctx, 'Harbour <Light> & Co');
  });
  after(() => env.close());
  beforeEach(async () => {
    await ctx.deps.db.kysely.deleteFrom('jobs').where('kind', '=', 'selection.email').execute();
    await env.smtp.setMode('accept');
    env.smtp.reset();
  });

  const form = (url: string, fields: Record<string, string>) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: '127.0.0.1',
    });

  // A worker's clock once the selection email is due (it goes a few minutes after the first press).
  const runner = (clock = fakeClock(Date.now() + SELECTION_EMAIL_DELAY_MS)) =>
    createJobRunner(
      { ...ctx.deps, clock: clock.clock },
      captureLog(),
      selectionEmailHandler({ ...ctx.deps, clock: clock.clock }, captureLog(), () => 0.5),
    );

  const selectionJobs = () =>
    ctx.deps.db.kysely.selectFrom('jobs').selectAll().where('kind', '=', 'selection.email').execute();

  async function sentSelection(note: string, account: TestAccount = owner) {
    const g = await linkedGallery(ctx, account, { address: '12 <b>Quay</b> Street' });
    const photos = await uploaded(ctx, account.key, g.listingId, [
      { filename: 'kitchen.jpg', contentType: 'image/jpeg', data: await jpeg(40, 30) },
      { filename: 'hall<script>.jpg', contentType: 'image/jpeg', data: await jpeg(30, 40) },
      { filename: 'garden.jpg', contentType: 'image/jpeg', data: await jpeg(50, 30) },
    ]);
    await makeVariantsNow(ctx);
    // Marked out of order: the email lists them in position order.
    for (const id of [photos[2]!.id, photos[1]!.id]) {
      assert.equal((await form(`${g.path}/favorites/${id}`, { on: '1' })).statusCode, 303);
    }
    assert.equal((await form(`${g.path}/favorites`, { note })).statusCode, 303);
    return g;
  }

  test('one job is queued with the selection; the worker emails the account, text and HTML, escaped', async () => {
    await sentSelection('Please retouch the <em>garden</em> one.\nThanks & bye');
    assert.equal((await selectionJobs()).length, 1);
    await runner().drain();
    const [mail] = await env.smtp.waitForReceived(1);
    assert.deepEqual(mail!.envelopeTo, [owner.email]);
    const { subject, text, html } = mail!.email;
    assert.match(subject ?? '', /sent a selection of 2 photos: 12 <b>Quay<\/b> Street/);
    assert.ok(text !== undefined && html !== undefined);
    // Position order, the note with its line break, the gallery's address.
    assert.match(text, /1\. hall<script>\.jpg\n2\. garden\.jpg/);
    assert.match(text, /Please retouch the <em>garden<\/em> one\.\nThanks & bye/);
    assert.match(text, /12 <b>Quay<\/b> Street/);
    assert.doesNotMatch(text, /kitchen/);
    // HTML: escaped, never markup from a field, and it says what the text says.
    assert.doesNotMatch(html, /<script>|<em>|<b>Quay/);
    assert.match(html, /hall&lt;script&gt;\.jpg/);
    assert.match(html, /Harbour &lt;Light&gt; &amp; Co/);
    const seen = visibleText(html);
    for (const part of [
      'hall<script>.jpg',
      'garden.jpg',
      'Please retouch the <em>garden</em> one.',
      '12 <b>Quay</b> Street',
    ]) {
      assert.ok(seen.includes(part), part);
    }
    assert.equal((await selectionJobs()).length, 0, 'the job is done');
  });

  test('20 presses of "Send selection" are one email, a few minutes on, with the latest selection', async () => {
    const pressed = Date.now();
    const g = await sentSelection('note 1');
    for (let i = 2; i <= 20; i += 1) {
      assert.equal((await form(`${g.path}/favorites`, { note: `note ${i}` })).statusCode, 303);
    }
    const jobs = await selectionJobs();
    assert.equal(jobs.length, 1, 'one email queued for the link');
    assert.ok(Date.parse(jobs[0]!.run_at) >= pressed + SELECTION_EMAIL_DELAY_MS, jobs[0]!.run_at);
    // Not before the delay; then one email, with the last note sent.
    await runner(fakeClock(pressed)).drain();
    assert.equal(env.smtp.received.length, 0);
    await runner().drain();
    const [mail] = await env.smtp.waitForReceived(1);
    assert.match(mail!.email.text ?? '', /note 20/);
    assert.doesNotMatch(mail!.email.text ?? '', /note 19/);
    assert.equal((await selectionJobs()).length, 0);
    // Sent again after the email went: the next email, as far from this press.
    const again = Date.now();
    assert.equal((await form(`${g.path}/favorites`, { note: 'note 21' })).statusCode, 303);
    const [next] = await selectionJobs();
    assert.ok(Date.parse(next!.run_at) >= again + SELECTION_EMAIL_DELAY_MS, next!.run_at);
    await runner(fakeClock(Date.now() + 2 * SELECTION_EMAIL_DELAY_MS)).drain();
    const mails = await env.smtp.waitForReceived(2);
    assert.match(mails[1]!.email.text ?? '', /note 21/);
    assert.equal(env.smtp.received.length, 2);
  });

  test('a transient failure is retried with the same Message-ID; a 5xx gives up', async () => {
    await sentSelection('');
    const clock = fakeClock(Date.now() + SELECTION_EMAIL_DELAY_MS);
    await env.smtp.setMode('451');
    await runner(clock).drain();
    const [job] = await selectionJobs();
    assert.equal(job?.attempts, 1, 'retried later, not lost');
    assert.match(job?.last_error ?? '', /451/);
    const first = env.smtp.deferred[0]!.messageId;
    await env.smtp.setMode('accept');
    clock.advance(2 * 3_600_000);
    await runner(clock).drain();
    const [mail] = await env.smtp.waitForReceived(1);
    assert.equal(mail!.messageId, first);
    assert.match(mail!.email.text ?? '', /sent a selection of 2 photos/);
    assert.doesNotMatch(mail!.email.text ?? '', /Their note/, 'no note, no note section');
    assert.equal((await selectionJobs()).length, 0);

    env.smtp.reset();
    await sentSelection('again');
    await env.smtp.setMode('550');
    await runner().drain();
    assert.equal((await selectionJobs()).length, 0, 'a 5xx gives up');
    assert.equal(env.smtp.received.length, 0);
  });

  test('a gallery unassigned before the email goes sends nothing', async () => {
    const g = await sentSelection('x');
    const res = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/clients/${g.clientId}/listings/${g.listingId}`,
      headers: { authorization: `Bearer ${owner.key}` },
    });
    assert.ok(res.statusCode < 300, res.body);
    await runner().drain();
    assert.equal((await selectionJobs()).length, 0);
    assert.equal(env.smtp.received.length, 0);
  });

  test("in test mode the studio's copy is written to outbox/test and never reaches SMTP (docs/api.md §20)", async () => {
    const testMode = await testModeOf(ctx, owner);
    await sentSelection('from a test link', testMode);
    await runner().drain();
    assert.equal((await selectionJobs()).length, 0, 'the job is done');
    assert.equal(env.smtp.received.length, 0);
    const dir = path.join(ctx.dataDir, 'outbox', 'test');
    const files = await readdir(dir);
    const emails = await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')));
    const copy = emails.find((eml) => eml.includes('from a test link'));
    assert.ok(copy !== undefined, files.join());
    assert.match(copy, /sent a selection of 2 photos/);
  });
});
