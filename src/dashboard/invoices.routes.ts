// Invoices in the dashboard (docs/api.md §29): the list with its status filter, an invoice's page
// and what its status allows (a draft: edit, issue, delete; an open one: record a payment, void),
// its PDF, and a new invoice made from a gallery's page. Every write is the invoices service's,
// as its /v1 twin's, so numbers, events, emails and the pay-to-unlock lock stay right whatever
// wrote. A refused form comes back as typed (400) with what to fix beside each field.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import type { SafeHtml } from '../lib/html.ts';
import { INVOICE_STATUSES, PAYMENT_METHODS } from '../db/schema-invoices.ts';
import { PaymentCreateBody, type InvoiceType, type PaymentCreateInput } from '../modules/invoices/invoices.schemas.ts';
import type { ProductType } from '../modules/products/products.schemas.ts';
import type { Services } from '../services.ts';
import { formFields, hasErrors, schemaFieldErrors } from './form.ts';
import { readMoney } from './money-form.ts';
import { readInvoiceForm, serviceErrors } from './invoice-input.ts';
import { noticeOf } from './notices.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { BILLING } from './products.routes.ts';
import type { FieldErrors, Notice, Viewer } from './views/layout.ts';
import {
  confirmInvoicePage,
  invoicePage,
  invoicesPage,
  invoicesUrl,
  type InvoiceStatusFilter,
} from './views/invoices.ts';
import type { PaymentFormValues } from './views/invoice-payments.ts';
import { emptyInvoiceForm, type InvoiceFormState } from './views/invoice-form.ts';
import type { GalleryPageOptions } from './views/gallery.ts';
import type { Account } from '../modules/accounts/accounts.service.ts';

/** Lines and a note of 2,000 characters, each up to a few bytes encoded. */
const INVOICE_FORM = 96 * 1024;
const PAGE_SIZE = 25;

const INVOICE_NOTICES: Record<string, Notice> = {
  'invoice-created': {
    kind: 'success',
    text: 'Draft invoice made. Check it, then issue it to number it and email the client.',
  },
  'invoice-saved': { kind: 'success', text: 'Draft saved.' },
  'invoice-issued': { kind: 'success', text: 'Issued: the invoice is numbered and on its way to the client.' },
  'invoice-deleted': { kind: 'success', text: 'The draft invoice was deleted.' },
  'invoice-voided': { kind: 'success', text: 'The invoice is void: nothing is due on it.' },
  'payment-recorded': { kind: 'success', text: 'Payment recorded.' },
  'invoice-paid': {
    kind: 'success',
    text: 'Payment recorded: the invoice is paid and the client is emailed a receipt.',
  },
  'invoice-not-draft': { kind: 'error', text: 'That invoice is no longer a draft: nothing was changed.' },
  'invoice-not-open': { kind: 'error', text: 'That invoice is not open: nothing was changed.' },
};

const invoiceNotice = (request: FastifyRequest): Notice | null => {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return (typeof code === 'string' ? INVOICE_NOTICES[code] : undefined) ?? noticeOf(request);
};

const conflict = (err: unknown): boolean => err instanceof AppError && err.code === 'conflict';

/** The catalogue's products offered on an invoice: the active ones (a page of them). */
async function activeProducts(services: Services, accountId: string): Promise<ProductType[]> {
  return (await services.products.list(accountId, { limit: 100 })).data.filter((p) => p.active);
}

/** The new invoice's form as typed, or refused for want of a client (409). */
export interface GalleryInvoiceForm {
  state: InvoiceFormState;
  noClient?: boolean;
}

/**
 * The gallery page's Invoices card: its invoices and the new invoice's form (as typed, after a
 * refusal). Billing is the owner's (src/dashboard/products.routes.ts): a member's page has none.
 */
export async function galleryInvoices(
  services: Services,
  viewer: Viewer,
  account: Account,
  listingId: string,
  invoice?: GalleryInvoiceForm,
): Promise<GalleryPageOptions['invoices']> {
  if (viewer.role !== 'owner') return null;
  const [list, products] = await Promise.all([
    services.invoices.list(account.id, { listing_id: listingId, limit: 100 }),
    activeProducts(services, account.id),
  ]);
  return {
    currency: account.currency,
    items: list.data,
    products,
    state: invoice?.state ?? { values: emptyInvoiceForm(products), errors: {} },
    open: invoice !== undefined,
    noClient: invoice?.noClient === true,
  };
}

/** The gallery's page with the invoice card's form as typed (src/dashboard/galleries.routes.ts draws it). */
type RenderGallery = (request: FastifyRequest, id: string, invoice: GalleryInvoiceForm) => Promise<SafeHtml>;

export function registerInvoicesRoutes(scope: App, ctx: DashboardContext, renderGallery: RenderGallery): void {
  const { services } = ctx;
  const { invoices } = services;
  const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

  scope.get('/invoices', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    const query = request.query as Record<string, unknown>;
    const status = (INVOICE_STATUSES as readonly unknown[]).includes(query.status)
      ? (query.status as InvoiceStatusFilter)
      : '';
    const cursor = typeof query.cursor === 'string' ? query.cursor : '';
    const ask = { limit: PAGE_SIZE, ...(status === '' ? {} : { status }) };
    let notice = invoiceNotice(request);
    let list;
    try {
      list = await invoices.list(account.id, cursor === '' ? ask : { ...ask, cursor });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'validation_error') || cursor === '') throw err;
      list = await invoices.list(account.id, ask);
      notice = { kind: 'info', text: 'That page of the list is no longer available: here is the first page.' };
    }
    const named = async <T extends { id: string }>(ids: string[], get: (id: string) => Promise<T>) =>
      (await Promise.all([...new Set(ids)].map((id) => get(id).catch(() => null)))).filter((x) => x !== null);
    const [galleries, clients] = await Promise.all([
      named(
        list.data.map((i) => i.listing_id),
        (id) => services.listings.get(account.id, id),
      ),
      named(
        list.data.map((i) => i.client_id),
        (id) => services.clients.get(account.id, id),
      ),
    ]);
    const next = list.pagination.next_cursor;
    return sendPage(
      reply,
      invoicesPage({
        viewer,
        notice,
        status,
        items: list.data,
        total: list.pagination.total,
        galleries: new Map(galleries.map((g) => [g.id, g.address])),
        clients: new Map(clients.map((c) => [c.id, c.name])),
        nextUrl: next === null ? null : invoicesUrl(status, next),
        paged: cursor !== '',
      }),
    );
  });

  async function renderInvoice(
    request: FastifyRequest,
    invoice: InvoiceType,
    forms: { edit?: InvoiceFormState; payment?: { values: PaymentFormValues; errors: FieldErrors } } = {},
  ) {
    const { viewer, account } = viewerOf(request);
    const [gallery, client, payments, products] = await Promise.all([
      services.listings.get(account.id, invoice.listing_id).catch(() => null),
      services.clients.get(account.id, invoice.client_id).catch(() => null),
      invoices.listPayments(account.id, invoice.id, { limit: 100 }),
      invoice.status === 'draft' ? activeProducts(services, account.id) : [],
    ]);
    const refused = forms.edit !== undefined || forms.payment !== undefined;
    return invoicePage({
      viewer,
      notice: refused ? null : invoiceNotice(request),
      invoice,
      gallery: gallery === null ? null : { id: gallery.id, address: gallery.address },
      client: client === null ? null : { id: client.id, name: client.name, email: client.email },
      payments: payments.data,
      products,
      ...forms,
    });
  }

  scope.get('/invoices/:id', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    return sendPage(reply, await renderInvoice(request, await invoices.get(account.id, idOf(request))));
  });

  // docs/api.md §29: the PDF, as GET /v1/invoices/:id/pdf serves it, for the signed-in studio.
  scope.get('/invoices/:id/pdf', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { number, bytes } = await invoices.pdf(account.id, idOf(request));
    const name = number ?? 'draft-invoice';
    return reply
      .headers({
        'content-type': 'application/pdf',
        // Not a page: the pages' policy (default-src 'none') could keep a browser's PDF viewer
        // from showing it; it is still never framed by another site.
        'content-security-policy': "frame-ancestors 'none'",
        'content-disposition': `inline; filename="${name}.pdf"`,
        'cache-control': 'private, no-store',
      })
      .send(bytes);
  });

  const toInvoice = (reply: FastifyReply, id: string, notice: string, anchor = '') =>
    reply.redirect(`/dashboard/invoices/${id}?notice=${notice}${anchor === '' ? '' : `#${anchor}`}`, 303);

  scope.post(
    '/invoices/:id',
    { config: BILLING, schema: PAGE_ROUTE, bodyLimit: INVOICE_FORM },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const current = await invoices.get(account.id, idOf(request));
      if (current.status !== 'draft') return toInvoice(reply, current.id, 'invoice-not-draft');
      const read = readInvoiceForm(formFields(request.body), current.currency);
      const refuse = async (errors: FieldErrors) =>
        sendPage(reply, await renderInvoice(request, current, { edit: { values: read.values, errors } }), 400);
      if (hasErrors(read.errors)) return refuse(read.errors);
      try {
        await invoices.update(account.id, current.id, read.input);
      } catch (err) {
        if (conflict(err)) return toInvoice(reply, current.id, 'invoice-not-draft');
        const errors = serviceErrors(err, read.rowOf, read.values);
        if (errors === null) throw err;
        return refuse(errors);
      }
      return toInvoice(reply, current.id, 'invoice-saved');
    },
  );

  scope.post('/invoices/:id/issue', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const id = idOf(request);
    try {
      await invoices.issue(account.id, id);
    } catch (err) {
      if (conflict(err)) return toInvoice(reply, id, 'invoice-not-draft');
      throw err;
    }
    return toInvoice(reply, id, 'invoice-issued');
  });

  for (const action of ['delete', 'void'] as const) {
    scope.get(`/invoices/:id/${action}`, { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
      const { viewer, account } = viewerOf(request);
      const invoice = await invoices.get(account.id, idOf(request));
      if (invoice.status !== (action === 'delete' ? 'draft' : 'open')) {
        return toInvoice(reply, invoice.id, action === 'delete' ? 'invoice-not-draft' : 'invoice-not-open');
      }
      return sendPage(reply, confirmInvoicePage({ viewer, invoice, action }));
    });
  }

  scope.post('/invoices/:id/delete', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const id = idOf(request);
    try {
      await invoices.remove(account.id, id);
    } catch (err) {
      if (conflict(err)) return toInvoice(reply, id, 'invoice-not-draft');
      throw err;
    }
    return reply.redirect('/dashboard/invoices?notice=invoice-deleted', 303);
  });

  scope.post('/invoices/:id/void', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const id = idOf(request);
    try {
      await invoices.void(account.id, id);
    } catch (err) {
      if (conflict(err)) return toInvoice(reply, id, 'invoice-not-open');
      throw err;
    }
    return toInvoice(reply, id, 'invoice-voided');
  });

  scope.post('/invoices/:id/payments', { config: BILLING, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const current = await invoices.get(account.id, idOf(request));
    if (current.status !== 'open') return toInvoice(reply, current.id, 'invoice-not-open');
    const form = formFields(request.body);
    const values: PaymentFormValues = {
      amount: form.get('amount').trim(),
      method: form.get('method'),
      reference: form.get('reference').trim(),
    };
    const amount = readMoney(values.amount, current.currency, current.amount_due, 1);
    const input: PaymentCreateInput = {
      amount: amount.amount ?? 1,
      method: values.method as PaymentCreateInput['method'],
      reference: values.reference === '' ? null : values.reference,
    };
    const errors = schemaFieldErrors(PaymentCreateBody, input, {
      method: { choice: `Choose one of: ${PAYMENT_METHODS.join(', ')}` },
    });
    if (amount.error !== undefined) errors.amount = amount.error;
    const refuse = async (e: FieldErrors) =>
      sendPage(reply, await renderInvoice(request, current, { payment: { values, errors: e } }), 400);
    if (hasErrors(errors)) return refuse(errors);
    try {
      await invoices.addPayment(account.id, current.id, input);
    } catch (err) {
      if (conflict(err)) return toInvoice(reply, current.id, 'invoice-not-open');
      if (err instanceof AppError && err.code === 'validation_error') {
        return refuse({ amount: 'Enter at most the amount due' });
      }
      throw err;
    }
    const after = await invoices.get(account.id, current.id);
    return toInvoice(reply, current.id, after.status === 'paid' ? 'invoice-paid' : 'payment-recorded');
  });

  // docs/api.md §29: a new invoice for the gallery's client, from its page; the draft's page next.
  scope.post(
    '/galleries/:id/invoices',
    { config: BILLING, schema: PAGE_ROUTE, bodyLimit: INVOICE_FORM },
    async (request, reply) => {
      const { account } = viewerOf(request);
      const id = idOf(request);
      // Another account's gallery (or none such): the 404 page, whatever the form says.
      const listing = await services.listings.get(account.id, id);
      const read = readInvoiceForm(formFields(request.body), account.currency);
      const again = async (state: InvoiceFormState, status: number, noClient = false) =>
        sendPage(reply, await renderGallery(request, listing.id, { state, noClient }), status);
      if (listing.client_id === null) return again({ values: read.values, errors: {} }, 409, true);
      if (hasErrors(read.errors)) return again({ values: read.values, errors: read.errors }, 400);
      let created;
      try {
        created = await invoices.create(account.id, { listing_id: listing.id, ...read.input });
      } catch (err) {
        if (conflict(err)) return again({ values: read.values, errors: {} }, 409, true);
        const errors = serviceErrors(err, read.rowOf, read.values);
        if (errors === null) throw err;
        return again({ values: read.values, errors }, 400);
      }
      return toInvoice(reply, created.id, 'invoice-created');
    },
  );
}
