// Helpers for the suites that walk every route (docs/api.md §29): products and invoices as the
// security suite's route table takes them, each prepared in the account on data of its own.
import assert from 'node:assert/strict';
import { call, type TestAccount, type TestContext } from './test-app.ts';

/** A product of the account's catalogue: its id. */
export async function newProduct(ctx: TestContext, account: TestAccount): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/products', {
    key: account.key,
    body: { name: 'Photos, 25 images', unit_amount: 25_000 },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

/** A draft invoice of a gallery that has a client; `open` issues it. */
export async function newInvoice(
  ctx: TestContext,
  account: TestAccount,
  listingId: string,
  { open = false } = {},
): Promise<string> {
  const res = await call(ctx, 'POST', '/v1/invoices', {
    key: account.key,
    body: { listing_id: listingId, items: [{ description: 'Photos', unit_amount: 25_000 }], pay_to_unlock: false },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json<{ id: string }>().id;
  if (open) {
    const issued = await call(ctx, 'POST', `/v1/invoices/${id}/issue`, { key: account.key });
    assert.equal(issued.statusCode, 200, issued.body);
  }
  return id;
}

/**
 * The product and invoice operations as the security suite's route table takes them. `assignedPair`
 * makes a gallery of the account with a client assigned (an invoice's client is its gallery's).
 */
export function invoiceRouteCases(
  context: () => TestContext,
  assignedPair: (a: TestAccount) => Promise<{ listingId: string }>,
) {
  const galleryWithClient = async (a: TestAccount) => (await assignedPair(a)).listingId;
  const product = async (a: TestAccount) => `/v1/products/${await newProduct(context(), a)}`;
  const invoice = async (a: TestAccount, open = false) =>
    `/v1/invoices/${await newInvoice(context(), a, await galleryWithClient(a), { open })}`;
  const ok = (url: string, status: number, body?: Record<string, unknown>) => ({
    url,
    status,
    ...(body === undefined ? {} : { body }),
  });
  return [
    { method: 'GET', path: '/v1/products', prepare: () => Promise.resolve(ok('/v1/products', 200)) },
    {
      method: 'POST',
      path: '/v1/products',
      prepare: () => Promise.resolve(ok('/v1/products', 201, { name: 'Drone', unit_amount: 9_900 })),
    },
    { method: 'GET', path: '/v1/products/:id', prepare: async (a: TestAccount) => ok(await product(a), 200) },
    {
      method: 'PATCH',
      path: '/v1/products/:id',
      prepare: async (a: TestAccount) => ok(await product(a), 200, { active: false }),
    },
    { method: 'DELETE', path: '/v1/products/:id', prepare: async (a: TestAccount) => ok(await product(a), 204) },
    { method: 'GET', path: '/v1/invoices', prepare: () => Promise.resolve(ok('/v1/invoices', 200)) },
    {
      method: 'POST',
      path: '/v1/invoices',
      prepare: async (a: TestAccount) =>
        ok('/v1/invoices', 201, {
          listing_id: await galleryWithClient(a),
          items: [{ description: 'Floor plan', unit_amount: 5_000 }],
        }),
    },
    { method: 'GET', path: '/v1/invoices/:id', prepare: async (a: TestAccount) => ok(await invoice(a), 200) },
    {
      method: 'PATCH',
      path: '/v1/invoices/:id',
      prepare: async (a: TestAccount) => ok(await invoice(a), 200, { note: 'Thank you' }),
    },
    { method: 'DELETE', path: '/v1/invoices/:id', prepare: async (a: TestAccount) => ok(await invoice(a), 204) },
    {
      method: 'POST',
      path: '/v1/invoices/:id/issue',
      prepare: async (a: TestAccount) => ok(`${await invoice(a)}/issue`, 200),
    },
    {
      method: 'POST',
      path: '/v1/invoices/:id/void',
      prepare: async (a: TestAccount) => ok(`${await invoice(a, true)}/void`, 200),
    },
    {
      method: 'POST',
      path: '/v1/invoices/:id/payments',
      prepare: async (a: TestAccount) => ok(`${await invoice(a, true)}/payments`, 201, { amount: 100, method: 'cash' }),
    },
    {
      method: 'GET',
      path: '/v1/invoices/:id/payments',
      prepare: async (a: TestAccount) => ok(`${await invoice(a, true)}/payments`, 200),
    },
    {
      method: 'GET',
      path: '/v1/invoices/:id/pdf',
      prepare: async (a: TestAccount) => ok(`${await invoice(a)}/pdf`, 200),
    },
  ] as const;
}
