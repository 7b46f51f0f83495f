// Invoices' rows (docs/api.md §29), every query scoped by account.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import type { InvoiceItemsTable, InvoicesTable, InvoiceStatus, PaymentsTable } from '../../db/schema-invoices.ts';
import type { Position } from '../../lib/cursor.ts';

export type InvoiceRow = Selectable<InvoicesTable>;
export type ItemRow = Selectable<InvoiceItemsTable>;
export type PaymentRow = Selectable<PaymentsTable>;

export async function insertInvoice(db: Executor, row: Insertable<InvoicesTable>): Promise<void> {
  await db.insertInto('invoices').values(row).execute();
}

export async function replaceItems(
  db: Executor,
  invoiceId: string,
  items: Insertable<InvoiceItemsTable>[],
): Promise<void> {
  await db.deleteFrom('invoice_items').where('invoice_id', '=', invoiceId).execute();
  if (items.length > 0) await db.insertInto('invoice_items').values(items).execute();
}

export async function findInvoice(db: Executor, accountId: string, id: string): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function itemsOf(db: Executor, invoiceIds: string[]): Promise<ItemRow[]> {
  if (invoiceIds.length === 0) return [];
  return db.selectFrom('invoice_items').selectAll().where('invoice_id', 'in', invoiceIds).orderBy('position').execute();
}

/** Changes the invoice only while it has the status `from`: false when it has another (or is gone). */
export async function updateInvoice(
  db: Executor,
  accountId: string,
  id: string,
  from: InvoiceStatus,
  changes: Updateable<InvoicesTable>,
  /** A payment's guard: the amount paid it was computed from, so two at once cannot both add to it. */
  paidBefore?: number,
): Promise<boolean> {
  let query = db
    .updateTable('invoices')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', from);
  if (paidBefore !== undefined) query = query.where('amount_paid', '=', paidBefore);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteDraft(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('invoices')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'draft')
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * The account's next invoice number, taken: call only under the account's lock (the write's
 * `lock: { account: true }`), so two issues never read the same last number, and no number is
 * handed out twice or skipped (a rolled-back issue rolls its number back with it).
 */
export async function takeNextNumber(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('invoice_numbers')
    .select('last_number')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const next = (row?.last_number ?? 0) + 1;
  await db
    .insertInto('invoice_numbers')
    .values({ account_id: accountId, last_number: next })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ last_number: next }))
    .execute();
  return next;
}

export interface InvoiceFilters {
  listingId?: string | undefined;
  clientId?: string | undefined;
  status?: InvoiceStatus | undefined;
}

function filtered(db: Executor, accountId: string, f: InvoiceFilters) {
  let query = db.selectFrom('invoices').where('account_id', '=', accountId);
  if (f.listingId !== undefined) query = query.where('listing_id', '=', f.listingId);
  if (f.clientId !== undefined) query = query.where('client_id', '=', f.clientId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  return query;
}

export async function listInvoices(
  db: Executor,
  accountId: string,
  f: InvoiceFilters,
  page: { fetch: number; offset: number; after: Position | undefined },
): Promise<InvoiceRow[]> {
  let query = filtered(db, accountId, f).selectAll();
  if (page.after !== undefined) query = query.where(keysetAfter('created_at', 'id', true, page.after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.fetch).offset(page.offset).execute();
}

export async function countInvoices(db: Executor, accountId: string, f: InvoiceFilters): Promise<number> {
  const row = await filtered(db, accountId, f)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPayment(db: Executor, row: Insertable<PaymentsTable>): Promise<void> {
  await db.insertInto('payments').values(row).execute();
}

export async function paymentsOf(
  db: Executor,
  accountId: string,
  invoiceId: string,
  page: { fetch: number; offset: number; after: Position | undefined },
): Promise<PaymentRow[]> {
  let query = db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId);
  if (page.after !== undefined) query = query.where(keysetAfter('created_at', 'id', true, page.after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.fetch).offset(page.offset).execute();
}

export async function countPayments(db: Executor, accountId: string, invoiceId: string): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * docs/api.md §29: the invoice that keeps a gallery's public pages a preview, the oldest open one
 * with pay_to_unlock, or undefined. Read on every public request (never cached), so a payment or a
 * void lifts the lock on every node at once.
 */
/** What a locked gallery's public request needs, read in one row (docs/api.md §29). */
export interface LockRow {
  id: string;
  number: string | null;
  total: number | string;
  amount_paid: number | string;
  currency: string;
  /** The account's own watermark logo, else its live account's (a test-mode account's studio). */
  own_logo: string | null;
  studio_logo: string | null;
  /** A test-mode account's live account: its invoices are paid on a local page. */
  live_account_id: string | null;
  /** 1 while the account's Stripe keys are set. */
  stripe: number | string;
}

/**
 * The open pay-to-unlock invoice that keeps a gallery's public pages a preview, with what the page
 * and its previews need of the account (its logo, whether it is paid online), in one indexed read:
 * every public request of a locked gallery makes it.
 */
export async function lockingInvoice(db: Executor, accountId: string, listingId: string): Promise<LockRow | undefined> {
  return db
    .selectFrom('invoices as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .leftJoin('accounts as live', 'live.id', 'a.live_account_id')
    .leftJoin('stripe_accounts as s', 's.account_id', 'i.account_id')
    .select((eb) => [
      'i.id',
      'i.number',
      'i.total',
      'i.amount_paid',
      'i.currency',
      'a.watermark_logo_key as own_logo',
      'live.watermark_logo_key as studio_logo',
      'a.live_account_id',
      eb.case().when('s.secret_key', 'is not', null).then(1).else(0).end().as('stripe'),
    ])
    .where('i.account_id', '=', accountId)
    .where('i.listing_id', '=', listingId)
    .where('i.status', '=', 'open')
    .where('i.pay_to_unlock', '=', 1)
    .orderBy('i.issued_at')
    .orderBy('i.id')
    .limit(1)
    .executeTakeFirst();
}
