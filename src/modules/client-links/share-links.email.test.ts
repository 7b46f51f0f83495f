// docs/api.md §28: a share link with `email` is emailed through the same durable outbox as an
// assignment (a notification with `share_link_id` set and no client: listed, delivered over SMTP,
// resent by POST .../notify, cancelled when the link goes; in test mode only an .eml file). A
// selection sent at a share link emails the studio naming the link, the chosen files and the
// comments, through the same job as the client's.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { call, createAccount, expectError, testModeOf, type TestAccount } from '../../../test/support/test-app.ts';
import type { TestContext } from '../../../test/support/test-app.ts';
import {
  captureLog,
  fakeClock,
  freshMail,
  smtpTestContext,
  visibleText,
  workerOf,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import { shareLinkHelpers, type ShareLinkJson } from '../../../test/support/share-links.ts';
import { createJobRunner } from '../../mechanisms/queue/queue.runner.ts';
import { SELECTION_EMAIL_DELAY_MS, selectionEmailHandler } from './selection-email.job.ts';

interface NotificationJson {
  id: string;
  client_id: string | null;
  share_link_id: string | null;
  listing_id: string;
  to: string;
  status: string;
}

describe('share link emails', () => {
  let env: SmtpTestContext;
  let ctx: TestContext;
  let owner: TestAccount;
  let h: ReturnType<typeof shareLinkHelpers>;

  before(async () => {
    env = await smtpTestContext({ PUBLIC_URL: 'http://127.0.0.1:3000' });
    ctx = env.ctx;
    owner = await createAccount(ctx, 'Harbour Light Studio');
    h = shareLinkHelpers(ctx, owner);
  });
  after(() => env.close());
  beforeEach(() => freshMail(env));

  const notifications = async (account = owner) => {
    const res = await call(ctx, 'GET', '/v1/notifications', { key: account.key });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: NotificationJson[] }>().data;
  };

  test('created with email: a notification with share_link_id and no client, delivered with the link', async () => {
    const g = await h.galleryWithPhotos(1);
    const { link } = await h.shareLink(g.listingId, { label: 'Buyer agent', email: 'agent@example.test' });
    const [queued] = await notifications();
    assert.deepEqual(
      { c: queued?.client_id, s: queued?.share_link_id, l: queued?.listing_id, to: queued?.to, st: queued?.status },
      { c: null, s: link.id, l: g.listingId, to: 'agent@example.test', st: 'queued' },
    );
    await workerOf(ctx).drain();
    const [mail] = await env.smtp.waitForReceived(1);
    assert.deepEqual(mail!.envelopeTo, ['agent@example.test']);
    const { text, html } = mail!.email;
    assert.ok(text !== undefined && html !== undefined);
    assert.ok(text.includes(link.url), 'the share link is in the text');
    assert.match(text, /^Hello,$/m, 'no client is named');
    assert.ok(visibleText(html).includes('Hello,'));
    assert.ok(html.includes(`${link.url}/cover.jpg`), 'the cover comes through the share link');
    assert.equal((await notifications())[0]?.status, 'sent');
  });

  test('notify sends again (202, a new notification); without an email it is 409; another link 404', async () => {
    const g = await h.galleryWithPhotos(1);
    const { link } = await h.shareLink(g.listingId, { email: 'again@example.test' });
    const res = await call(ctx, 'POST', `${h.base(g.listingId)}/${link.id}/notify`, { key: owner.key });
    assert.equal(res.statusCode, 202, res.body);
    const sent = res.json<NotificationJson>();
    assert.deepEqual(
      { s: sent.share_link_id, to: sent.to, st: sent.status },
      { s: link.id, to: 'again@example.test', st: 'queued' },
    );
    assert.equal((await notifications()).filter((n) => n.share_link_id === link.id).length, 2);
    const silent = await h.shareLink(g.listingId);
    expectError(
      await call(ctx, 'POST', `${h.base(g.listingId)}/${silent.link.id}/notify`, { key: owner.key }),
      409,
      'conflict',
    );
    expectError(
      await call(ctx, 'POST', `${h.base(g.listingId)}/shl_nope/notify`, { key: owner.key }),
      404,
      'not_found',
    );
    await workerOf(ctx).drain();
    assert.equal((await env.smtp.waitForReceived(2)).length, 2);
  });

  test('deleting the link cancels its email not yet sent; reassigning the gallery does not', async () => {
    const g = await h.galleryWithPhotos(1);
    const kept = await h.shareLink(g.listingId, { email: 'kept@example.test' });
    const gone = await h.shareLink(g.listingId, { email: 'gone@example.test' });
    const client = await call(ctx, 'POST', '/v1/clients', {
      key: owner.key,
      body: { name: 'New Client', email: `new-${Date.now()}@example.test` },
    });
    const clientId = client.json<{ id: string }>().id;
    const assigned = await call(ctx, 'POST', `/v1/clients/${clientId}/listings/${g.listingId}`, {
      key: owner.key,
      query: { notify: 'false' },
    });
    assert.equal(assigned.statusCode, 200, assigned.body);
    const del = await call(ctx, 'DELETE', `${h.base(g.listingId)}/${gone.link.id}`, { key: owner.key });
    assert.equal(del.statusCode, 204);
    const byLink = new Map((await notifications()).map((n) => [n.share_link_id, n.status]));
    assert.equal(byLink.get(gone.link.id), 'cancelled');
    assert.equal(byLink.get(kept.link.id), 'queued');
    await workerOf(ctx).drain();
    const received = await env.smtp.waitForReceived(1);
    assert.deepEqual(
      received.map((m) => m.envelopeTo),
      [['kept@example.test']],
    );
  });

  test('in test mode the email is only an .eml file under outbox/test', async () => {
    const testMode = await testModeOf(ctx, owner);
    const t = shareLinkHelpers(ctx, testMode);
    const listing = await call(ctx, 'POST', '/v1/listings', { key: testMode.key, body: { address: '5 Test Lane' } });
    const listingId = listing.json<{ id: string }>().id;
    const res = await t.create(listingId, { label: 'Test link', email: 'test-agent@example.test' });
    assert.equal(res.statusCode, 201, res.body);
    const link = res.json<ShareLinkJson>();
    await workerOf(ctx).drain();
    assert.equal(env.smtp.received.length, 0, 'nothing leaves the service');
    assert.equal((await notifications(testMode))[0]?.status, 'sent');
    const dir = path.join(ctx.dataDir, 'outbox', 'test');
    const emails = await Promise.all((await readdir(dir)).map((f) => readFile(path.join(dir, f), 'utf8')));
    assert.ok(
      emails.some((eml) => eml.includes('test-agent@example.test') && eml.includes(link.url)),
      'an .eml with the link',
    );
    assert.deepEqual(await notifications(), [], 'the live notifications do not show it');
  });

  test("a selection at a share link emails the studio the link's label, the chosen files and the comments", async () => {
    const g = await h.galleryWithPhotos(3);
    const { link, path: page } = await h.shareLink(g.listingId, {
      label: 'Seller <team>',
      email: 'seller@example.test',
    });
    const [a, b, c] = g.ids as [string, string, string];
    for (const id of [c, a]) assert.equal((await h.form(`${page}/favorites/${id}`, { on: '1' })).statusCode, 303);
    assert.equal((await h.form(`${page}/comments/${b}`, { comment: 'Too dark <here>' })).statusCode, 303);
    assert.equal((await h.form(`${page}/comments/${c}`, { comment: 'Love it' })).statusCode, 303);
    assert.equal((await h.form(`${page}/favorites`, { note: 'Our picks' })).statusCode, 303);
    const jobs = await ctx.deps.db.kysely
      .selectFrom('jobs')
      .select('subject_id')
      .where('kind', '=', 'selection.email')
      .execute();
    assert.deepEqual(jobs, [{ subject_id: link.id }]);
    const clock = fakeClock(Date.now() + SELECTION_EMAIL_DELAY_MS);
    await createJobRunner(
      { ...ctx.deps, clock: clock.clock },
      captureLog(),
      selectionEmailHandler({ ...ctx.deps, clock: clock.clock }, captureLog(), () => 0.5),
    ).drain();
    const [mail] = await env.smtp.waitForReceived(1);
    assert.deepEqual(mail!.envelopeTo, [owner.email]);
    const { subject, text, html } = mail!.email;
    assert.match(subject ?? '', /^Seller <team> sent a selection of 2 photos/);
    assert.ok(text !== undefined && html !== undefined);
    assert.match(text, /Seller <team> <seller@example\.test> sent a selection/);
    assert.match(text, /1\. p1\.jpg\n2\. p3\.jpg/);
    assert.match(text, /Comments on photos:\np2\.jpg:\nToo dark <here>\n\np3\.jpg:\nLove it/);
    assert.match(text, /Our picks/);
    const seen = visibleText(html);
    for (const part of ['Seller <team>', 'p2.jpg', 'Too dark <here>', 'Love it', 'Our picks']) {
      assert.ok(seen.includes(part), part);
    }
    assert.doesNotMatch(html, /<here>|<team>/);
  });
});
