// Invoices (docs/api.md §29): draft → open (issue, numbered) → paid, or open → void. Every
// transition is guarded in the write itself (the UPDATE names the status it leaves), so two
// racing requests cannot both make one; any other is 409 `conflict`. Amounts come from
// src/modules/money alone.
import type { Deps } from '../../deps.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import type { Executor } from '../../db/executor.ts';
import { listCursors } from '../../db/keyset.ts';
import type { InvoiceStatus } from '../../db/schema-invoices.ts';
import { cursorPage, pageRequest } from '../../lib/cursor-page.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import type { Page } from '../../lib/pagination.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
import { findListing } from '../listings/listings.repository.ts';
import type { AccountsService } from '../accounts/accounts.service.ts';
import { loadClient } from '../clients/clients.service.ts';
import { renderInvoicePdf } from './invoices.pdf.ts';
import { queueGalleryPreviews } from '../variants/variants.watermark.job.ts';
import { amountDue, computeTotals, DiscountTooLarge } from '../money/money.ts';
import { productsByIds } from '../products/products.entry.ts';
import * as repo from './invoices.repository.ts';
import { paymentUrls } from '../stripe/stripe.entry.ts';
import type {
  InvoiceCreateInput,
  InvoiceListQueryType,
  InvoiceType,
  InvoiceUpdateInput,
  ItemInputType,
  PaymentCreateInput,
  PaymentType,
} from './invoices.schemas.ts';

declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    invoice: InvoiceType;
    payment: PaymentType;
  }
}

/** `INV-0001`: the account's n-th invoice, at least four digits. */
const invoiceNumber = (n: number): string => `INV-${String(n).padStart(4, '0')}`;

/** An invoice's payment_url, null when it has none (src/modules/stripe/stripe.entry.ts). */
type PayUrl = (invoice: { id: string; status: string; amount_due: number }) => string | null;

function toInvoice(row: repo.InvoiceRow, items: repo.ItemRow[], payUrl: PayUrl): InvoiceType {
  const total = Number(row.total);
  const paid = Number(row.amount_paid);
  const amount_due = row.status === 'void' ? 0 : amountDue(total, paid);
  return {
    id: row.id,
    number: row.number,
    listing_id: row.listing_id,
    client_id: row.client_id,
    status: row.status,
    items: items.map((i) => ({
      product_id: i.product_id,
      description: i.description,
      quantity: i.quantity,
      unit_amount: Number(i.unit_amount),
      amount: Number(i.amount),
    })),
    subtotal: Number(row.subtotal),
    discount: Number(row.discount),
    tax_rate_bps: row.tax_rate_bps,
    tax: Number(row.tax),
    total,
    amount_paid: paid,
    amount_due,
    currency: row.currency,
    pay_to_unlock: row.pay_to_unlock === 1,
    due_at: row.due_at,
    note: row.note,
    issued_at: row.issued_at,
    paid_at: row.paid_at,
    voided_at: row.voided_at,
    // docs/api.md §29: our pay link while the studio pays online (Stripe, or test mode's local page).
    payment_url: payUrl({ id: row.id, status: row.status, amount_due }),
    pdf_url: `/v1/invoices/${row.id}/pdf`,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const toPayment = (row: repo.PaymentRow): PaymentType => ({
  id: row.id,
  invoice_id: row.invoice_id,
  amount: Number(row.amount),
  method: row.method,
  reference: row.reference,
  paid_at: row.paid_at,
  created_at: row.created_at,
});

export async function loadInvoice(
  trx: Executor,
  publicUrl: string,
  accountId: string,
  id: string,
): Promise<InvoiceType | undefined> {
  const row = await repo.findInvoice(trx, accountId, id);
  if (row === undefined) return undefined;
  return toInvoice(row, await repo.itemsOf(trx, [id]), await paymentUrls(trx, publicUrl, accountId));
}

export async function loadPayment(trx: Executor, accountId: string, id: string): Promise<PaymentType | undefined> {
  const row = await trx
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : toPayment(row);
}

const conflict = (status: InvoiceStatus, action: string): AppError =>
  new AppError('conflict', `This invoice is ${status}: it cannot be ${action}`);

export type InvoicesService = ReturnType<typeof createInvoicesService>;

/** Hooks other features add to an invoice's writes: its emails (docs/api.md §29). */
export interface InvoiceMail {
  issued(w: Write, invoice: InvoiceType): Promise<void>;
  paid(w: Write, invoice: InvoiceType): Promise<void>;
}

export function createInvoicesService({
  db,
  config,
  writes,
  accounts,
  mail,
}: Pick<Deps, 'db' | 'config'> & { writes: Writes; accounts: Pick<AccountsService, 'get'>; mail?: InvoiceMail }) {
  /** The items as stored: a product's name and price copied, or the description and price given. */
  async function itemRows(trx: Executor, accountId: string, invoiceId: string, items: ItemInputType[]) {
    const ids = items.flatMap((i) => (i.product_id === undefined ? [] : [i.product_id]));
    const products = await productsByIds(
      trx,
      accountId,
      ids.filter((id) => hasIdShape('prd', id)),
    );
    return items.map((item, position) => {
      const field = `items.${position}`;
      let description: string;
      let unit: number;
      if (item.product_id !== undefined) {
        const product = products.get(item.product_id);
        if (product === undefined) throw validationError(`${field}.product_id`, 'is not a product of this account');
        description = item.description ?? product.name;
        unit = item.unit_amount ?? product.unit_amount;
      } else {
        if (item.description === undefined)
          throw validationError(`${field}.description`, 'is required without product_id');
        if (item.unit_amount === undefined)
          throw validationError(`${field}.unit_amount`, 'is required without product_id');
        description = item.description;
        unit = item.unit_amount;
      }
      return {
        invoice_id: invoiceId,
        position,
        account_id: accountId,
        product_id: item.product_id ?? null,
        description,
        quantity: item.quantity ?? 1,
        unit_amount: unit,
        amount: 0,
      };
    });
  }

  /** The amounts of these items, discount and rate, from the one place they are computed. */
  function totalsOf(items: { quantity: number; unit_amount: number }[], discount: number, rate: number) {
    try {
      return computeTotals(items, discount, rate);
    } catch (err) {
      if (err instanceof DiscountTooLarge) throw validationError('discount', 'must be at most the subtotal');
      throw err;
    }
  }

  async function requireRow(trx: Executor, accountId: string, id: string): Promise<repo.InvoiceRow> {
    const row = hasIdShape('ivc', id) ? await repo.findInvoice(trx, accountId, id) : undefined;
    if (row === undefined) throw notFound('Invoice');
    return row;
  }

  async function loaded(w: Write, id: string): Promise<InvoiceType> {
    const invoice = await w.load('invoice', id);
    if (invoice === undefined) throw notFound('Invoice');
    return invoice;
  }

  /** Records a payment of an open invoice in `w`; reaching the total makes it paid (and emails the receipt). */
  async function pay(w: Write, id: string, input: PaymentCreateInput): Promise<PaymentType> {
    const row = await requireRow(w.trx, w.accountId, id);
    if (row.status !== 'open') throw conflict(row.status, 'paid');
    const paid = Number(row.amount_paid);
    const due = amountDue(Number(row.total), paid);
    if (input.amount > due) throw validationError('amount', `must be at most the amount due (${due})`);
    const nowPaid = paid + input.amount;
    const settled = nowPaid === Number(row.total);
    const changed = await repo.updateInvoice(
      w.trx,
      w.accountId,
      id,
      'open',
      {
        amount_paid: nowPaid,
        ...(settled ? { status: 'paid' as const, paid_at: w.now } : {}),
        updated_at: w.now,
      },
      paid,
    );
    if (!changed) throw conflict(row.status, 'paid');
    const payment = {
      id: newId('pay'),
      account_id: w.accountId,
      invoice_id: id,
      amount: input.amount,
      method: input.method,
      reference: input.reference ?? null,
      paid_at: input.paid_at === undefined ? w.now : new Date(input.paid_at).toISOString(),
      created_at: w.now,
    };
    await repo.insertPayment(w.trx, payment);
    const object = toPayment(payment);
    w.loaded('payment', object.id, object);
    w.announce('payment.created', object.id);
    w.announce(settled ? 'invoice.paid' : 'invoice.updated', id);
    if (settled) await mail?.paid(w, await loaded(w, id));
    return object;
  }

  return {
    async create(accountId: string, input: InvoiceCreateInput): Promise<InvoiceType> {
      if (!hasIdShape('lst', input.listing_id)) throw validationError('listing_id', 'is not a gallery of this account');
      return writes.run(accountId, { lock: { account: true, listing: input.listing_id } }, async (w) => {
        const listing = w.listing ?? (await findListing(w.trx, accountId, input.listing_id));
        if (listing === undefined) throw validationError('listing_id', 'is not a gallery of this account');
        if (listing.client_id === null) throw new AppError('conflict', 'This gallery has no client to invoice');
        const id = newId('ivc');
        const items = await itemRows(w.trx, accountId, id, input.items);
        const totals = totalsOf(items, input.discount ?? 0, input.tax_rate_bps ?? 0);
        items.forEach((item, i) => (item.amount = totals.amounts[i] ?? 0));
        await repo.insertInvoice(w.trx, {
          id,
          account_id: accountId,
          number: null,
          listing_id: listing.id,
          client_id: listing.client_id,
          status: 'draft',
          subtotal: totals.subtotal,
          discount: totals.discount,
          tax_rate_bps: input.tax_rate_bps ?? 0,
          tax: totals.tax,
          total: totals.total,
          amount_paid: 0,
          currency: w.account?.currency ?? 'USD',
          pay_to_unlock: input.pay_to_unlock === false ? 0 : 1,
          due_at: input.due_at ?? null,
          note: input.note ?? null,
          issued_at: null,
          paid_at: null,
          voided_at: null,
          created_at: w.now,
          updated_at: w.now,
        });
        await repo.replaceItems(w.trx, id, items);
        w.announce('invoice.created', id);
        return loaded(w, id);
      });
    },

    async get(accountId: string, id: string): Promise<InvoiceType> {
      const row = await requireRow(db.kysely, accountId, id);
      const urls = await paymentUrls(db.kysely, config.publicUrl, accountId);
      return toInvoice(row, await repo.itemsOf(db.kysely, [id]), urls);
    },

    async list(accountId: string, query: InvoiceListQueryType): Promise<Page<InvoiceType>> {
      const codec = await listCursors(db);
      const filters = { listingId: query.listing_id, clientId: query.client_id, status: query.status };
      const scope = { list: 'invoices', accountId, params: { ...filters } };
      const request = pageRequest(query, codec, scope);
      const [rows, total, urls] = await Promise.all([
        repo.listInvoices(db.kysely, accountId, filters, request),
        repo.countInvoices(db.kysely, accountId, filters),
        paymentUrls(db.kysely, config.publicUrl, accountId),
      ]);
      const items = await repo.itemsOf(
        db.kysely,
        rows.map((r) => r.id),
      );
      const byInvoice = Map.groupBy(items, (i) => i.invoice_id);
      return cursorPage(
        rows,
        request,
        total,
        codec,
        scope,
        (r) => ({ value: r.created_at, id: r.id }),
        (r) => toInvoice(r, byInvoice.get(r.id) ?? [], urls),
      );
    },

    /** While draft only; the amounts are computed again from what it will hold. */
    async update(accountId: string, id: string, patch: InvoiceUpdateInput): Promise<InvoiceType> {
      return writes.run(accountId, {}, async (w) => {
        const row = await requireRow(w.trx, accountId, id);
        if (row.status !== 'draft') throw conflict(row.status, 'changed');
        const items =
          patch.items === undefined
            ? (await repo.itemsOf(w.trx, [id])).map((i) => ({ ...i, unit_amount: Number(i.unit_amount) }))
            : await itemRows(w.trx, accountId, id, patch.items);
        const rate = patch.tax_rate_bps ?? row.tax_rate_bps;
        const totals = totalsOf(items, patch.discount ?? Number(row.discount), rate);
        const changed = await repo.updateInvoice(w.trx, accountId, id, 'draft', {
          subtotal: totals.subtotal,
          discount: totals.discount,
          tax_rate_bps: rate,
          tax: totals.tax,
          total: totals.total,
          ...(patch.pay_to_unlock === undefined ? {} : { pay_to_unlock: patch.pay_to_unlock ? 1 : 0 }),
          ...(patch.due_at === undefined ? {} : { due_at: patch.due_at }),
          ...(patch.note === undefined ? {} : { note: patch.note }),
          updated_at: w.now,
        });
        if (!changed) throw conflict(row.status, 'changed');
        if (patch.items !== undefined) {
          items.forEach((item, i) => (item.amount = totals.amounts[i] ?? 0));
          await repo.replaceItems(w.trx, id, items);
        }
        w.announce('invoice.updated', id);
        return loaded(w, id);
      });
    },

    async remove(accountId: string, id: string): Promise<void> {
      await writes.run(accountId, {}, async (w) => {
        const row = await requireRow(w.trx, accountId, id);
        if (!(await repo.deleteDraft(w.trx, accountId, id))) throw conflict(row.status, 'deleted');
      });
    },

    /**
     * draft → open, numbered: the account's row is locked first, so issues of one account (on any
     * node) take their numbers one after another, each the last one plus one.
     */
    async issue(accountId: string, id: string): Promise<InvoiceType> {
      return writes.run(accountId, { lock: { account: true } }, async (w) => {
        const row = await requireRow(w.trx, accountId, id);
        if (row.status !== 'draft') throw conflict(row.status, 'issued');
        const number = invoiceNumber(await repo.takeNextNumber(w.trx, accountId));
        if (
          !(await repo.updateInvoice(w.trx, accountId, id, 'draft', {
            status: 'open',
            number,
            issued_at: w.now,
            updated_at: w.now,
          }))
        ) {
          throw conflict(row.status, 'issued');
        }
        w.announce('invoice.issued', id);
        // docs/api.md §29: the gallery becomes a preview now; its previews are made in the background.
        if (row.pay_to_unlock === 1) await queueGalleryPreviews(w, row.listing_id);
        const invoice = await loaded(w, id);
        await mail?.issued(w, invoice);
        return invoice;
      });
    },

    async void(accountId: string, id: string): Promise<InvoiceType> {
      return writes.run(accountId, {}, async (w) => {
        const row = await requireRow(w.trx, accountId, id);
        if (row.status !== 'open') throw conflict(row.status, 'voided');
        if (
          !(await repo.updateInvoice(w.trx, accountId, id, 'open', {
            status: 'void',
            voided_at: w.now,
            updated_at: w.now,
          }))
        ) {
          throw conflict(row.status, 'voided');
        }
        w.announce('invoice.voided', id);
        return loaded(w, id);
      });
    },

    /** Money received outside (docs/api.md §29): 1..amount_due of an open invoice; the last makes it paid. */
    async addPayment(accountId: string, id: string, input: PaymentCreateInput): Promise<PaymentType> {
      return writes.run(accountId, {}, (w) => pay(w, id, input));
    },

    /**
     * The same, within the caller's write (online payment, src/modules/stripe): the one place a
     * payment moves an invoice's amounts, whoever records it.
     */
    addPaymentWithin: pay,

    /** docs/api.md §29: the invoice as a PDF, naming the studio, the client, the items and the totals. */
    async pdf(accountId: string, id: string): Promise<{ number: string | null; bytes: Buffer }> {
      const row = await requireRow(db.kysely, accountId, id);
      const invoice = toInvoice(row, await repo.itemsOf(db.kysely, [id]), () => null);
      const [account, client, listing] = await Promise.all([
        accounts.get(accountId),
        loadClient(db.kysely, config.publicUrl, accountId, row.client_id),
        findListing(db.kysely, accountId, row.listing_id),
      ]);
      const bytes = await renderInvoicePdf(invoice, {
        studio: account.name,
        studioEmail: account.email,
        client: { name: client?.name ?? '(client deleted)', email: client?.email ?? '' },
        address: listing?.address ?? '(gallery deleted)',
      });
      return { number: invoice.number, bytes };
    },

    async listPayments(accountId: string, id: string, query: { page?: number; limit?: number; cursor?: string }) {
      await requireRow(db.kysely, accountId, id);
      const codec = await listCursors(db);
      const scope = { list: 'payments', accountId, params: { invoice_id: id } };
      const request = pageRequest(query, codec, scope);
      const [rows, total] = await Promise.all([
        repo.paymentsOf(db.kysely, accountId, id, request),
        repo.countPayments(db.kysely, accountId, id),
      ]);
      return cursorPage(rows, request, total, codec, scope, (r) => ({ value: r.created_at, id: r.id }), toPayment);
    },
  };
}
