// docs/api.md §29's invoices: amounts from the one money module, every transition guarded (409
// for any other), numbers per account in sequence with no gap or duplicate under concurrent
// issues (one node, and on PostgreSQL two nodes on one database), events, test mode apart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  call,
  createAccount,
  createTestContext,
  detailFields,
  expectError,
  isPostgres,
  testModeOf,
  type TestAccount,
  type TestContext,
} from '../../../test/support/test-app.ts';

interface InvoiceJson {
  id: string;
  number: string | null;
  listing_id: string;
  client_id: string;
  status: string;
  items: { product_id: string | null; description: string; quantity: number; unit_amount: number; amount: number }[];
  subtotal: number;
  discount: number;
  tax_rate_bps: number;
  tax: number;
  total: number;
  amount_paid: number;
  amount_due: number;
  currency: string;
  pay_to_unlock: boolean;
  issued_at: string | null;
  paid_at: string | null;
  voided_at: string | null;
  payment_url: string | null;
  pdf_url: string;
}

let ctx: TestContext;
before(async () => {
  ctx = await createTestContext();
});
after(async () => {
  await ctx.close();
});

/** A gallery assigned (without email) to a new client: its id and the client's. */
async function galleryWithClient(c: TestContext, me: TestAccount): Promise<{ listingId: string; clientId: string }> {
  const listing = await call(c, 'POST', '/v1/listings', { key: me.key, body: { address: '1 Harbour St' } });
  assert.equal(listing.statusCode, 201, listing.body);
  const listingId = listing.json<{ id: string }>().id;
  const email = `c${Math.random().toString(36).slice(2)}@client.test`;
  const client = await call(c, 'POST', '/v1/clients', { key: me.key, body: { name: 'Ana Client', email } });
  const clientId = client.json<{ id: string }>().id;
  const assigned = await call(c, 'POST', `/v1/clients/${clientId}/listings/${listingId}`, {
    key: me.key,
    query: { notify: 'false' },
  });
  assert.equal(assigned.statusCode, 200, assigned.body);
  return { listingId, clientId };
}

async function draft(c: TestContext, me: TestAccount, listingId: string, body: Record<string, unknown> = {}) {
  const res = await call(c, 'POST', '/v1/invoices', {
    key: me.key,
    body: { listing_id: listingId, items: [{ description: 'Photos', unit_amount: 25_000 }], ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<InvoiceJson>();
}

const act = (me: TestAccount, id: string, action: string, body?: unknown) =>
  call(ctx, 'POST', `/v1/invoices/${id}/${action}`, { key: me.key, ...(body === undefined ? {} : { body }) });

describe('/v1/invoices', () => {
  test('items from a product (copied) or given, totals from the money module, in the account currency', async () => {
    const me = await createAccount(ctx);
    await ctx.services.accounts.updateStudio(me.accountId, { name: 'Studio', senderName: null, currency: 'EUR' });
    const { listingId, clientId } = await galleryWithClient(ctx, me);
    const product = (
      await call(ctx, 'POST', '/v1/products', { key: me.key, body: { name: 'Drone', unit_amount: 1_999 } })
    ).json<{ id: string }>();
    const invoice = await draft(ctx, me, listingId, {
      items: [
        { product_id: product.id, quantity: 3 },
        { description: 'Travel', unit_amount: 0 },
      ],
      discount: 500,
      tax_rate_bps: 825,
    });
    assert.equal(invoice.client_id, clientId);
    assert.equal(invoice.status, 'draft');
    assert.equal(invoice.number, null);
    assert.equal(invoice.currency, 'EUR');
    assert.deepEqual(invoice.items, [
      { product_id: product.id, description: 'Drone', quantity: 3, unit_amount: 1_999, amount: 5_997 },
      { product_id: null, description: 'Travel', quantity: 1, unit_amount: 0, amount: 0 },
    ]);
    // (5997 − 500) × 8.25 % = 453.5025 → 454 (half up); 5997 − 500 + 454.
    assert.deepEqual(
      [invoice.subtotal, invoice.discount, invoice.tax, invoice.total, invoice.amount_due],
      [5_997, 500, 454, 5_951, 5_951],
    );
    assert.equal(invoice.pay_to_unlock, true);
    assert.equal(invoice.payment_url, null);
    assert.equal(invoice.pdf_url, `/v1/invoices/${invoice.id}/pdf`);
    // A later price change leaves the invoice's copy alone.
    await call(ctx, 'PATCH', `/v1/products/${product.id}`, { key: me.key, body: { unit_amount: 9 } });
    assert.deepEqual((await call(ctx, 'GET', `/v1/invoices/${invoice.id}`, { key: me.key })).json(), invoice);
  });

  test('refusals: a discount above the subtotal, an unknown product, a gallery with no client (409)', async () => {
    const me = await createAccount(ctx);
    const { listingId } = await galleryWithClient(ctx, me);
    const big = await call(ctx, 'POST', '/v1/invoices', {
      key: me.key,
      body: { listing_id: listingId, items: [{ description: 'A', unit_amount: 100 }], discount: 101 },
    });
    assert.deepEqual(detailFields(expectError(big, 400, 'validation_error')), ['discount']);
    const unknown = await call(ctx, 'POST', '/v1/invoices', {
      key: me.key,
      body: { listing_id: listingId, items: [{ product_id: 'prd_nope' }] },
    });
    assert.deepEqual(detailFields(expectError(unknown, 400, 'validation_error')), ['items.0.product_id']);
    const fraction = await call(ctx, 'POST', '/v1/invoices', {
      key: me.key,
      body: { listing_id: listingId, items: [{ description: 'A', unit_amount: 10.5 }] },
    });
    expectError(fraction, 400, 'validation_error');
    const lone = await call(ctx, 'POST', '/v1/listings', { key: me.key, body: { address: '2 Lone Rd' } });
    const none = await call(ctx, 'POST', '/v1/invoices', {
      key: me.key,
      body: { listing_id: lone.json<{ id: string }>().id, items: [{ description: 'A', unit_amount: 1 }] },
    });
    expectError(none, 409, 'conflict');
  });

  test('draft → open → paid, open → void; every other transition is 409', async () => {
    const me = await createAccount(ctx);
    const { listingId } = await galleryWithClient(ctx, me);
    const a = await draft(ctx, me, listingId);
    const patched = await call(ctx, 'PATCH', `/v1/invoices/${a.id}`, { key: me.key, body: { tax_rate_bps: 1_000 } });
    assert.equal(patched.json<InvoiceJson>().total, 27_500);
    expectError(await act(me, a.id, 'void'), 409, 'conflict');
    expectError(await act(me, a.id, 'payments', { amount: 1, method: 'cash' }), 409, 'conflict');

    const issued = await act(me, a.id, 'issue');
    assert.equal(issued.statusCode, 200, issued.body);
    assert.equal(issued.json<InvoiceJson>().status, 'open');
    assert.equal(issued.json<InvoiceJson>().number, 'INV-0001');
    expectError(await act(me, a.id, 'issue'), 409, 'conflict');
    expectError(
      await call(ctx, 'PATCH', `/v1/invoices/${a.id}`, { key: me.key, body: { note: 'x' } }),
      409,
      'conflict',
    );
    expectError(await call(ctx, 'DELETE', `/v1/invoices/${a.id}`, { key: me.key }), 409, 'conflict');

    const over = await act(me, a.id, 'payments', { amount: 27_501, method: 'cash' });
    assert.deepEqual(detailFields(expectError(over, 400, 'validation_error')), ['amount']);
    const part = await act(me, a.id, 'payments', { amount: 7_500, method: 'check', reference: 'CHK 12' });
    assert.equal(part.statusCode, 201, part.body);
    let now = (await call(ctx, 'GET', `/v1/invoices/${a.id}`, { key: me.key })).json<InvoiceJson>();
    assert.deepEqual([now.status, now.amount_paid, now.amount_due], ['open', 7_500, 20_000]);
    const rest = await act(me, a.id, 'payments', { amount: 20_000, method: 'bank_transfer' });
    assert.equal(rest.statusCode, 201, rest.body);
    now = (await call(ctx, 'GET', `/v1/invoices/${a.id}`, { key: me.key })).json<InvoiceJson>();
    assert.deepEqual([now.status, now.amount_paid, now.amount_due], ['paid', 27_500, 0]);
    assert.ok(now.paid_at !== null);
    expectError(await act(me, a.id, 'payments', { amount: 1, method: 'cash' }), 409, 'conflict');
    expectError(await act(me, a.id, 'void'), 409, 'conflict');
    const payments = await call(ctx, 'GET', `/v1/invoices/${a.id}/payments`, { key: me.key });
    assert.deepEqual(
      payments.json<{ data: { amount: number; method: string }[] }>().data.map((p) => [p.amount, p.method]),
      [
        [20_000, 'bank_transfer'],
        [7_500, 'check'],
      ],
    );

    const b = await draft(ctx, me, listingId);
    assert.equal((await act(me, b.id, 'issue')).json<InvoiceJson>().number, 'INV-0002');
    const voided = await act(me, b.id, 'void');
    assert.equal(voided.json<InvoiceJson>().status, 'void');
    assert.equal(voided.json<InvoiceJson>().amount_due, 0);
    for (const action of ['void', 'issue']) expectError(await act(me, b.id, action), 409, 'conflict');
    expectError(await act(me, b.id, 'payments', { amount: 1, method: 'cash' }), 409, 'conflict');

    // A deleted draft never held a number; the next issue is INV-0003, never a reused one.
    const c = await draft(ctx, me, listingId);
    assert.equal((await call(ctx, 'DELETE', `/v1/invoices/${c.id}`, { key: me.key })).statusCode, 204);
    const d = await draft(ctx, me, listingId);
    assert.equal((await act(me, d.id, 'issue')).json<InvoiceJson>().number, 'INV-0003');

    const types = await call(ctx, 'GET', '/v1/events', { key: me.key, query: { limit: '100' } });
    const seen = types.json<{ data: { type: string }[] }>().data.map((e) => e.type);
    for (const type of [
      'invoice.created',
      'invoice.updated',
      'invoice.issued',
      'invoice.paid',
      'invoice.voided',
      'payment.created',
    ]) {
      assert.ok(seen.includes(type), `${type} recorded`);
    }

    const open = await call(ctx, 'GET', '/v1/invoices', { key: me.key, query: { status: 'open' } });
    assert.deepEqual(
      open.json<{ data: InvoiceJson[] }>().data.map((i) => i.id),
      [d.id],
    );
    const byListing = await call(ctx, 'GET', '/v1/invoices', {
      key: me.key,
      query: { listing_id: listingId, limit: '2' },
    });
    const page = byListing.json<{ data: InvoiceJson[]; pagination: { total: number; next_cursor: string | null } }>();
    assert.equal(page.pagination.total, 3);
    assert.ok(page.pagination.next_cursor !== null);
  });

  test('the PDF: fonts embedded, text selectable (studio, client, number, items, totals)', async () => {
    const me = await createAccount(ctx, 'North Light Studio');
    const { listingId } = await galleryWithClient(ctx, me);
    const inv = await draft(ctx, me, listingId, {
      items: [{ description: 'Twilight photos', unit_amount: 1_999, quantity: 3 }],
      discount: 500,
      tax_rate_bps: 825,
    });
    await act(me, inv.id, 'issue');
    const res = await call(ctx, 'GET', `/v1/invoices/${inv.id}/pdf`, { key: me.key });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/pdf');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'invoice-pdf-'));
    const file = path.join(dir, 'invoice.pdf');
    await writeFile(file, res.rawPayload);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    for (const expected of [
      'North Light Studio',
      'Ana Client',
      'INV-0001',
      'Twilight photos',
      'USD 59.97',
      'USD 4.54',
      'USD 59.51',
      '1 Harbour St',
    ]) {
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    }
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' }).trim().split('\n').slice(2);
    assert.ok(fonts.length >= 1);
    for (const line of fonts) assert.match(line, /DejaVuSans.*\byes\s+yes\b/, `embedded and subset: ${line}`);
    if (process.env.INVOICE_PDF_PNG !== undefined) {
      execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', file, process.env.INVOICE_PDF_PNG]);
    }
    await rm(dir, { recursive: true, force: true });
    // The same invoice, the same bytes: a strong tag, 304 on a match; a payment makes a new one.
    const again = await call(ctx, 'GET', `/v1/invoices/${inv.id}/pdf`, { key: me.key });
    assert.deepEqual(again.rawPayload, res.rawPayload);
    const etag = String(res.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
    const cached = await call(ctx, 'GET', `/v1/invoices/${inv.id}/pdf`, {
      key: me.key,
      headers: { 'if-none-match': etag },
    });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.rawPayload.length, 0);
    assert.equal((await act(me, inv.id, 'payments', { amount: 1_000, method: 'check' })).statusCode, 201);
    const changed = await call(ctx, 'GET', `/v1/invoices/${inv.id}/pdf`, {
      key: me.key,
      headers: { 'if-none-match': etag },
    });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
  });

  test('concurrent issues take INV-0001..n, no gap, no duplicate; test mode counts apart', async () => {
    const me = await createAccount(ctx);
    const { listingId } = await galleryWithClient(ctx, me);
    const n = 12;
    const drafts = await Promise.all(Array.from({ length: n }, () => draft(ctx, me, listingId)));
    const issued = await Promise.all(drafts.map((d) => act(me, d.id, 'issue')));
    for (const res of issued) assert.equal(res.statusCode, 200, res.body);
    const numbers = issued.map((r) => r.json<InvoiceJson>().number).sort();
    assert.deepEqual(
      numbers,
      Array.from({ length: n }, (_, i) => `INV-${String(i + 1).padStart(4, '0')}`),
    );

    const test = await testModeOf(ctx, me);
    const testGallery = await galleryWithClient(ctx, test);
    const t = await draft(ctx, test, testGallery.listingId);
    assert.equal((await act(test, t.id, 'issue')).json<InvoiceJson>().number, 'INV-0001');
    expectError(await call(ctx, 'GET', `/v1/invoices/${t.id}`, { key: me.key }), 404, 'not_found');
    expectError(await call(ctx, 'GET', `/v1/invoices/${drafts[0]?.id ?? ''}`, { key: test.key }), 404, 'not_found');
  });

  test(
    'two nodes on one PostgreSQL database: issues split between them still number 1..n',
    { skip: !isPostgres },
    async () => {
      const database = ctx.config.database;
      assert.equal(database.kind, 'postgres');
      const second = await createTestContext({ DATABASE_URL: database.kind === 'postgres' ? database.url : '' });
      try {
        const me = await createAccount(ctx);
        const { listingId } = await galleryWithClient(ctx, me);
        const n = 16;
        const drafts = await Promise.all(Array.from({ length: n }, () => draft(ctx, me, listingId)));
        const issued = await Promise.all(
          drafts.map((d, i) => call(i % 2 === 0 ? ctx : second, 'POST', `/v1/invoices/${d.id}/issue`, { key: me.key })),
        );
        for (const res of issued) assert.equal(res.statusCode, 200, res.body);
        const numbers = issued.map((r) => r.json<InvoiceJson>().number).sort();
        assert.deepEqual(
          numbers,
          Array.from({ length: n }, (_, i) => `INV-${String(i + 1).padStart(4, '0')}`),
        );
      } finally {
        await second.close();
      }
    },
  );
});
