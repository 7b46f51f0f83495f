// Helpers for the pay-to-unlock suites (docs/api.md §29): an invoice that locks a gallery, a
// payment, and the previews' job run now as the serve process's runner would.
import assert from 'node:assert/strict';
import { createJobRunner } from '../../src/mechanisms/queue/queue.runner.ts';
import { studioName } from '../../src/jobs.ts';
import { watermarkHandler } from '../../src/modules/variants/variants.watermark.job.ts';
import { call, type TestContext } from './test-app.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Makes every queued preview now. */
export async function makePreviewsNow(ctx: TestContext): Promise<void> {
  const handler = watermarkHandler(
    { ...ctx.deps, writes: ctx.services.writes },
    ctx.services.mediaCleanup,
    studioName(ctx.services),
    (id) => ctx.services.logos.key(id),
    quiet,
  );
  await createJobRunner(ctx.deps, quiet, handler).drain();
}

export interface InvoiceJson {
  id: string;
  number: string | null;
  status: string;
  total: number;
  amount_due: number;
}

/** An invoice of `amount` for the gallery, issued (open): with pay_to_unlock, the gallery is locked. */
export async function issuedInvoice(
  ctx: TestContext,
  key: string,
  listingId: string,
  amount: number,
  payToUnlock = true,
): Promise<InvoiceJson> {
  const created = await call(ctx, 'POST', '/v1/invoices', {
    key,
    body: {
      listing_id: listingId,
      items: [{ description: 'Photography', unit_amount: amount }],
      pay_to_unlock: payToUnlock,
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const issued = await call(ctx, 'POST', `/v1/invoices/${created.json<InvoiceJson>().id}/issue`, { key });
  assert.equal(issued.statusCode, 200, issued.body);
  return issued.json<InvoiceJson>();
}

/** Records money received outside for the invoice (POST /v1/invoices/:id/payments). */
export async function pay(ctx: TestContext, key: string, invoiceId: string, amount: number): Promise<void> {
  const res = await call(ctx, 'POST', `/v1/invoices/${invoiceId}/payments`, {
    key,
    body: { amount, method: 'bank_transfer' },
  });
  assert.equal(res.statusCode, 201, res.body);
}
