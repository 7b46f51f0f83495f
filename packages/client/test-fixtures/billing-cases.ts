// The products and invoices part of resources.test.ts (docs/api.md §29), in its own file so that
// one stays short: every operation of lb.products and lb.invoices against the same real server,
// whose request log the completeness check reads.
import assert from 'node:assert/strict';
import { ConflictError, NotFoundError, ValidationError, type Lightbox } from '../src/node.ts';

export async function productsAndInvoices(lb: Lightbox): Promise<void> {
  // docs/api.md §29: every amount an integer in minor units.
  const product = await lb.products.create({ name: 'Twilight photos', unit_amount: 15000 });
  assert.equal(product.lastResponse.status, 201);
  assert.match(product.id, /^prd_/);
  assert.equal((await lb.products.get(product.id)).unit_amount, 15000);
  const repriced = await lb.products.update(product.id, { unit_amount: 12500, description: 'At dusk' });
  assert.deepEqual([repriced.unit_amount, repriced.description], [12500, 'At dusk']);
  assert.deepEqual(
    (await lb.products.list({ limit: 10 })).data.map((p) => p.id),
    [product.id],
  );
  const catalogue: string[] = [];
  for await (const p of lb.products.iterate()) catalogue.push(p.id);
  assert.deepEqual(catalogue, [product.id]);

  const gallery = await lb.listings.create({ address: '3 Invoice Street' });
  await assert.rejects(
    lb.invoices.create({ listing_id: gallery.id, items: [{ product_id: product.id }] }),
    ConflictError,
    'a gallery without a client cannot be invoiced',
  );
  const client = await lb.clients.create({ name: 'Bea', email: 'bea@example.test' });
  await lb.clients.assign(client.id, gallery.id, { notify: false });
  const draft = await lb.invoices.create({
    listing_id: gallery.id,
    items: [
      { product_id: product.id, quantity: 2 },
      { description: 'Drone', unit_amount: 9999 },
    ],
    discount: 999,
    tax_rate_bps: 825,
  });
  assert.equal(draft.lastResponse.status, 201);
  assert.match(draft.id, /^ivc_/);
  // 25000 + 9999 - 999 = 34000; tax 34000 × 8.25 % = 2805.
  assert.deepEqual(
    [draft.status, draft.client_id, draft.number, draft.subtotal, draft.tax, draft.total, draft.amount_due],
    ['draft', client.id, null, 34999, 2805, 36805, 36805],
  );
  const noted = await lb.invoices.update(draft.id, { note: 'Thank you', discount: 0 });
  assert.deepEqual([noted.note, noted.total], ['Thank you', 37886]);
  assert.equal((await lb.invoices.get(draft.id)).note, 'Thank you');

  const open = await lb.invoices.issue(draft.id);
  assert.equal(open.status, 'open');
  assert.match(open.number ?? '', /^INV-\d{4,}$/);
  await assert.rejects(lb.invoices.update(draft.id, { note: 'late' }), ConflictError);
  await assert.rejects(lb.invoices.delete(draft.id), ConflictError);
  assert.deepEqual(
    (await lb.invoices.list({ listing_id: gallery.id, status: 'open' })).data.map((i) => i.id),
    [draft.id],
  );
  assert.deepEqual((await lb.invoices.list({ client_id: client.id, status: 'paid' })).data, []);

  const pdfAnswer = await lb.invoices.downloadPdf(draft.id);
  assert.equal(pdfAnswer.status, 200);
  assert.equal(pdfAnswer.headers.get('content-type'), 'application/pdf');
  assert.equal(
    Buffer.from(await pdfAnswer.arrayBuffer())
      .subarray(0, 5)
      .toString(),
    '%PDF-',
  );

  await assert.rejects(
    lb.invoices.createPayment(draft.id, { amount: 37887, method: 'cash' }),
    ValidationError,
    'more than the amount due',
  );
  const part = await lb.invoices.createPayment(draft.id, { amount: 7886, method: 'check', reference: 'No. 12' });
  assert.equal(part.lastResponse.status, 201);
  assert.match(part.id, /^pay_/);
  assert.equal((await lb.invoices.get(draft.id)).amount_due, 30000);
  const rest = await lb.invoices.createPayment(draft.id, { amount: 30000, method: 'bank_transfer' });
  const paid = await lb.invoices.get(draft.id);
  assert.deepEqual([paid.status, paid.amount_paid, paid.amount_due], ['paid', 37886, 0]);
  assert.deepEqual((await lb.invoices.listPayments(draft.id)).data.map((p) => p.id).sort(), [part.id, rest.id].sort());
  const walked: string[] = [];
  for await (const p of lb.invoices.iteratePayments(draft.id)) walked.push(p.id);
  assert.equal(walked.length, 2);
  await assert.rejects(lb.invoices.void(draft.id), ConflictError, 'a paid invoice cannot be voided');

  const second = await lb.invoices.create({
    listing_id: gallery.id,
    items: [{ description: 'Floor plan', unit_amount: 5000 }],
  });
  assert.equal((await lb.invoices.void((await lb.invoices.issue(second.id)).id)).status, 'void');
  const third = await lb.invoices.create({
    listing_id: gallery.id,
    items: [{ description: 'Spare', unit_amount: 1 }],
  });
  assert.equal((await lb.invoices.delete(third.id)).status, 204);
  await assert.rejects(lb.invoices.get(third.id), NotFoundError);
  const all: string[] = [];
  for await (const i of lb.invoices.iterate({ listing_id: gallery.id })) all.push(i.id);
  assert.deepEqual(all.sort(), [draft.id, second.id].sort());

  assert.equal((await lb.products.delete(product.id)).status, 204);
  await assert.rejects(lb.products.get(product.id), NotFoundError);
  assert.equal((await lb.invoices.get(draft.id)).items[0]?.description, 'Twilight photos', 'the invoice kept its copy');
}
