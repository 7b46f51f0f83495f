// The two mailers and the failure classification behind retries (docs/api.md §8): over SMTP to a real
// smtp-server on 127.0.0.1 in each of its moods, and to .eml files; transient (connection
// trouble, timeouts, 4xx) against final (5xx).
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import PostalMime from 'postal-mime';
import { startSmtpServer, type SmtpMode, type TestSmtpServer } from '../../test/support/smtp-server.ts';
import { createFileMailer, emlFileName } from './file.ts';
import { classifySendError, type MailMessage } from './mailer.ts';
import { createSmtpMailer } from './smtp.ts';

const message = (id = 'ntf_test1'): MailMessage => ({
  messageId: `<${id}@lightbox.test>`,
  from: { name: 'Harbour Light', address: 'galleries@lightbox.test' },
  to: 'ann@example.test',
  subject: 'Harbour Light: your gallery for 12 Quay Street',
  text: 'Hello Ann,\n\nAddress: 12 Quay Street\n',
  html: '<p>Hello Ann,</p><p>Address: 12 Quay Street</p>',
});

describe('classifySendError', () => {
  test('4xx replies are transient, 5xx final; the reason is the reply', () => {
    assert.deepEqual(
      classifySendError(Object.assign(new Error('x'), { responseCode: 451, response: '451 4.3.0 later' })),
      {
        transient: true,
        reason: '451 4.3.0 later',
      },
    );
    assert.deepEqual(classifySendError(Object.assign(new Error('x'), { responseCode: 421, response: '421 busy' })), {
      transient: true,
      reason: '421 busy',
    });
    assert.deepEqual(
      classifySendError(Object.assign(new Error('x'), { responseCode: 550, response: '550 no such user' })),
      {
        transient: false,
        reason: '550 no such user',
      },
    );
    assert.equal(classifySendError(Object.assign(new Error('x'), { responseCode: 554 })).transient, false);
  });

  test('connection trouble and timeouts are transient', () => {
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']) {
      const failure = classifySendError(Object.assign(new Error(`failed: ${code}`), { code }));
      assert.equal(failure.transient, true, code);
      assert.equal(failure.reason, `failed: ${code}`);
    }
    // Anything unknown is retried rather than given up on.
    assert.equal(classifySendError(new Error('disk full')).transient, true);
    assert.equal(classifySendError('a string').transient, true);
    assert.equal(classifySendError(null).reason, 'null');
  });

  test('the reason is one line of at most 500 characters', () => {
    const long = classifySendError(
      Object.assign(new Error('x'), { responseCode: 451, response: `451 a\r\nb\n${'x'.repeat(2000)}` }),
    );
    assert.doesNotMatch(long.reason, /[\r\n]/);
    assert.ok(long.reason.startsWith('451 a b '));
    assert.equal(long.reason.length, 500);
  });
});

describe('the SMTP mailer against a real server', () => {
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
  });
  after(() => smtp.close());

  test('accepted: resolves with the server reply; the message arrives as sent', async () => {
    smtp.reset();
    await smtp.setMode('accept');
    // With credentials from the URL, as SMTP_URL=smtp://user:pass@host:port gives them.
    const mailer = createSmtpMailer(`smtp://lightbox:s3cret-pass@127.0.0.1:${smtp.port}`);
    try {
      assert.equal(mailer.kind, 'smtp');
      const { detail } = await mailer.send(message());
      assert.match(detail, /^250 /);
      const [mail] = await smtp.waitForReceived(1);
      assert.equal(mail?.messageId, '<ntf_test1@lightbox.test>');
      assert.deepEqual(mail.envelopeTo, ['ann@example.test']);
      assert.equal(mail.envelopeFrom, 'galleries@lightbox.test');
      assert.deepEqual(mail.email.from, { name: 'Harbour Light', address: 'galleries@lightbox.test' });
      assert.equal(mail.email.subject, 'Harbour Light: your gallery for 12 Quay Street');
      assert.equal(mail.email.text?.trim(), 'Hello Ann,\n\nAddress: 12 Quay Street');
      assert.equal(mail.email.html?.trim(), '<p>Hello Ann,</p><p>Address: 12 Quay Street</p>');
    } finally {
      mailer.close();
    }
  });

  const cases: [SmtpMode, boolean, RegExp][] = [
    ['refuse', true, /ECONNREFUSED/],
    ['421', true, /^421 /],
    ['451', true, /^451 /],
    ['550', false, /^550 5\.1\.1 /],
  ];
  for (const [mode, transient, reason] of cases) {
    test(`${mode}: rejects, and the failure is ${transient ? 'transient' : 'final'}`, async () => {
      smtp.reset();
      await smtp.setMode(mode);
      // Credentials in the URL never reach the reason kept in last_error.
      const mailer = createSmtpMailer(`smtp://lightbox:s3cret-pass@127.0.0.1:${smtp.port}`);
      try {
        const err = await mailer.send(message()).then(
          () => assert.fail('expected a failure'),
          (e: unknown) => e,
        );
        const failure = classifySendError(err);
        assert.equal(failure.transient, transient);
        assert.match(failure.reason, reason);
        assert.ok(!failure.reason.includes('s3cret-pass'));
        assert.equal(smtp.received.length, 0);
      } finally {
        mailer.close();
        await smtp.setMode('accept');
      }
    });
  }
});

describe('the file mailer', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-outbox-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('writes one .eml per Message-ID (a retry rewrites the same file), complete and parseable', async () => {
    const outbox = path.join(dir, 'outbox');
    const mailer = createFileMailer(outbox);
    assert.equal(mailer.kind, 'file');
    const { detail } = await mailer.send(message('ntf_file1'));
    await mailer.send(message('ntf_file1'));
    await mailer.send(message('ntf_file2'));
    const files = (await readdir(outbox)).sort();
    // Named as docs/email.md says: the Message-ID without its angle brackets, then .eml. No partial
    // file is left behind.
    assert.deepEqual(files, ['ntf_file1@lightbox.test.eml', 'ntf_file2@lightbox.test.eml']);
    assert.ok(detail.includes(path.join(outbox, files[0]!)), detail);
    const email = await PostalMime.parse(await readFile(path.join(outbox, files[0]!)));
    assert.equal(email.messageId, '<ntf_file1@lightbox.test>');
    assert.deepEqual(email.from, { name: 'Harbour Light', address: 'galleries@lightbox.test' });
    assert.equal(email.subject, 'Harbour Light: your gallery for 12 Quay Street');
    assert.ok(email.text?.includes('12 Quay Street'));
    assert.ok(email.html?.includes('<p>Address: 12 Quay Street</p>'));
    mailer.close();
  });

  test('a Message-ID cannot steer the file outside the outbox', async () => {
    const outbox = path.join(dir, 'safe');
    const mailer = createFileMailer(outbox);
    await mailer.send({ ...message(), messageId: '<../../escape/x@lightbox.test>' });
    assert.deepEqual(await readdir(outbox), ['___.._escape_x@lightbox.test.eml']);
    assert.ok(!(await readdir(dir)).includes('escape'));
  });

  test('any Message-ID names one plain file inside the outbox', () => {
    const outbox = path.join(dir, 'outbox');
    const idChars = fc.constantFrom(...'<>@./\\:_-aZ9 \0\n%~é'.split(''), '..', '../', '..\\');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: idChars, maxLength: 40 }), fc.string({ maxLength: 300 })), (id) => {
        const name = emlFileName(id);
        assert.match(name, /^[A-Za-z0-9@_-][A-Za-z0-9@._-]*\.eml$/, JSON.stringify(id));
        assert.ok(Buffer.byteLength(name) <= 255);
        assert.equal(path.dirname(path.join(outbox, name)), outbox);
      }),
    );
    assert.equal(emlFileName('<ntf_01JABC@[::1]>'), 'ntf_01JABC@___1_.eml');
    assert.equal(emlFileName('<>'), '_.eml');
  });
});
