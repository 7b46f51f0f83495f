// docs/api.md §29: invoices, their items and payments.
import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  Int64,
  ListOf,
  NullableId,
  NullableString,
  NullableText,
  NullableTimestamp,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';
import { INVOICE_STATUSES, PAYMENT_METHODS } from '../../db/schema-invoices.ts';
import { MAX_ITEMS, MAX_QUANTITY, MAX_TAX_RATE_BPS } from '../money/money.ts';
import { UnitAmount } from '../products/products.schemas.ts';

const Amount = (description?: string) => Int64({ minimum: 0, ...(description === undefined ? {} : { description }) });

const ItemInput = Type.Object(
  {
    product_id: Type.Optional(
      Type.String({ maxLength: 40, description: 'A product whose name and price are copied.' }),
    ),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    unit_amount: Type.Optional(UnitAmount("Price of one, in the currency's minor unit.")),
    quantity: Type.Optional(Int32({ minimum: 1, maximum: MAX_QUANTITY, description: 'Default 1.' })),
  },
  { additionalProperties: false, title: 'InvoiceItemInput' },
);
export type ItemInputType = Static<typeof ItemInput>;

const editable = {
  items: Type.Array(ItemInput, { minItems: 1, maxItems: MAX_ITEMS }),
  discount: Amount('At most the subtotal; default 0.'),
  tax_rate_bps: Int32({ minimum: 0, maximum: MAX_TAX_RATE_BPS, description: 'Basis points: 825 is 8.25 %.' }),
  pay_to_unlock: Type.Boolean({ description: 'Default true.' }),
  due_at: NullableTimestamp('When payment is due.'),
  note: NullableString({ maxLength: 2_000 }),
};

export const InvoiceCreateBody = Type.Object(
  {
    listing_id: Type.String({ maxLength: 40, description: "The gallery invoiced; its client is the invoice's." }),
    items: editable.items,
    discount: Type.Optional(editable.discount),
    tax_rate_bps: Type.Optional(editable.tax_rate_bps),
    pay_to_unlock: Type.Optional(editable.pay_to_unlock),
    due_at: Type.Optional(editable.due_at),
    note: Type.Optional(editable.note),
  },
  { additionalProperties: false, title: 'InvoiceCreate' },
);
export type InvoiceCreateInput = Static<typeof InvoiceCreateBody>;

export const InvoiceUpdateBody = Type.Partial(Type.Object(editable), {
  additionalProperties: false,
  minProperties: 1,
  title: 'InvoiceUpdate',
});
export type InvoiceUpdateInput = Static<typeof InvoiceUpdateBody>;

const InvoiceItem = Type.Object(
  {
    product_id: NullableId('prd'),
    description: Type.String({ maxLength: 500 }),
    quantity: Int32({ minimum: 1, maximum: MAX_QUANTITY }),
    unit_amount: Amount(),
    amount: Amount('quantity × unit_amount.'),
  },
  { title: 'InvoiceItem', additionalProperties: false },
);

export const Invoice = Type.Object(
  {
    id: Id('ivc', '`ivc_` followed by an opaque string.'),
    number: NullableText(20, '`INV-0001`, the next of the account at issue; null while draft.'),
    listing_id: Type.String({ maxLength: 40 }),
    client_id: Type.String({ maxLength: 40 }),
    status: StringEnum(INVOICE_STATUSES),
    items: Type.Array(InvoiceItem, { maxItems: MAX_ITEMS }),
    subtotal: Amount(),
    discount: Amount(),
    tax_rate_bps: Int32({ minimum: 0, maximum: MAX_TAX_RATE_BPS }),
    tax: Amount('Round half up of (subtotal − discount) × tax_rate_bps / 10,000.'),
    total: Amount('subtotal − discount + tax.'),
    amount_paid: Amount(),
    amount_due: Amount(),
    currency: Type.String({ pattern: '^[A-Z]{3}$', minLength: 3, maxLength: 3 }),
    pay_to_unlock: Type.Boolean(),
    due_at: NullableTimestamp(),
    note: NullableText(2_000),
    issued_at: NullableTimestamp(),
    paid_at: NullableTimestamp(),
    voided_at: NullableTimestamp(),
    payment_url: NullableText(
      2_048,
      'Our pay page while the invoice is open with something due and the studio pays online (Stripe keys set; a test-mode invoice always has one, a local page). Null otherwise.',
    ),
    pdf_url: Type.String({ maxLength: 200 }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'Invoice', additionalProperties: false },
);
export type InvoiceType = Static<typeof Invoice>;

export const InvoiceList = ListOf(Invoice, 'InvoiceList');
export const InvoiceListQuery = Type.Object({
  ...PageQuery,
  listing_id: Type.Optional(
    Type.String({ maxLength: 40, pattern: '^lst_[0-9A-Za-z_-]+$', description: "Only this gallery's invoices." }),
  ),
  client_id: Type.Optional(
    Type.String({ maxLength: 40, pattern: '^cli_[0-9A-Za-z_-]+$', description: "Only this client's invoices." }),
  ),
  status: Type.Optional(StringEnum(INVOICE_STATUSES)),
});
export type InvoiceListQueryType = Static<typeof InvoiceListQuery>;
export const InvoiceParams = Type.Object({ id: IdParam('Invoice id (`ivc_...`).') });

export const PaymentCreateBody = Type.Object(
  {
    amount: Int64({ minimum: 1, description: 'At most the amount due.' }),
    method: StringEnum(PAYMENT_METHODS),
    reference: Type.Optional(NullableString({ maxLength: 200 })),
    paid_at: Type.Optional(Timestamp('When the money was received; default now.')),
  },
  { additionalProperties: false, title: 'PaymentCreate' },
);
export type PaymentCreateInput = Static<typeof PaymentCreateBody>;

export const Payment = Type.Object(
  {
    id: Id('pay'),
    invoice_id: Id('ivc'),
    amount: Amount(),
    method: StringEnum(PAYMENT_METHODS),
    reference: NullableText(200),
    paid_at: Timestamp(),
    created_at: Timestamp(),
  },
  { title: 'Payment', additionalProperties: false },
);
export type PaymentType = Static<typeof Payment>;
export const PaymentList = ListOf(Payment, 'PaymentList');
