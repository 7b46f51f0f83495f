import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { matchesAny } from '../../http/send-bytes.ts';
import {
  Answer,
  ErrorAnswer,
  errorResponses,
  NoContent,
  PageQuery,
  READ_ERRORS,
  WRITE_ERRORS,
} from '../../http/schemas.ts';
import {
  Invoice,
  InvoiceCreateBody,
  InvoiceList,
  InvoiceListQuery,
  InvoiceParams,
  InvoiceUpdateBody,
  Payment,
  PaymentCreateBody,
  PaymentList,
} from './invoices.schemas.ts';
import type { InvoicesService } from './invoices.service.ts';

const tags = ['Invoices'];
const TRANSITION = ErrorAnswer(
  'Conflict (`conflict`): the invoice is not in a status this operation leaves from (docs/api.md §29), or the ' +
    'Idempotency-Key was used for a different request, or that request is still running.',
);

export function registerInvoicesRoutes(app: App, { invoices }: { invoices: InvoicesService }): void {
  app.get(
    '/invoices',
    {
      schema: {
        operationId: 'listInvoices',
        summary: 'List invoices, newest first, by gallery, client or status',
        tags,
        querystring: InvoiceListQuery,
        response: { 200: Answer(InvoiceList, 'A page of invoices, newest first.'), ...errorResponses(400, 401) },
      },
    },
    (request) => invoices.list(request.auth.accountId, request.query),
  );

  app.post(
    '/invoices',
    {
      schema: {
        operationId: 'createInvoice',
        summary: "Create a draft invoice for a gallery's client",
        description:
          'Each item is a `product_id` (its name and price copied) or a `description` and `unit_amount`. 409 when ' +
          'the gallery has no client.',
        tags,
        body: InvoiceCreateBody,
        response: {
          201: Answer(Invoice, 'Created: the draft invoice.'),
          ...errorResponses(400, 401, 403, 413, 415),
          409: ErrorAnswer('Conflict (`conflict`): the gallery has no client; or the Idempotency-Key was reused.'),
        },
      },
    },
    async (request, reply) => {
      const invoice = await invoices.create(request.auth.accountId, request.body);
      return reply.code(201).header('location', `/v1/invoices/${invoice.id}`).send(invoice);
    },
  );

  app.get(
    '/invoices/:id',
    {
      schema: {
        operationId: 'getInvoice',
        summary: 'Get an invoice',
        tags,
        params: InvoiceParams,
        response: { 200: Answer(Invoice, 'The invoice.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => invoices.get(request.auth.accountId, request.params.id),
  );

  app.patch(
    '/invoices/:id',
    {
      schema: {
        operationId: 'updateInvoice',
        summary: 'Change a draft invoice',
        tags,
        params: InvoiceParams,
        body: InvoiceUpdateBody,
        response: {
          200: Answer(Invoice, 'The invoice, as changed.'),
          ...errorResponses(...WRITE_ERRORS),
          409: TRANSITION,
        },
      },
    },
    (request) => invoices.update(request.auth.accountId, request.params.id, request.body),
  );

  app.delete(
    '/invoices/:id',
    {
      schema: {
        operationId: 'deleteInvoice',
        summary: 'Delete a draft invoice',
        tags,
        params: InvoiceParams,
        response: {
          204: NoContent('No content: the draft is deleted.'),
          ...errorResponses(401, 403, 404),
          409: TRANSITION,
        },
      },
    },
    async (request, reply) => {
      await invoices.remove(request.auth.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  for (const [action, operationId, summary, answer] of [
    [
      'issue',
      'issueInvoice',
      "Issue a draft (draft → open): numbered, and emailed to the gallery's client",
      'The invoice, open, with its number.',
    ],
    ['void', 'voidInvoice', 'Void an open invoice (open → void)', 'The invoice, void.'],
  ] as const) {
    app.post(
      `/invoices/:id/${action}`,
      {
        schema: {
          operationId,
          summary,
          tags,
          params: InvoiceParams,
          response: {
            200: Answer(Invoice, answer),
            ...errorResponses(401, 403, 404),
            409: TRANSITION,
          },
        },
      },
      (request) =>
        action === 'issue'
          ? invoices.issue(request.auth.accountId, request.params.id)
          : invoices.void(request.auth.accountId, request.params.id),
    );
  }

  app.post(
    '/invoices/:id/payments',
    {
      schema: {
        operationId: 'createPayment',
        summary: 'Record money received outside for an open invoice',
        description:
          '`amount` 1..amount_due; reaching the total makes the invoice `paid` and emails the client a receipt.',
        tags,
        params: InvoiceParams,
        body: PaymentCreateBody,
        response: {
          201: Answer(Payment, 'Created: the payment.'),
          ...errorResponses(...WRITE_ERRORS),
          409: TRANSITION,
        },
      },
    },
    async (request, reply) => {
      const payment = await invoices.addPayment(request.auth.accountId, request.params.id, request.body);
      return reply.code(201).send(payment);
    },
  );

  app.get(
    '/invoices/:id/pdf',
    {
      schema: {
        operationId: 'getInvoicePdf',
        summary: 'The invoice as a PDF',
        description: 'Text selectable (fonts embedded): the studio, the client, the number, the items and the totals.',
        tags,
        params: InvoiceParams,
        response: {
          // The PDF as its own type; the errors stay JSON (docs/api.md §2).
          200: {
            description: 'The PDF (`application/pdf`).',
            content: {
              'application/pdf': {
                schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', maxLength: 16 * 1024 * 1024 }),
              },
            },
          },
          304: { type: 'null', description: 'Not modified: the `ETag` matches (`If-None-Match`).' },
          ...errorResponses(...READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { number, bytes } = await invoices.pdf(request.auth.accountId, request.params.id);
      // The same invoice renders the same bytes (dated by its last change): a strong tag of them.
      const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
      void reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (matchesAny(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${number ?? 'invoice-draft'}.pdf"`)
        .send(bytes);
    },
  );

  app.get(
    '/invoices/:id/payments',
    {
      schema: {
        operationId: 'listPayments',
        summary: "An invoice's payments, newest first",
        tags,
        params: InvoiceParams,
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: Answer(PaymentList, 'A page of payments, newest first.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => invoices.listPayments(request.auth.accountId, request.params.id, request.query),
  );
}
