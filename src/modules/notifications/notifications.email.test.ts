// The notification email as it arrives (docs/api.md §8): sent over real SMTP to a smtp-server on
// 127.0.0.1 and parsed with postal-mime, never matched as raw text. Recipient, sender, subject,
// both parts and what they show; escaping of every interpolated value; headers that cannot be
// injected; one Message-ID per notification across retries; and the .eml outbox without SMTP.
// node:test's describe() and test() return promises that the runner itself awaits.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import PostalMime from 'postal-mime';
import {
  call,
  createAccount,
  createTestContext,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';
import { jpeg, pdf } from '../../../test/support/media-fixtures.ts';
import { makeVariantsNow, uploaded } from '../../../test/support/media-helpers.ts';
import {
  assign,
  captureLog,
  fakeClock,
  freshMail,
  newClient,
  newGallery,
  nextDue,
  notificationRow,
  notificationRows,
  smtpTestContext,
  visibleText,
  workerOf,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import { type ReceivedMail, type TestSmtpServer } from '../../../test/support/smtp-server.ts';

const MAIL_FROM_ADDRESS = 'galleries@lightbox.test';

let smtp: TestSmtpServer;
let ctx: TestContext;

let mail: SmtpTestContext;

before(async () => {
  mail = await smtpTestContext({ MAIL_FROM: `Lightbox Mailer <${MAIL_FROM_ADDRESS}>` });
  ({ smtp, ctx } = mail);
});

after(() => mail.close());

const fresh = (): Promise<void> => freshMail(mail);

/** The only message received, and the only notification row. */
async function deliverOne(): Promise<{ mail: ReceivedMail; id: string }> {
  await workerOf(ctx).drain();
  assert.equal(smtp.received.length, 1, 'exactly one message arrives');
  const rows = await notificationRows(ctx);
  assert.equal(rows.length, 1);
  const [row] = rows;
  assert.equal(row?.status, 'sent', row?.last_error ?? '');
  return { mail: smtp.received[0]!, id: row.id };
}

describe('the email as received over SMTP', () => {
  let account: TestAccount;

  before(async () => {
    account = await createAccount(ctx, 'Harbour Light Studio');
  });

  test('goes to the client, from the studio name at MAIL_FROM, subject naming the studio and the address', async () => {
    await fresh();
    const gallery = await newGallery(ctx, account, { address: '12 Quay Street, Portsmouth', beds: 3 });
    const client = await newClient(ctx, account, { name: 'Ann Lee', email: 'Ann.Lee@Example.test' });
    await assign(ctx, account, client.id, gallery.id);

    const { mail, id } = await deliverOne();
    // The local part exactly as the client gave it; the domain is case-insensitive.
    const recipient = (address: string): string => address.replace(/@.*/, (domain) => domain.toLowerCase());
    assert.equal((await notificationRow(ctx, id)).to_email, client.email);
    assert.deepEqual(mail.envelopeTo.map(recipient), ['Ann.Lee@example.test']);
    assert.equal(mail.envelopeFrom, MAIL_FROM_ADDRESS);
    assert.deepEqual(
      mail.email.to?.map((a) => recipient(a.address ?? '')),
      ['Ann.Lee@example.test'],
    );
    assert.deepEqual(mail.email.from, { name: 'Harbour Light Studio', address: MAIL_FROM_ADDRESS });
    const subject = mail.email.subject ?? '';
    assert.ok(subject.includes('Harbour Light Studio'), subject);
    assert.ok(subject.includes('12 Quay Street, Portsmouth'), subject);
    assert.equal(mail.messageId, (await notificationRow(ctx, id)).message_id);
    assert.match(mail.messageId, /^<ntf_[0-9A-Za-z]+@[^<>@\s]+>$/);
    assert.ok(mail.email.date !== undefined);
  });

  test("docs/api.md §28: every assignment email carries the client's portal, below the gallery link", async () => {
    await fresh();
    const gallery = await newGallery(ctx, account, { address: '5 Portal Row' });
    const client = await newClient(ctx, account);
    await assign(ctx, account, client.id, gallery.id);
    const { mail } = await deliverOne();
    const read = await call(ctx, 'GET', `/v1/clients/${client.id}`, { key: account.key });
    const portal = read.json<{ portal_url: string }>().portal_url;
    const link = (await call(ctx, 'GET', `/v1/listings/${gallery.id}`, { key: account.key })).json<{
      client_link: { url: string };
    }>().client_link.url;
    const text = mail.email.text ?? '';
    assert.ok(text.indexOf(link) !== -1 && text.indexOf(portal) > text.indexOf(link), text);
    assert.match(text, new RegExp(`All your galleries from Harbour Light Studio:\n${portal}\n`));
    const html = mail.email.html ?? '';
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    assert.equal(hrefs.at(-1), portal, 'the portal is the last link, below the gallery link');
    assert.ok(
      hrefs.slice(0, -1).every((href) => href === link),
      hrefs.join(),
    );

    // Sent again after the portal was rotated: the email carries the portal as it is now.
    await fresh();
    const rotated = await call(ctx, 'POST', `/v1/clients/${client.id}/portal/rotate`, { key: account.key });
    const newPortal = rotated.json<{ portal_url: string }>().portal_url;
    const resend = await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}/notify`, {
      key: account.key,
    });
    assert.equal(resend.statusCode, 202, resend.body);
    await workerOf(ctx).drain();
    const again = smtp.received.at(-1)!;
    assert.ok((again.email.text ?? '').includes(newPortal));
    assert.ok(!(again.email.text ?? '').includes(portal));
  });

  test('the sender name sends and signs the email when set; the subject still names the studio', async () => {
    await fresh();
    await ctx.deps.db.kysely
      .updateTable('accounts')
      .set({ sender_name: 'Harbour Light Bookings' })
      .where('id', '=', account.accountId)
      .execute();
    try {
      const gallery = await newGallery(ctx, account);
      const client = await newClient(ctx, account);
      await assign(ctx, account, client.id, gallery.id);
      const { mail } = await deliverOne();
      assert.deepEqual(mail.email.from, { name: 'Harbour Light Bookings', address: MAIL_FROM_ADDRESS });
      assert.ok(mail.email.subject?.startsWith('Harbour Light Studio: '), mail.email.subject);
      assert.match(mail.email.text ?? '', /Harbour Light Studio has shared a gallery with you/);
      assert.match(mail.email.text ?? '', /— Harbour Light Bookings\n/);
    } finally {
      await ctx.deps.db.kysely
        .updateTable('accounts')
        .set({ sender_name: null })
        .where('id', '=', account.accountId)
        .execute();
    }
  });

  test('text and HTML parts both show the address, beds, baths, sqft and the counts of photos, videos and documents', async () => {
    await fresh();
    const gallery = await newGallery(ctx, account, {
      address: '7 Lighthouse Lane',
      beds: 4,
      baths: 2.5,
      sqft: 1850,
    });
    // Uploaded through the API: two photos and a PDF, no video.
    await uploaded(ctx, account.key, gallery.id, [
      { filename: 'front.jpg', data: await jpeg(40, 30) },
      { filename: 'back.jpg', data: await jpeg(30, 40) },
      { filename: 'floorplan.pdf', data: pdf('floor plan') },
    ]);
    const client = await newClient(ctx, account, { name: 'Bo Chen' });
    await assign(ctx, account, client.id, gallery.id);

    const { mail } = await deliverOne();
    const text = mail.email.text ?? '';
    const html = mail.email.html ?? '';
    assert.ok(text.length > 0, 'a plain-text part');
    assert.ok(html.length > 0, 'an HTML part');
    for (const [part, shown] of [
      ['text', text],
      ['html', visibleText(html)],
    ] as const) {
      assert.ok(shown.includes('7 Lighthouse Lane'), `${part}: address`);
      assert.match(shown, /\bbed(room)?s?\b\W*4\b/i, `${part}: beds`);
      assert.match(shown, /\bbath(room)?s?\b\W*2\.5\b/i, `${part}: baths`);
      assert.match(shown, /\b(sq\.? ?ft|square feet)\b\W*1,?850\b/i, `${part}: sqft`);
      assert.match(shown, /\b2 photos\b/, `${part}: photos`);
      assert.match(shown, /\b0 videos\b/, `${part}: videos`);
      assert.match(shown, /\b1 document\b/, `${part}: documents`);
      assert.ok(shown.includes('Bo Chen'), `${part}: the client's name`);
    }
  });

  test('unset beds, baths and sqft are left out of both parts (no placeholder); the counts are always there', async () => {
    await fresh();
    const gallery = await newGallery(ctx, account, { address: '9 Empty Plot' });
    const client = await newClient(ctx, account);
    await assign(ctx, account, client.id, gallery.id);
    const { mail } = await deliverOne();
    for (const shown of [mail.email.text ?? '', visibleText(mail.email.html ?? '')]) {
      assert.ok(shown.includes('9 Empty Plot'));
      assert.doesNotMatch(shown, /\b(bed(room)?s?|bath(room)?s?|sq\.? ?ft|square feet|not given)\b/i);
      assert.match(shown, /\b0 photos, 0 videos, 0 documents\b/);
    }
  });

  test('the cover, once its variants are made: served through the link, its size in the markup', async () => {
    await fresh();
    const gallery = await newGallery(ctx, account, { address: '2 Cover Court' });
    const [, second] = await uploaded(ctx, account.key, gallery.id, [
      { filename: 'first.jpg', data: await jpeg(300, 200) },
      { filename: 'chosen.jpg', data: await jpeg(200, 300) },
    ]);
    await makeVariantsNow(ctx);
    // The chosen cover (a portrait), not the first photo.
    const patched = await call(ctx, 'PATCH', `/v1/listings/${gallery.id}`, {
      key: account.key,
      body: { cover_media_id: second?.id },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const client = await newClient(ctx, account);
    const listing = (
      await call(ctx, 'POST', `/v1/clients/${client.id}/listings/${gallery.id}`, { key: account.key })
    ).json<{
      client_link: { url: string };
    }>();
    const { mail } = await deliverOne();
    const img = /<img\b[^>]*>/.exec(mail.email.html ?? '')?.[0] ?? '';
    assert.ok(img.includes(`src="${listing.client_link.url}/cover.jpg"`), img);
    // 200x300 is shown at most 720 px tall: 480 wide.
    assert.match(img, /\swidth="480" height="720"/);
    const cover = await ctx.app.inject({ url: `${new URL(listing.client_link.url).pathname}/cover.jpg` });
    assert.equal(cover.statusCode, 200);
    assert.equal(cover.headers['content-type'], 'image/jpeg');
  });

  test('no photo yet: no image at all', async () => {
    await fresh();
    const gallery = await newGallery(ctx, account, { address: '3 Bare Lane' });
    const client = await newClient(ctx, account);
    await assign(ctx, account, client.id, gallery.id);
    const { mail } = await deliverOne();
    assert.doesNotMatch(mail.email.html ?? '', /<img\b/);
  });

  test("replies go to the studio's own address, named after the studio", async () => {
    await fresh();
    const gallery = await newGallery(ctx, account);
    const client = await newClient(ctx, account);
    await assign(ctx, account, client.id, gallery.id);
    const { mail } = await deliverOne();
    assert.deepEqual(mail.email.replyTo, [{ name: 'Harbour Light Studio', address: account.email }]);
    assert.match(mail.email.text ?? '', /Reply to this email to reach Harbour Light Studio\./);
  });

  test('studio, client and address markup is escaped in the HTML: shown as text, never as markup', async () => {
    await fresh();
    const studio = await createAccount(ctx, 'Shady <b>Bold</b> & "Co" <script>alert(1)</script>');
    const address = `1 <script>steal()</script> <b>Main</b> St & "Annex" 'B'`;
    const gallery = await newGallery(ctx, studio, { address, beds: 1 });
    const client = await newClient(ctx, studio, { name: '<img src=x onerror=alert(2)> Eve <i>Ann</i>' });
    await assign(ctx, studio, client.id, gallery.id);

    const { mail } = await deliverOne();
    const html = mail.email.html ?? '';
    // No injected element survives as markup.
    for (const tag of [/<script/i, /<b>/i, /<img/i, /<i>/i]) assert.doesNotMatch(html, tag);
    assert.ok(html.includes('&lt;script&gt;steal()&lt;/script&gt;'), 'the address, escaped');
    assert.ok(html.includes('&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Co&quot;'), 'the studio name, escaped');
    assert.ok(html.includes('&lt;img src=x onerror=alert(2)&gt;'), "the client's name, escaped");
    // What a reader sees is exactly the text that was typed.
    const shown = visibleText(html);
    assert.ok(shown.includes(address), shown);
    assert.ok(shown.includes('Shady <b>Bold</b> & "Co" <script>alert(1)</script>'), shown);
    assert.ok(shown.includes('<img src=x onerror=alert(2)> Eve <i>Ann</i>'), shown);
    // The plain-text part and the headers carry the text itself (they are not HTML).
    assert.ok((mail.email.text ?? '').includes(address));
    assert.deepEqual(mail.email.from, {
      name: 'Shady <b>Bold</b> & "Co" <script>alert(1)</script>',
      address: MAIL_FROM_ADDRESS,
    });
    assert.ok(mail.email.subject?.includes(address), mail.email.subject);
  });

  test('a line break in the studio name (or in a stored address) cannot inject a header', async () => {
    await fresh();
    // Studio names come from `accounts create` and may hold line breaks; addresses are single-line
    // by schema, so one with a line break is written straight into the database.
    const studio = await createAccount(ctx, 'Evil Studio\r\nBcc: victim@evil.test\nX-Injected: studio');
    const gallery = await newGallery(ctx, studio, { address: '3 Safe Street' });
    await ctx.deps.db.kysely
      .updateTable('listings')
      .set({ address: '3 Safe Street\r\nBcc: other-victim@evil.test\r\nX-Injected: address' })
      .where('id', '=', gallery.id)
      .execute();
    const client = await newClient(ctx, studio, { email: 'only.me@example.test' });
    await assign(ctx, studio, client.id, gallery.id);

    const { mail } = await deliverOne();
    const keys = mail.email.headers.map((h) => h.key);
    assert.ok(!keys.includes('bcc'), keys.join());
    assert.ok(!keys.includes('x-injected'), keys.join());
    assert.deepEqual(mail.envelopeTo, ['only.me@example.test']);
    assert.deepEqual(
      mail.email.to?.map((a) => a.address),
      ['only.me@example.test'],
    );
    const from = mail.email.from;
    assert.ok(from !== undefined && 'address' in from && from.address === MAIL_FROM_ADDRESS);
    assert.doesNotMatch(from.name, /[\r\n]/, 'the display name is one line');
    assert.match(from.name, /^Evil Studio\b/);
    assert.doesNotMatch(mail.email.subject ?? '', /[\r\n]/);
    assert.ok(mail.email.subject?.includes('3 Safe Street'));
    // The raw header block has no line that starts a header of its own making.
    const head = mail.raw.split(/\r?\n\r?\n/)[0] ?? '';
    assert.doesNotMatch(head, /^(bcc|x-injected):/im);
  });
});

describe('Message-ID', () => {
  test('one per notification, identical on a 451 attempt and on the final delivery', async () => {
    await fresh();
    const account = await createAccount(ctx, 'Retry Studio');
    const [g1, g2] = [await newGallery(ctx, account), await newGallery(ctx, account)];
    const [c1, c2] = [await newClient(ctx, account), await newClient(ctx, account)];
    await assign(ctx, account, c1.id, g1.id);
    await assign(ctx, account, c2.id, g2.id);
    // Time moves only when the test says so, from after the assignments were made.
    const clock = fakeClock();
    const worker = workerOf(ctx, { clock });

    await smtp.setMode('451');
    await worker.drain();
    assert.equal(smtp.deferred.length, 2);
    assert.equal(smtp.received.length, 0);
    const tried = new Map(smtp.deferred.map((m) => [m.envelopeTo[0], m.messageId]));

    // A second 451, one backoff later: still the same ids.
    clock.set((await nextDue(ctx)) ?? 0);
    await worker.drain();
    assert.equal(smtp.deferred.length, 4);
    for (const m of smtp.deferred.slice(2)) assert.equal(m.messageId, tried.get(m.envelopeTo[0]));

    await smtp.setMode('accept');
    clock.set((await nextDue(ctx)) ?? 0);
    await worker.drain();
    assert.equal(smtp.received.length, 2);
    for (const m of smtp.received) assert.equal(m.messageId, tried.get(m.envelopeTo[0]));
    const ids = new Set(smtp.received.map((m) => m.messageId));
    assert.equal(ids.size, 2, 'two notifications, two Message-IDs');
    for (const row of await notificationRows(ctx)) {
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 3);
      assert.ok(ids.has(row.message_id));
    }
  });
});

describe('without SMTP_URL', () => {
  test('each email is an .eml file under DATA_DIR/outbox, and the log line names it without the body', async () => {
    const local = await createTestContext();
    try {
      assert.equal(local.deps.mailer.kind, 'file');
      const account = await createAccount(local, 'Local Studio');
      const gallery = await newGallery(local, account, { address: '5 Offline Road', beds: 2 });
      const client = await newClient(local, account, { name: 'Secret Recipient Name', email: 'offline@example.test' });
      await assign(local, account, client.id, gallery.id);

      const log = captureLog();
      await workerOf(local, { log }).drain();
      const [row] = await notificationRows(local);
      assert.equal(row?.status, 'sent');

      const outbox = path.join(local.dataDir, 'outbox');
      const files = (await readdir(outbox)).filter((f) => f.endsWith('.eml'));
      assert.equal(files.length, 1);
      const email = await PostalMime.parse(await readFile(path.join(outbox, files[0]!)));
      assert.equal(email.messageId, row.message_id);
      assert.deepEqual(
        email.to?.map((a) => a.address),
        ['offline@example.test'],
      );
      assert.deepEqual(email.from, { name: 'Local Studio', address: 'no-reply@localhost' });
      assert.ok(email.subject?.includes('5 Offline Road'));
      assert.ok(email.text?.includes('Secret Recipient Name'));
      assert.ok(email.html?.includes('5 Offline Road'));

      const sent = log.lines.filter((l) => l.msg === 'notification sent');
      assert.equal(sent.length, 1);
      const line = JSON.stringify(sent[0]?.obj);
      assert.ok(line.includes(row.id), line);
      assert.ok(line.includes(files[0]!), 'the log names the file');
      // Never the body, nor what only the body says.
      for (const secret of ['Secret Recipient Name', '5 Offline Road', '<html', '<p>']) {
        assert.ok(!log.text().includes(secret), `the log holds ${secret}`);
      }
    } finally {
      await local.close();
    }
  });
});
