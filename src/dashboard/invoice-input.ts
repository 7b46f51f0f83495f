// An invoice form as typed (src/dashboard/views/invoice-form.ts draws it), read into the API's
// terms (docs/api.md §29): amounts through the money module, the API's schema with the last word,
// and the service's refusals said beside the fields they concern.
import { AppError } from '../errors.ts';
import { InvoiceUpdateBody, type InvoiceUpdateInput } from '../modules/invoices/invoices.schemas.ts';
import { MAX_ITEMS, MAX_QUANTITY } from '../modules/money/money.ts';
import { hasErrors, schemaFieldErrors, type FormFields } from './form.ts';
import { readMoney, readPercent } from './money-form.ts';
import type { InvoiceFormValues, ItemRowValues } from './views/invoice-form.ts';
import type { FieldErrors } from './views/layout.ts';

/** The rows a form may send: the catalogue's page, the lines, blank lines. */
const MAX_ROWS = 300;

/** An invoice form as typed, in the API's terms, with what is wrong by field. */
export interface ReadInvoice {
  values: InvoiceFormValues;
  input: Required<
    Pick<InvoiceUpdateInput, 'items' | 'discount' | 'tax_rate_bps' | 'pay_to_unlock' | 'due_at' | 'note'>
  >;
  errors: FieldErrors;
  /** The form's row of each item sent (for the service's refusals, named by item). */
  rowOf: number[];
}

const QUANTITY = `Enter a whole number from 1 to ${MAX_QUANTITY.toLocaleString('en-GB')}, or 0 to remove the line`;

/**
 * Each row sends item_kind, item_product, item_description, item_quantity and item_price. A
 * catalogue row with no quantity, a blank line, and any row with quantity 0 are left out; a line
 * of one's own needs its words and price (its quantity is 1 when left empty).
 */
export function readInvoiceForm(form: FormFields, currency: string): ReadInvoice {
  const kinds = form.all('item_kind').slice(0, MAX_ROWS);
  const [products, descriptions, quantities, prices] = [
    'item_product',
    'item_description',
    'item_quantity',
    'item_price',
  ].map((name) => form.all(name)) as [readonly string[], readonly string[], readonly string[], readonly string[]];
  const errors: FieldErrors = {};
  const rows: ItemRowValues[] = [];
  const items: InvoiceUpdateInput['items'] & object = [];
  const rowOf: number[] = [];
  kinds.forEach((kind, i) => {
    const row: ItemRowValues = {
      kind: kind === 'catalogue' ? 'catalogue' : 'line',
      product_id: (products[i] ?? '').trim(),
      description: (descriptions[i] ?? '').trim(),
      quantity: (quantities[i] ?? '').trim(),
      price: (prices[i] ?? '').trim(),
    };
    rows.push(row);
    if (row.quantity === '0') return;
    if (row.kind === 'catalogue' && (row.quantity === '' || row.product_id === '')) return;
    if (row.kind === 'line' && row.description === '' && row.price === '' && row.quantity === '') return;
    let quantity = 1;
    if (row.quantity !== '') {
      const n = /^\d{1,6}$/.test(row.quantity.replace(/,/g, '')) ? Number(row.quantity.replace(/,/g, '')) : NaN;
      if (!(n >= 1 && n <= MAX_QUANTITY)) errors[`item-${i}-quantity`] = QUANTITY;
      else quantity = n;
    }
    if (row.kind === 'catalogue') {
      items.push({ product_id: row.product_id, quantity });
      rowOf.push(i);
      return;
    }
    if (row.description === '') errors[`item-${i}-description`] = 'Say what this line is for';
    else if (row.description.length > 500) errors[`item-${i}-description`] = 'Use at most 500 characters';
    const price = readMoney(row.price, currency);
    if (price.error !== undefined) errors[`item-${i}-price`] = price.error;
    items.push({
      ...(row.product_id === '' ? {} : { product_id: row.product_id }),
      description: row.description,
      unit_amount: price.amount ?? 0,
      quantity,
    });
    rowOf.push(i);
  });
  const values: InvoiceFormValues = {
    rows,
    discount: form.get('discount').trim(),
    tax: form.get('tax').trim(),
    pay_to_unlock: form.get('pay_to_unlock') === '1',
    due_on: form.get('due_on').trim(),
    note: form.get('note').trim(),
  };
  if (items.length === 0 && !hasErrors(errors)) {
    errors.items = 'Add a line: a quantity beside a product, or a line of your own with its price';
  } else if (items.length > MAX_ITEMS) {
    errors.items = `An invoice has at most ${MAX_ITEMS} lines`;
  }
  let discount = 0;
  if (values.discount !== '') {
    const read = readMoney(values.discount, currency, Number.MAX_SAFE_INTEGER);
    if (read.error !== undefined) errors.discount = read.error;
    else discount = read.amount;
  }
  const tax = readPercent(values.tax);
  if (tax.error !== undefined) errors.tax = tax.error;
  let dueAt: string | null = null;
  if (values.due_on !== '') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(values.due_on) && !Number.isNaN(Date.parse(values.due_on))) {
      dueAt = `${values.due_on}T23:59:59.999Z`;
    } else errors.due_on = 'Enter a day, like 2027-03-31';
  }
  const input = {
    items,
    discount,
    tax_rate_bps: tax.bps ?? 0,
    pay_to_unlock: values.pay_to_unlock,
    due_at: dueAt,
    note: values.note === '' ? null : values.note,
  };
  // The API's own schema has the last word (the note's length; anything the reading above let by).
  for (const [name, message] of Object.entries(schemaFieldErrors(InvoiceUpdateBody, input))) {
    const field = name === 'tax_rate_bps' ? 'tax' : name === 'due_at' ? 'due_on' : name;
    errors[field] ??= message;
  }
  return { values, input, errors, rowOf };
}

/** The service's refusals of a form the reading let by, said beside their fields (null: not one). */
export function serviceErrors(err: unknown, rowOf: number[], values: InvoiceFormValues): FieldErrors | null {
  if (!(err instanceof AppError && err.code === 'validation_error')) return null;
  const errors: FieldErrors = {};
  for (const d of err.details ?? []) {
    const item = /^items\[(\d+)\]/.exec(d.field);
    if (d.field === 'discount') errors.discount = 'The discount cannot be more than the subtotal';
    else if (item !== null) {
      const row = rowOf[Number(item[1])] ?? 0;
      const kind = values.rows[row]?.kind;
      errors[`item-${row}-${kind === 'catalogue' ? 'quantity' : 'description'}`] =
        'That product is no longer in the catalogue: remove the line or write it out';
    } else errors.items = `${d.field} ${d.message}`;
  }
  return errors;
}
