// Table types of docs/api.md §29 (products, invoices, their items and payments), beside schema.ts.
import type { Generated } from 'kysely';

/**
 * docs/api.md §29. Amounts are integers in the account currency's minor unit; PostgreSQL's
 * bigint comes back as a string, so the repository reads every amount through Number() (each is a
 * safe integer by construction: src/modules/money).
 */
type Amount = number | string;

export interface ProductsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  unit_amount: Amount;
  /** 0 or 1. */
  active: number;
  created_at: string;
  updated_at: string;
}

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface InvoicesTable {
  id: string;
  account_id: string;
  /** `INV-0001`: given at issue, in sequence per account (invoice_numbers), never reused. */
  number: string | null;
  listing_id: string;
  client_id: string;
  status: InvoiceStatus;
  subtotal: Amount;
  discount: Amount;
  tax_rate_bps: number;
  tax: Amount;
  total: Amount;
  amount_paid: Amount;
  currency: string;
  /** 0 or 1. */
  pay_to_unlock: number;
  due_at: string | null;
  note: string | null;
  issued_at: string | null;
  paid_at: string | null;
  voided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface InvoiceItemsTable {
  invoice_id: string;
  /** 0-based, the items' order. */
  position: number;
  account_id: string;
  product_id: string | null;
  description: string;
  quantity: number;
  unit_amount: Amount;
  amount: Amount;
}

export const PAYMENT_METHODS = ['cash', 'check', 'bank_transfer', 'card', 'other'] as const;
type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface PaymentsTable {
  id: string;
  account_id: string;
  invoice_id: string;
  amount: Amount;
  method: PaymentMethod;
  reference: string | null;
  paid_at: string;
  created_at: string;
}

export interface InvoiceNumbersTable {
  account_id: string;
  last_number: number;
}

export type NotificationKind = 'assignment' | 'invoice' | 'receipt';

/** docs/api.md §29's event types, part of EVENT_TYPES (schema.ts). */
export const BILLING_EVENT_TYPES = [
  'product.created',
  'product.updated',
  'product.deleted',
  'invoice.created',
  'invoice.updated',
  'invoice.issued',
  'invoice.paid',
  'invoice.voided',
  'payment.created',
] as const;

/** docs/api.md §29: the accounts' watermark logo (variants.logo.ts). */
export interface AccountWatermarkColumns {
  /** The storage key of the logo's image; null marks previews with the studio's name. */
  watermark_logo_key: Generated<string | null>;
}
