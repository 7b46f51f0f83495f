// docs/api.md §29's emails and online payment, as a client and Stripe meet them: the invoice email
// (PDF attached, a Pay button while the studio takes payment online, else how to pay) and the
// receipt, over real SMTP to a server on 127.0.0.1; the Stripe keys kept sealed; a pay link
// that starts a Checkout session on a local Stripe stand-in (STRIPE_API_BASE) for the amount due;
// Stripe's signed events recording one `card` payment however often, and however concurrently,
// they arrive, and nothing for a bad or old signature; test mode never reaching Stripe.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { call, createAccount, testModeOf, type TestAccount, type TestContext } from '../../../test/support/test-app.ts';
import {
  freshMail,
  newClient,
  newGallery,
  smtpTestContext,
  visibleText,
  workerOf,
  type SmtpTestContext,
} from '../../../test/support/notification-helpers.ts';
import type { ReceivedMail, TestSmtpServer } from '../../../test/support/smtp-server.ts';

const SECRET_KEY = 'sk_test_51StandInKeyForLightboxTests';
const WEBHOOK_SECRET = 'whsec_standInSigningSecretForTests';

/** A local stand-in for Stripe's API: POST /v1/checkout/sessions, kept for the test to read. */
interface StandIn {
  url: string;
  sessions: { auth: string; form: URLSearchParams; id: string }[];
  close(): Promise<void>;
}

async function startStripeStandIn(): Promise<StandIn> {
  const sessions: StandIn['sessions'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
        return;
      }
      const id = `cs_test_${sessions.length + 1}`;
      sessions.push({ auth: req.headers.authorization ?? '', form: new URLSearchParams(body), id });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'checkout.session',
          url: `https://checkout.stripe.com/c/pay/${id}`,
          payment_status: 'unpaid',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let mail: SmtpTestContext;
let ctx: TestContext;
let smtp: TestSmtpServer;
let stripe: StandIn;
let scratch: string;

before(async () => {
  stripe = await startStripeStandIn();
  mail = await smtpTestContext({ STRIPE_API_BASE: stripe.url });
  ({ ctx, smtp } = mail);
  scratch = await mkdtemp(path.join(os.tmpdir(), 'lightbox-stripe-'));
});

after(async () => {
  await mail.close();
  await stripe.close();
  await rm(scratch, { recursive: true, force: true });
});

interface InvoiceJson {
  id: string;
  number: string;
  status: string;
  total: number;
  amount_due: number;
  amount_paid: number;
  payment_url: string | null;
}

/** An open invoice of 123.45 (in the account's currency) for a new client's gallery. */
async function openInvoice(me: TestAccount, client = 'Ana Client'): Promise<InvoiceJson> {
  const gallery = await newGallery(ctx, me, { address: '7 Quay Street' });
  const person = await newClient(ctx, me, { name: client });
  await call(ctx, 'POST', `/v1/clients/${person.id}/listings/${gallery.id}`, {
    key: me.key,
    query: { notify: 'false' },
  });
  const draft = await call(ctx, 'POST', '/v1/invoices', {
    key: me.key,
    body: { listing_id: gallery.id, items: [{ description: 'Photos & drone', unit_amount: 12_345 }] },
  });
  assert.equal(draft.statusCode, 201, draft.body);
  const issued = await call(ctx, 'POST', `/v1/invoices/${draft.json<{ id: string }>().id}/issue`, { key: me.key });
  assert.equal(issued.statusCode, 200, issued.body);
  return issued.json<InvoiceJson>();
}

const getInvoice = async (me: TestAccount, id: string) =>
  (await call(ctx, 'GET', `/v1/invoices/${id}`, { key: me.key })).json<InvoiceJson>();

const payments = async (me: TestAccount, id: string) =>
  (await call(ctx, 'GET', `/v1/invoices/${id}/payments`, { key: me.key })).json<{
    data: { amount: number; method: string; reference: string }[];
  }>().data;

/** The text of a message's one PDF attachment, by pdftotext. */
async function pdfText(received: ReceivedMail): Promise<{ filename: string; text: string }> {
  const pdfs = received.email.attachments.filter((a) => a.mimeType === 'application/pdf');
  assert.equal(pdfs.length, 1, 'one PDF attached');
  const content = pdfs[0]!.content;
  const bytes = Buffer.from(typeof content === 'string' ? Buffer.from(content, 'base64') : new Uint8Array(content));
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, bytes);
  return {
    filename: pdfs[0]!.filename ?? '',
    text: execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }),
  };
}

/** A Stripe event as Stripe posts it: the completed Checkout session of `invoice`. */
function completed(invoice: InvoiceJson, eventId: string, sessionId: string, amount = invoice.amount_due): string {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        payment_status: 'paid',
        amount_total: amount,
        currency: 'usd',
        client_reference_id: invoice.id,
        metadata: { invoice_id: invoice.id },
        payment_intent: `pi_${sessionId}`,
      },
    },
  });
}

function deliver(webhookUrl: string, payload: string, signature?: string) {
  return ctx.app.inject({
    method: 'POST',
    url: new URL(webhookUrl).pathname,
    headers: {
      // As Stripe sends it.
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    },
    payload,
  });
}

describe('invoice emails (docs/api.md §29)', () => {
  test('issue: the invoice PDF attached and how to pay; paid: a receipt with the PDF', async () => {
    await freshMail(mail);
    const me = await createAccount(ctx, 'Harbour Light Studio');
    const invoice = await openInvoice(me, 'Ann Lee');
    assert.equal(invoice.payment_url, null, 'no online payment set up');
    await workerOf(ctx).drain();
    assert.equal(smtp.received.length, 1);
    const sent = smtp.received[0]!;
    assert.match(sent.email.subject ?? '', new RegExp(`Harbour Light Studio: invoice ${invoice.number}`));
    const words = visibleText(sent.email.html ?? '');
    assert.match(words, /Hello Ann Lee/);
    assert.match(words, /USD 123\.45/);
    assert.match(words, /To pay, reply to this email or write to Harbour Light Studio/);
    assert.doesNotMatch(sent.email.html ?? '', /\/pay\//);
    assert.match(sent.email.text ?? '', /To pay, reply to this email/);
    const pdf = await pdfText(sent);
    assert.equal(pdf.filename, `invoice-${invoice.number}.pdf`);
    assert.match(pdf.text, new RegExp(invoice.number));
    assert.match(pdf.text, /Total\s+USD 123\.45/);

    smtp.reset();
    const paid = await call(ctx, 'POST', `/v1/invoices/${invoice.id}/payments`, {
      key: me.key,
      body: { amount: 12_345, method: 'bank_transfer' },
    });
    assert.equal(paid.statusCode, 201, paid.body);
    await workerOf(ctx).drain();
    assert.equal(smtp.received.length, 1);
    const receipt = smtp.received[0]!;
    assert.match(receipt.email.subject ?? '', new RegExp(`receipt for invoice ${invoice.number}`));
    assert.match(visibleText(receipt.email.html ?? ''), /paid in full/);
    const receiptPdf = await pdfText(receipt);
    assert.equal(receiptPdf.filename, `receipt-${invoice.number}.pdf`);
    assert.match(receiptPdf.text, new RegExp(invoice.number));
    assert.match(receiptPdf.text, /Total\s+USD 123\.45/);
    assert.match(receiptPdf.text, /Status: paid/);
  });
});

describe('an invoice outlives its gallery (docs/api.md §29)', () => {
  test('deleting the gallery before the invoice email is sent does not cancel it', async () => {
    await freshMail(mail);
    const me = await createAccount(ctx);
    const invoice = await openInvoice(me);
    const listingId = (await call(ctx, 'GET', `/v1/invoices/${invoice.id}`, { key: me.key })).json<{
      listing_id: string;
    }>().listing_id;
    const deleted = await call(ctx, 'DELETE', `/v1/listings/${listingId}`, { key: me.key });
    assert.equal(deleted.statusCode, 204, deleted.body);
    await workerOf(ctx).drain();
    assert.equal(smtp.received.length, 1);
    assert.match(smtp.received[0]!.email.subject ?? '', new RegExp(`invoice ${invoice.number}`));
  });
});

describe('online payment with Stripe (docs/api.md §29)', () => {
  let me: TestAccount;
  let webhookUrl: string;

  before(async () => {
    me = await createAccount(ctx, 'Bright Rooms');
    const status = await ctx.services.stripe.configure(me.accountId, {
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
    });
    assert.equal(status.enabled, true);
    webhookUrl = status.webhookUrl;
  });

  test('the keys are kept sealed and never shown; the webhook URL is the account’s own, unguessable', async () => {
    assert.match(webhookUrl, /^http:\/\/127\.0\.0\.1:3000\/stripe\/webhooks\/[A-Za-z0-9_-]{32}$/);
    const row = await ctx.deps.db.kysely
      .selectFrom('stripe_accounts')
      .selectAll()
      .where('account_id', '=', me.accountId)
      .executeTakeFirstOrThrow();
    assert.match(row.secret_key ?? '', /^v1\./);
    assert.match(row.webhook_secret ?? '', /^v1\./);
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(SECRET_KEY) && !stored.includes('standInSigningSecret'), 'stored sealed');
    // Another account's URL differs; the same account's stays across changes.
    const other = await createAccount(ctx);
    assert.notEqual((await ctx.services.stripe.status(other.accountId)).webhookUrl, webhookUrl);
    assert.equal((await ctx.services.stripe.status(me.accountId)).webhookUrl, webhookUrl);
    const account = await call(ctx, 'GET', '/v1/account', { key: me.key });
    assert.ok(!account.body.includes('sk_test_') && !account.body.includes('whsec_'));
    await assert.rejects(
      ctx.services.stripe.configure(other.accountId, { secretKey: 'pk_test_nope', webhookSecret: WEBHOOK_SECRET }),
      /secret key/,
    );
  });

  test('the invoice email has the Pay button; the pay link starts Checkout for the amount due', async () => {
    await freshMail(mail);
    const invoice = await openInvoice(me);
    assert.match(invoice.payment_url ?? '', /^http:\/\/127\.0\.0\.1:3000\/pay\/ivc_[0-9A-Za-z]+\.[A-Za-z0-9_-]{32}$/);
    await workerOf(ctx).drain();
    const html = smtp.received[0]?.email.html ?? '';
    assert.match(html, new RegExp(`href="${invoice.payment_url!.replace(/[.$]/g, '\\$&')}"`));
    assert.match(visibleText(html), /Pay USD 123\.45/);

    const path_ = new URL(invoice.payment_url!).pathname;
    const page = await ctx.app.inject({ method: 'GET', url: path_ });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /USD 123\.45/);
    assert.equal(stripe.sessions.length, 0, 'opening the link starts nothing');
    const tampered = await ctx.app.inject({ method: 'GET', url: `${path_.slice(0, -2)}xx` });
    assert.equal(tampered.statusCode, 404);

    const pressed = await ctx.app.inject({
      method: 'POST',
      url: path_,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(pressed.statusCode, 303, pressed.body);
    const session = stripe.sessions.at(-1)!;
    assert.equal(pressed.headers.location, `https://checkout.stripe.com/c/pay/${session.id}`);
    assert.equal(session.auth, `Bearer ${SECRET_KEY}`);
    assert.equal(session.form.get('mode'), 'payment');
    assert.equal(session.form.get('line_items[0][price_data][unit_amount]'), '12345');
    assert.equal(session.form.get('line_items[0][price_data][currency]'), 'usd');
    assert.equal(session.form.get('client_reference_id'), invoice.id);
    assert.equal(session.form.get('metadata[invoice_id]'), invoice.id);
  });

  test('Stripe’s own units: an ISK invoice is sent in hundredths and recorded in krónur', async () => {
    const iceland = await createAccount(ctx, 'Reykjavík Rooms');
    await ctx.services.accounts.updateStudio(iceland.accountId, { name: 'Reykjavík Rooms', senderName: null, currency: 'ISK' }); // prettier-ignore
    const settings = await ctx.services.stripe.configure(iceland.accountId, {
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
    });
    const invoice = await openInvoice(iceland);
    assert.equal(invoice.amount_due, 12_345, 'ISK 12,345 (ISO 4217: no minor unit)');
    const pressed = await ctx.app.inject({
      method: 'POST',
      url: new URL(invoice.payment_url!).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(pressed.statusCode, 303, pressed.body);
    const session = stripe.sessions.at(-1)!;
    assert.equal(session.form.get('line_items[0][price_data][currency]'), 'isk');
    assert.equal(session.form.get('line_items[0][price_data][unit_amount]'), '1234500', 'two decimals at Stripe');
    const payload = completed(invoice, 'evt_isk_1', session.id, 1_234_500).replace(
      '"currency":"usd"',
      '"currency":"isk"',
    );
    const delivered = await deliver(settings.webhookUrl, payload);
    assert.equal(delivered.statusCode, 200, delivered.body);
    assert.deepEqual(
      (await payments(iceland, invoice.id)).map((p) => p.amount),
      [12_345],
    );
    assert.equal((await getInvoice(iceland, invoice.id)).status, 'paid');
  });

  test('a bad or old signature is 400 and changes nothing', async () => {
    const invoice = await openInvoice(me);
    const payload = completed(invoice, 'evt_bad_1', 'cs_bad_1');
    const wrong = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someoneElsesSecret1' });
    const old = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    for (const signature of [wrong, old, 't=1,v1=00', '']) {
      const res = await deliver(webhookUrl, payload, signature);
      assert.equal(res.statusCode, 400, res.body);
    }
    const altered = await deliver(
      webhookUrl,
      payload.replace('"amount_total":12345', '"amount_total":1'),
      Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    );
    assert.equal(altered.statusCode, 400);
    assert.equal((await deliver(`${webhookUrl}x`, payload)).statusCode, 404);
    assert.deepEqual(await payments(me, invoice.id), []);
    assert.equal((await getInvoice(me, invoice.id)).status, 'open');
  });

  test('one card payment however often, and however concurrently, the event is delivered', async () => {
    await freshMail(mail);
    const invoice = await openInvoice(me);
    await workerOf(ctx).drain();
    smtp.reset();
    const payload = completed(invoice, 'evt_dup_1', 'cs_dup_1');
    // Two at once, then the same again, then the same session under another event id.
    const [a, b] = await Promise.all([deliver(webhookUrl, payload), deliver(webhookUrl, payload)]);
    assert.deepEqual([a.statusCode, b.statusCode], [200, 200]);
    assert.deepEqual([a.json<{ outcome: string }>().outcome, b.json<{ outcome: string }>().outcome].sort(), [
      'duplicate',
      'recorded',
    ]);
    assert.equal((await deliver(webhookUrl, payload)).json<{ outcome: string }>().outcome, 'duplicate');
    const again = await deliver(webhookUrl, completed(invoice, 'evt_dup_2', 'cs_dup_1'));
    assert.equal(again.json<{ outcome: string }>().outcome, 'duplicate');
    const recorded = await payments(me, invoice.id);
    assert.equal(recorded.length, 1);
    assert.deepEqual(
      { amount: recorded[0]!.amount, method: recorded[0]!.method, reference: recorded[0]!.reference },
      { amount: 12_345, method: 'card', reference: 'pi_cs_dup_1' },
    );
    const now = await getInvoice(me, invoice.id);
    assert.deepEqual([now.status, now.amount_paid, now.amount_due, now.payment_url], ['paid', 12_345, 0, null]);
    // Paid: the receipt goes to the client.
    await workerOf(ctx).drain();
    assert.equal(smtp.received.length, 1);
    assert.match(smtp.received[0]!.email.subject ?? '', /receipt for invoice/);
  });

  test('two concurrent deliveries of two sessions for one invoice: one payment, the other kept as handled', async () => {
    const invoice = await openInvoice(me);
    const results = await Promise.all([
      deliver(webhookUrl, completed(invoice, 'evt_two_1', 'cs_two_1')),
      deliver(webhookUrl, completed(invoice, 'evt_two_2', 'cs_two_2')),
    ]);
    assert.deepEqual(results.map((r) => r.json<{ outcome: string }>().outcome).sort(), ['ignored', 'recorded']);
    assert.equal((await payments(me, invoice.id)).length, 1);
  });

  test('out of order: an event for a voided invoice records nothing; other events are acknowledged', async () => {
    const invoice = await openInvoice(me);
    await call(ctx, 'POST', `/v1/invoices/${invoice.id}/void`, { key: me.key });
    const late = await deliver(webhookUrl, completed(invoice, 'evt_late_1', 'cs_late_1'));
    assert.equal(late.json<{ outcome: string }>().outcome, 'ignored');
    const other = JSON.stringify({ id: 'evt_other', object: 'event', type: 'charge.refunded', data: { object: {} } });
    assert.equal((await deliver(webhookUrl, other)).json<{ outcome: string }>().outcome, 'ignored');
    assert.deepEqual(await payments(me, invoice.id), []);
  });

  test('turned off: payment_url is null and the webhook URL answers 404', async () => {
    const other = await createAccount(ctx);
    const status = await ctx.services.stripe.configure(other.accountId, {
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
    });
    const invoice = await openInvoice(other);
    assert.notEqual(invoice.payment_url, null);
    const off = await ctx.services.stripe.configure(other.accountId, null);
    assert.deepEqual(off, { enabled: false, webhookUrl: status.webhookUrl });
    assert.equal((await getInvoice(other, invoice.id)).payment_url, null);
    assert.equal((await deliver(status.webhookUrl, completed(invoice, 'evt_off', 'cs_off'))).statusCode, 404);
  });
});

describe('payments at once (docs/api.md §29)', () => {
  test('two partial payments at the same moment: each one counted, or refused, never lost', async () => {
    const me = await createAccount(ctx);
    const invoice = await openInvoice(me);
    const results = await Promise.all(
      [1_000, 2_000].map((amount) =>
        call(ctx, 'POST', `/v1/invoices/${invoice.id}/payments`, { key: me.key, body: { amount, method: 'cash' } }),
      ),
    );
    const made = results.filter((r) => r.statusCode === 201).map((r) => r.json<{ amount: number }>().amount);
    assert.ok(results.every((r) => r.statusCode === 201 || r.statusCode === 409));
    const now = await getInvoice(me, invoice.id);
    assert.equal(
      now.amount_paid,
      made.reduce((a, b) => a + b, 0),
    );
    assert.equal((await payments(me, invoice.id)).length, made.length);
  });
});

describe('test mode (docs/api.md §20, §29)', () => {
  test('a test invoice’s pay link is a local page whose button records a card payment, never Stripe', async () => {
    const live = await createAccount(ctx);
    const me = await testModeOf(ctx, live);
    const before_ = stripe.sessions.length;
    const invoice = await openInvoice(me);
    assert.notEqual(invoice.payment_url, null);
    const url = new URL(invoice.payment_url!).pathname;
    const page = await ctx.app.inject({ method: 'GET', url });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Test mode/);
    const pressed = await ctx.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(pressed.statusCode, 303);
    assert.equal(pressed.headers.location, `${url}?paid=1`);
    assert.equal(stripe.sessions.length, before_, 'nothing reached Stripe');
    const recorded = await payments(me, invoice.id);
    assert.deepEqual(
      recorded.map((p) => [p.amount, p.method]),
      [[12_345, 'card']],
    );
    assert.equal((await getInvoice(me, invoice.id)).status, 'paid');
    const after_ = await ctx.app.inject({ method: 'GET', url });
    assert.match(after_.body, /Paid, thank you/);
    const pdf = await ctx.app.inject({ method: 'GET', url: `${url}/invoice.pdf` });
    assert.equal(pdf.headers['content-type'], 'application/pdf');
  });
});
