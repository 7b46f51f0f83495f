// Invoices (docs/api.md §29): the list with a status filter, an invoice's page (its lines and
// totals, the PDF, and what its status allows: edit, issue and delete a draft; record a payment on
// or void an open one), and the gallery page's Invoices card with its "New invoice" form. Plain
// forms: no script needed. Every amount is the invoice's integer, written by formatMoney.
import type { InvoiceType, PaymentType } from '../../modules/invoices/invoices.schemas.ts';
import { INVOICE_STATUSES, PAYMENT_METHODS } from '../../db/schema-invoices.ts';
import type { ProductType } from '../../modules/products/products.schemas.ts';
import { formatMoney, MAX_ITEMS, moneyInput } from '../../modules/money/money.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, day } from './format.ts';
import { percentText } from '../money-form.ts';
import { csrfField, errorSummary, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

export type InvoiceStatusFilter = (typeof INVOICE_STATUSES)[number] | '';

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
export const BLANK_LINES = 2;

export const blankLine = (): ItemRowValues => ({
  kind: 'line',
  product_id: '',
  description: '',
  quantity: '',
  price: '',
});

export const catalogueRow = (p: ProductType): ItemRowValues => ({
  kind: 'catalogue',
  product_id: p.id,
  description: '',
  quantity: '',
  price: '',
});

export const PAYMENT_METHOD_LABELS: Record<(typeof PAYMENT_METHODS)[number], string> = {
  cash: 'Cash',
  check: 'Check',
  bank_transfer: 'Bank transfer',
  card: 'Card',
  other: 'Other',
};

export interface PaymentFormValues {
  amount: string;
  method: string;
  reference: string;
}

const LABELS: Record<string, string> = {
  items: 'Lines',
  discount: 'Discount',
  tax: 'Tax rate',
  due_on: 'Due on',
  note: 'Note',
  amount: 'Amount',
  method: 'Method',
  reference: 'Reference',
};

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

export const invoicesUrl = (status: InvoiceStatusFilter, cursor?: string): string => {
  const q = new URLSearchParams();
  if (status !== '') q.set('status', status);
  if (cursor !== undefined) q.set('cursor', cursor);
  const s = q.toString();
  return `/dashboard/invoices${s === '' ? '' : `?${s}`}`;
};

const STATUS_WORDS: Record<InvoiceStatusFilter, string> = {
  '': 'All',
  draft: 'Drafts',
  open: 'Open (awaiting payment)',
  paid: 'Paid',
  void: 'Void',
};

export function invoicesPage(o: {
  viewer: Viewer;
  notice: Notice | null;
  status: InvoiceStatusFilter;
  items: InvoiceType[];
  total: number;
  galleries: ReadonlyMap<string, string>;
  clients: ReadonlyMap<string, string>;
  nextUrl: string | null;
  paged: boolean;
}): SafeHtml {
  const money = (i: InvoiceType, n: number) => formatMoney(n, i.currency);
  const rows =
    o.items.length === 0
      ? html`<p class="muted">
          ${
            o.status === ''
              ? 'No invoices yet. Make one from a gallery’s page, under Invoices: its client is the invoice’s.'
              : 'No invoice has this status.'
          }
        </p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Invoices list">
          <table class="stack" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Invoice</th>
                <th scope="col" role="columnheader">Gallery</th>
                <th scope="col" role="columnheader">Client</th>
                <th scope="col" role="columnheader" class="numeric">Total</th>
                <th scope="col" role="columnheader" class="numeric">Amount due</th>
                <th scope="col" role="columnheader">Status</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${o.items.map(
                (i) =>
                  html`<tr role="row">
                    <td role="cell" class="cell-title">
                      <a href="/dashboard/invoices/${i.id}">${invoiceName(i)}</a>
                      <span class="block muted small"
                        >${i.issued_at === null ? html`made ${day(i.created_at)}` : html`issued ${day(i.issued_at)}`}</span
                      >
                    </td>
                    <td role="cell" data-label="Gallery">
                      ${
                        o.galleries.has(i.listing_id)
                          ? html`<a href="/dashboard/galleries/${i.listing_id}">${o.galleries.get(i.listing_id)}</a>`
                          : html`<span class="muted">deleted gallery</span>`
                      }
                    </td>
                    <td role="cell" data-label="Client">
                      ${
                        o.clients.has(i.client_id)
                          ? html`<a href="/dashboard/clients/${i.client_id}">${o.clients.get(i.client_id)}</a>`
                          : html`<span class="muted">deleted client</span>`
                      }
                    </td>
                    <td role="cell" class="numeric nowrap" data-label="Total">${money(i, i.total)}</td>
                    <td role="cell" class="numeric nowrap" data-label="Amount due">${money(i, i.amount_due)}</td>
                    <td role="cell" data-label="Status">${invoiceBadge(i.status)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return page({
    title: 'Invoices',
    viewer: o.viewer,
    section: 'invoices',
    notice: o.notice,
    body: html`<div class="page-head">
        <h1>Invoices</h1>
        <a class="button button-secondary" href="/dashboard/products">Products</a>
      </div>
      <section class="card" aria-label="Find invoices">
        <form method="get" action="/dashboard/invoices" class="filters" role="search" aria-label="Invoices">
          <div class="filter">
            <label for="i-status">Status</label>
            <select id="i-status" name="status">
              ${(['', ...INVOICE_STATUSES] as const).map(
                (s) => html`<option value="${s}" ${s === o.status ? 'selected' : ''}>${STATUS_WORDS[s]}</option>`,
              )}
            </select>
          </div>
          <button type="submit" class="button button-secondary">Show</button>
        </form>
        <p class="muted small" role="status">${count(o.total)} ${o.total === 1 ? 'invoice' : 'invoices'}</p>
        ${rows}
        <nav class="pager" aria-label="Pages">
          ${o.paged ? html`<a href="${invoicesUrl(o.status)}">First page</a>` : ''}
          ${o.nextUrl === null ? '' : html`<a class="button button-secondary" href="${o.nextUrl}">Next page</a>`}
        </nav>
      </section>`,
  });
}

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
      <legend>Lines <span class="optional">(a quantity of 0 removes one)</span></legend>
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
      ${simple('discount', `Discount (${currency})`, html`type="text" inputmode="decimal" autocomplete="off"`, 'Taken off the subtotal.')}
      ${simple('tax', 'Tax rate (%)', html`type="text" inputmode="decimal" autocomplete="off"`, 'On the subtotal less the discount, e.g. 8.25.')}
      ${simple('due_on', 'Due on', html`type="date"`, 'The day payment is due.')}
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

function invoiceForm(o: {
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

function totalsTable(i: InvoiceType): SafeHtml {
  const m = (n: number) => formatMoney(n, i.currency);
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Lines of the invoice">
      <table class="invoice-items" role="table">
        <thead role="rowgroup">
          <tr role="row">
            <th scope="col" role="columnheader">Item</th>
            <th scope="col" role="columnheader" class="numeric">Qty</th>
            <th scope="col" role="columnheader" class="numeric">Unit price</th>
            <th scope="col" role="columnheader" class="numeric">Amount</th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          ${i.items.map(
            (item) =>
              html`<tr role="row">
                <td role="cell">${item.description}</td>
                <td role="cell" class="numeric">${count(item.quantity)}</td>
                <td role="cell" class="numeric nowrap">${m(item.unit_amount)}</td>
                <td role="cell" class="numeric nowrap">${m(item.amount)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <dl class="totals">
      <dt>Subtotal</dt>
      <dd>${m(i.subtotal)}</dd>
      ${
        i.discount > 0
          ? html`<dt>Discount</dt>
              <dd>−${m(i.discount)}</dd>`
          : ''
      }
      <dt>Tax (${percentText(i.tax_rate_bps)} %)</dt>
      <dd>${m(i.tax)}</dd>
      <dt class="total">Total</dt>
      <dd class="total">${m(i.total)}</dd>
      ${
        i.amount_paid > 0
          ? html`<dt>Paid</dt>
              <dd>${m(i.amount_paid)}</dd>`
          : ''
      }
      ${
        i.status === 'void'
          ? ''
          : html`<dt class="total">Amount due</dt>
              <dd class="total">${m(i.amount_due)}</dd>`
      }
    </dl>`;
}

function paymentsList(i: InvoiceType, payments: PaymentType[]): SafeHtml {
  if (payments.length === 0) return html``;
  return html`<h3>Payments</h3>
    <ul class="plain-list">
      ${payments.map(
        (p) =>
          html`<li>
            ${formatMoney(p.amount, i.currency)} · ${PAYMENT_METHOD_LABELS[p.method]}
            ${p.reference === null ? '' : html`· <span class="wrap-anywhere">${p.reference}</span>`}
            <span class="muted small">· ${day(p.paid_at)}</span>
          </li>`,
      )}
    </ul>`;
}

function paymentForm(i: InvoiceType, csrf: string, v: PaymentFormValues, errors: FieldErrors): SafeHtml {
  const e = (name: string) => errors[name];
  const err = (name: string) =>
    e(name) === undefined ? '' : html`<p class="field-error" id="f-${name}-error">${e(name)}</p>`;
  const aria = (name: string) =>
    e(name) === undefined ? '' : html`aria-invalid="true" aria-describedby="f-${name}-error"`;
  return html`<section class="card" id="payment" aria-labelledby="payment-title">
    <h2 id="payment-title">Record a payment</h2>
    <p class="hint">
      Money received outside Lightbox. When the payments reach the total, the invoice is paid and the client is emailed
      a receipt.
    </p>
    ${errorSummary(errors, LABELS)}
    <form method="post" action="/dashboard/invoices/${i.id}/payments" class="stack-form" novalidate>
      ${csrfField(csrf)}
      <div class="form-grid">
        <div class="field${e('amount') === undefined ? '' : ' field-invalid'}">
          <label for="f-amount">Amount (${i.currency})</label>
          ${err('amount')}
          <input
            id="f-amount"
            name="amount"
            type="text"
            inputmode="decimal"
            autocomplete="off"
            required
            value="${v.amount}"
            ${aria('amount')}
          />
        </div>
        <div class="field${e('method') === undefined ? '' : ' field-invalid'}">
          <label for="f-method">Method</label>
          ${err('method')}
          <select id="f-method" name="method" ${aria('method')}>
            ${PAYMENT_METHODS.map(
              (m) =>
                html`<option value="${m}" ${m === v.method ? 'selected' : ''}>${PAYMENT_METHOD_LABELS[m]}</option>`,
            )}
          </select>
        </div>
        <div class="field${e('reference') === undefined ? '' : ' field-invalid'}">
          <label for="f-reference">Reference <span class="optional">(optional)</span></label>
          ${err('reference')}
          <input
            id="f-reference"
            name="reference"
            type="text"
            maxlength="200"
            autocomplete="off"
            value="${v.reference}"
            ${aria('reference')}
          />
        </div>
      </div>
      <button type="submit" class="button">Record payment</button>
    </form>
  </section>`;
}

export function invoicePage(o: {
  viewer: Viewer;
  notice: Notice | null;
  invoice: InvoiceType;
  gallery: { id: string; address: string } | null;
  client: { id: string; name: string; email: string } | null;
  payments: PaymentType[];
  /** Active products, for editing a draft. */
  products: ProductType[];
  edit?: InvoiceFormState;
  payment?: { values: PaymentFormValues; errors: FieldErrors };
}): SafeHtml {
  const i = o.invoice;
  const csrf = o.viewer.csrfToken;
  const title = i.number === null ? 'Draft invoice' : `Invoice ${i.number}`;
  const facts = html`<dl class="facts">
    <dt>Client</dt>
    <dd>
      ${
        o.client === null
          ? html`<span class="muted">deleted client</span>`
          : html`<a href="/dashboard/clients/${o.client.id}">${o.client.name}</a>
              <span class="muted small">${o.client.email}</span>`
      }
    </dd>
    <dt>Gallery</dt>
    <dd>
      ${
        o.gallery === null
          ? html`<span class="muted">deleted gallery</span>`
          : html`<a href="/dashboard/galleries/${o.gallery.id}#invoices">${o.gallery.address}</a>`
      }
    </dd>
    ${
      i.issued_at === null
        ? ''
        : html`<dt>Issued</dt>
            <dd>${day(i.issued_at)}</dd>`
    }
    ${
      i.due_at === null
        ? ''
        : html`<dt>Due</dt>
            <dd>${day(i.due_at)}</dd>`
    }
    ${
      i.paid_at === null
        ? ''
        : html`<dt>Paid</dt>
            <dd>${day(i.paid_at)}</dd>`
    }
    ${
      i.voided_at === null
        ? ''
        : html`<dt>Voided</dt>
            <dd>${day(i.voided_at)}</dd>`
    }
    <dt>Pay to unlock</dt>
    <dd>${i.pay_to_unlock ? 'Yes: while open, the gallery shows watermarked previews' : 'No'}</dd>
    ${
      i.note === null
        ? ''
        : html`<dt>Note</dt>
            <dd class="wrap-anywhere">${i.note}</dd>`
    }
  </dl>`;
  const draft =
    i.status !== 'draft'
      ? ''
      : html`<section class="card" id="issue" aria-labelledby="issue-title">
            <h2 id="issue-title">Issue</h2>
            <p>
              Issuing gives it the next number and emails ${o.client?.name ?? 'the client'} the invoice, its PDF
              attached. ${i.pay_to_unlock ? 'The gallery then shows previews only until it is paid.' : ''} It cannot be
              edited after.
            </p>
            <form method="post" action="/dashboard/invoices/${i.id}/issue" class="inline">
              ${csrfField(csrf)}
              <button type="submit" class="button">Issue and email</button>
            </form>
          </section>
          <section class="card" id="edit" aria-labelledby="edit-title">
            <h2 id="edit-title">Edit the draft</h2>
            ${invoiceForm({
              action: `/dashboard/invoices/${i.id}`,
              csrf,
              state: o.edit ?? { values: formValuesOf(i, o.products), errors: {} },
              products: new Map(o.products.map((p) => [p.id, p])),
              currency: i.currency,
              submit: 'Save draft',
            })}
            <p class="danger-zone">
              <a class="link-danger" href="/dashboard/invoices/${i.id}/delete">Delete this draft…</a>
            </p>
          </section>`;
  const open =
    i.status !== 'open'
      ? ''
      : html`${paymentForm(i, csrf, o.payment?.values ?? { amount: moneyInput(i.amount_due, i.currency), method: 'bank_transfer', reference: '' }, o.payment?.errors ?? {})}
          <p class="danger-zone">
            <a class="link-danger" href="/dashboard/invoices/${i.id}/void">Void this invoice…</a>
          </p>`;
  return page({
    title,
    viewer: o.viewer,
    section: 'invoices',
    notice: o.notice,
    body: html`<p><a href="/dashboard/invoices">← Invoices</a></p>
      <div class="page-head">
        <h1>${title} ${invoiceBadge(i.status)}</h1>
        <a class="button button-secondary" href="/dashboard/invoices/${i.id}/pdf">PDF</a>
      </div>
      <section class="card" aria-labelledby="invoice-lines">
        <h2 id="invoice-lines" class="visually-hidden">Lines and totals</h2>
        ${facts} ${totalsTable(i)} ${paymentsList(i, o.payments)}
      </section>
      ${draft} ${open}`,
  });
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

export function confirmInvoicePage(o: { viewer: Viewer; invoice: InvoiceType; action: 'delete' | 'void' }): SafeHtml {
  const i = o.invoice;
  const name = i.number ?? 'this draft';
  const words =
    o.action === 'delete'
      ? html`The draft is deleted for good. It was never sent and has no number.`
      : html`${name} stays in the list, marked void, with nothing due; its number is not reused. The client is not
        emailed. ${i.pay_to_unlock ? 'The gallery is unlocked at once.' : ''} This cannot be undone.`;
  return page({
    title: o.action === 'delete' ? 'Delete draft invoice' : 'Void invoice',
    viewer: o.viewer,
    section: 'invoices',
    body: html`<h1>${o.action === 'delete' ? 'Delete this draft invoice?' : `Void ${name}?`}</h1>
      <section class="card">
        <p>${words}</p>
        <p class="muted">
          ${formatMoney(i.total, i.currency)}, ${count(i.items.length)} ${i.items.length === 1 ? 'line' : 'lines'}
        </p>
        <div class="actions">
          <form method="post" action="/dashboard/invoices/${i.id}/${o.action}" class="inline">
            ${csrfField(o.viewer.csrfToken)}
            <button type="submit" class="button button-danger">
              ${o.action === 'delete' ? 'Delete draft' : 'Void invoice'}
            </button>
          </form>
          <a class="button button-secondary" href="/dashboard/invoices/${i.id}">Cancel</a>
        </div>
      </section>`,
  });
}
