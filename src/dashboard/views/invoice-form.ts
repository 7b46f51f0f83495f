// The invoice form (docs/api.md §29), on the gallery page's Invoices card (a new invoice) and a
// draft's page (its edit): the catalogue's active products with a quantity each, lines of one's
// own (words, quantity, unit price typed in the currency), and the invoice's terms. Every row
// sends the same five fields, so the form's lists line up by position (read by
// src/dashboard/invoices.routes.ts). Plain forms: no script needed.
import type { InvoiceType } from '../../modules/invoices/invoices.schemas.ts';
import type { ProductType } from '../../modules/products/products.schemas.ts';
import { formatMoney, MAX_ITEMS, moneyInput } from '../../modules/money/money.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { percentText } from '../money-form.ts';
import { csrfField, errorSummary, type FieldErrors } from './layout.ts';

const LABELS: Record<string, string> = {
  items: 'Lines',
  discount: 'Discount',
  tax: 'Tax rate',
  due_on: 'Due on',
  note: 'Note',
};

/** One line of an invoice's form: a catalogue product (quantity only) or a line with its own words and price. */
export interface ItemRowValues {
  kind: 'catalogue' | 'line';
  product_id: string;
  description: string;
  quantity: string;
  /** The unit price as typed, in the currency's major unit. */
  price: string;
}

export interface InvoiceFormValues {
  rows: ItemRowValues[];
  discount: string;
  /** The tax rate as a percentage ("8.25"). */
  tax: string;
  pay_to_unlock: boolean;
  /** The due day, YYYY-MM-DD, or ''. */
  due_on: string;
  note: string;
}

export interface InvoiceFormState {
  values: InvoiceFormValues;
  errors: FieldErrors;
}

/** Lines of one's own offered empty at the end of the form (more after a save). */
const BLANK_LINES = 2;

const blankLine = (): ItemRowValues => ({
  kind: 'line',
  product_id: '',
  description: '',
  quantity: '',
  price: '',
});

const catalogueRow = (p: ProductType): ItemRowValues => ({
  kind: 'catalogue',
  product_id: p.id,
  description: '',
  quantity: '',
  price: '',
});

/** The summary's words for a line's field ("Line 2 unit price", "Floor plan quantity"). */
function labelsOf(values: InvoiceFormValues, products: ReadonlyMap<string, ProductType>): Record<string, string> {
  const labels = { ...LABELS };
  let line = 0;
  values.rows.forEach((r, i) => {
    if (r.kind === 'catalogue') {
      labels[`item-${i}-quantity`] = `${products.get(r.product_id)?.name ?? 'Product'} quantity`;
      return;
    }
    line += 1;
    labels[`item-${i}-description`] = `Line ${line} description`;
    labels[`item-${i}-quantity`] = `Line ${line} quantity`;
    labels[`item-${i}-price`] = `Line ${line} unit price`;
  });
  return labels;
}

export const invoiceBadge = (status: string): SafeHtml =>
  html`<span class="badge badge-invoice-${status}">${status}</span>`;

export const invoiceName = (i: InvoiceType): string => i.number ?? 'Draft';

/** An input of a line, labelled, with its error beside it. */
function lineInput(
  i: number,
  name: 'description' | 'quantity' | 'price',
  label: SafeHtml,
  value: string,
  errors: FieldErrors,
  attrs: SafeHtml,
): SafeHtml {
  const id = `f-item-${i}-${name}`;
  const error = errors[`item-${i}-${name}`];
  return html`<div class="field line-${name}${error === undefined ? '' : ' field-invalid'}">
    <label for="${id}">${label}</label>
    ${error === undefined ? '' : html`<p class="field-error" id="${id}-error">${error}</p>`}
    <input
      id="${id}"
      name="item_${name}"
      value="${value}"
      ${attrs}
      ${error === undefined ? '' : html`aria-invalid="true" aria-describedby="${id}-error"`}
    />
  </div>`;
}

const hidden = (name: string, value: string): SafeHtml => html`<input type="hidden" name="${name}" value="${value}" />`;

/** Every line sends the same five fields, so the form's lists line up by position. */
function itemRows(
  values: InvoiceFormValues,
  errors: FieldErrors,
  products: ReadonlyMap<string, ProductType>,
  currency: string,
): SafeHtml {
  const rows = values.rows.map((r, i) => ({ r, i }));
  const catalogue = rows.filter((x) => x.r.kind === 'catalogue');
  const lines = rows.filter((x) => x.r.kind === 'line');
  const qtyAttrs = html`type="text" inputmode="numeric" autocomplete="off" class="input-qty"`;
  const catalogueList =
    catalogue.length === 0
      ? ''
      : html`<fieldset class="catalogue-picks">
          <legend>From the catalogue <span class="optional">(a quantity adds it)</span></legend>
          ${catalogue.map(({ r, i }) => {
            const p = products.get(r.product_id);
            const id = `f-item-${i}-quantity`;
            const error = errors[`item-${i}-quantity`];
            return html`<div class="catalogue-pick${error === undefined ? '' : ' field-invalid'}">
              ${hidden('item_kind', 'catalogue')} ${hidden('item_product', r.product_id)}
              ${hidden('item_description', '')} ${hidden('item_price', '')}
              <label for="${id}"
                >${p?.name ?? 'A product no longer in the catalogue'}
                ${p === undefined ? '' : html`<span class="muted small">${formatMoney(p.unit_amount, currency)} each</span>`}</label
              >
              ${error === undefined ? '' : html`<p class="field-error" id="${id}-error">${error}</p>`}
              <input
                id="${id}"
                name="item_quantity"
                value="${r.quantity}"
                placeholder="0"
                ${qtyAttrs}
                ${error === undefined ? '' : html`aria-invalid="true" aria-describedby="${id}-error"`}
              />
            </div>`;
          })}
        </fieldset>`;
  return html`${catalogueList}
    <fieldset class="invoice-lines">
      <legend>Lines of your own <span class="optional">(a quantity of 0 removes one)</span></legend>
      ${lines.map(
        ({ r, i }, n) =>
          html`<div class="invoice-line">
            ${hidden('item_kind', 'line')} ${hidden('item_product', r.product_id)}
            ${lineInput(i, 'description', html`Line ${n + 1}<span class="visually-hidden"> description</span>`, r.description, errors, html`type="text" maxlength="500" autocomplete="off"`)}
            ${lineInput(i, 'quantity', html`Qty<span class="visually-hidden"> of line ${n + 1}</span>`, r.quantity, errors, html`${qtyAttrs} placeholder="1"`)}
            ${lineInput(i, 'price', html`Unit price (${currency})<span class="visually-hidden"> of line ${n + 1}</span>`, r.price, errors, html`type="text" inputmode="decimal" autocomplete="off" class="input-money"`)}
          </div>`,
      )}
    </fieldset>`;
}

/** The invoice's own fields: discount, tax, pay-to-unlock, due day, note. */
function termsFields(v: InvoiceFormValues, errors: FieldErrors, currency: string): SafeHtml {
  const simple = (name: 'discount' | 'tax' | 'due_on', label: string, attrs: SafeHtml, hint: string) => {
    const error = errors[name];
    return html`<div class="field${error === undefined ? '' : ' field-invalid'}">
      <label for="f-${name}">${label} <span class="optional">(optional)</span></label>
      <p class="hint" id="f-${name}-hint">${hint}</p>
      ${error === undefined ? '' : html`<p class="field-error" id="f-${name}-error">${error}</p>`}
      <input
        id="f-${name}"
        name="${name}"
        value="${v[name]}"
        ${attrs}
        aria-describedby="f-${name}-hint${error === undefined ? '' : ` f-${name}-error`}"
        ${error === undefined ? '' : html`aria-invalid="true"`}
      />
    </div>`;
  };
  const noteError = errors.note;
  return html`<div class="form-grid">
      ${simple('discount', `Discount (${currency})`, html`type="text" inputmode="decimal" autocomplete="off"`, 'Off the subtotal.')}
      ${simple('tax', 'Tax rate (%)', html`type="text" inputmode="decimal" autocomplete="off"`, 'After the discount, e.g. 8.25.')}
      ${simple('due_on', 'Due on', html`type="date"`, 'When payment is due.')}
    </div>
    <label class="check">
      <input type="checkbox" name="pay_to_unlock" value="1" ${v.pay_to_unlock ? 'checked' : ''} /> Pay to unlock: while
      it is open, the client sees watermarked previews and cannot download
    </label>
    <div class="field${noteError === undefined ? '' : ' field-invalid'}">
      <label for="f-note">Note <span class="optional">(optional)</span></label>
      ${noteError === undefined ? '' : html`<p class="field-error" id="f-note-error">${noteError}</p>`}
      <textarea id="f-note" name="note" rows="2" maxlength="2000">${v.note}</textarea>
    </div>`;
}

export function invoiceForm(o: {
  action: string;
  csrf: string;
  state: InvoiceFormState;
  products: ReadonlyMap<string, ProductType>;
  currency: string;
  submit: string;
}): SafeHtml {
  return html`${errorSummary(o.state.errors, labelsOf(o.state.values, o.products))}
    <form method="post" action="${o.action}" class="stack-form invoice-form" novalidate>
      ${csrfField(o.csrf)}
      ${o.state.errors.items === undefined ? '' : html`<p class="field-error" id="f-items">${o.state.errors.items}</p>`}
      ${itemRows(o.state.values, o.state.errors, o.products, o.currency)}
      ${termsFields(o.state.values, o.state.errors, o.currency)}
      <button type="submit" class="button">${o.submit}</button>
    </form>`;
}

/**
 * docs/api.md §29 from the gallery's page: its invoices, and a new one for its client (the
 * catalogue's active products with quantities, or lines of one's own). Without a client there is
 * no one to invoice: the card says so and links to where the client is set.
 */
export function galleryInvoicesSection(o: {
  listingId: string;
  hasClient: boolean;
  csrf: string;
  currency: string;
  invoices: InvoiceType[];
  products: ProductType[];
  state: InvoiceFormState;
  /** A refused form, or a 409: the form is open. */
  open: boolean;
  noClient?: boolean;
}): SafeHtml {
  const list =
    o.invoices.length === 0
      ? html`<p class="muted">No invoices for this gallery yet.</p>`
      : html`<ul class="plain-list invoice-list">
          ${o.invoices.map(
            (i) =>
              html`<li>
                <a href="/dashboard/invoices/${i.id}">${invoiceName(i)}</a> ${invoiceBadge(i.status)}
                <span class="nowrap">${formatMoney(i.total, i.currency)}</span>
                ${
                  i.status === 'open'
                    ? html`<span class="muted small nowrap">${formatMoney(i.amount_due, i.currency)} due</span>`
                    : ''
                }
                ${i.pay_to_unlock && i.status === 'open' ? html`<span class="muted small">· locks the gallery</span>` : ''}
              </li>`,
          )}
        </ul>`;
  const noClient = html`<div
    class="notice notice-${o.noClient === true ? 'error' : 'info'}"
    ${o.noClient === true ? html`role="alert"` : ''}
  >
    This gallery has no client, and an invoice goes to the gallery’s client.
    <a href="#client">Set the gallery’s client</a>, then make the invoice here.
  </div>`;
  const byId = new Map(o.products.map((p) => [p.id, p]));
  const form = !o.hasClient
    ? noClient
    : html`<details class="invoice-new" ${o.open ? 'open' : ''}>
        <summary>New invoice</summary>
        ${
          o.products.length === 0
            ? html`<p class="hint">
                Tip: <a href="/dashboard/products/new">add products</a> to pick them here with a quantity.
              </p>`
            : ''
        }
        ${invoiceForm({
          action: `/dashboard/galleries/${o.listingId}/invoices`,
          csrf: o.csrf,
          state: o.state,
          products: byId,
          currency: o.currency,
          submit: 'Create draft invoice',
        })}
        <p class="hint">A draft is not sent: issue it from its page to number it and email the client.</p>
      </details>`;
  return html`<section class="card" id="invoices" aria-labelledby="invoices-title">
    <h2 id="invoices-title">Invoices</h2>
    ${list} ${form}
  </section>`;
}

/** A draft's form as it stands: its lines, then the catalogue's products, then blank lines. */
export function formValuesOf(i: InvoiceType, products: ProductType[]): InvoiceFormValues {
  const lines: ItemRowValues[] = i.items.map((item) => ({
    kind: 'line',
    product_id: item.product_id ?? '',
    description: item.description,
    quantity: String(item.quantity),
    price: moneyInput(item.unit_amount, i.currency),
  }));
  const room = Math.max(0, Math.min(BLANK_LINES, MAX_ITEMS - lines.length));
  return {
    rows: [...products.map(catalogueRow), ...lines, ...Array.from({ length: room }, blankLine)],
    discount: i.discount === 0 ? '' : moneyInput(i.discount, i.currency),
    tax: i.tax_rate_bps === 0 ? '' : percentText(i.tax_rate_bps),
    pay_to_unlock: i.pay_to_unlock,
    due_on: i.due_at === null ? '' : i.due_at.slice(0, 10),
    note: i.note ?? '',
  };
}

export const emptyInvoiceForm = (products: ProductType[]): InvoiceFormValues => ({
  rows: [...products.map(catalogueRow), ...Array.from({ length: BLANK_LINES }, blankLine)],
  discount: '',
  tax: '',
  pay_to_unlock: true,
  due_on: '',
  note: '',
});
