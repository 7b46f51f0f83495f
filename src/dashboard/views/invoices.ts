// Invoices (docs/api.md §29): the list with a status filter, an invoice's page (its lines and
// totals, the PDF, and what its status allows: edit, issue and delete a draft; record a payment on
// or void an open one), and the gallery page's Invoices card with its "New invoice" form. Plain
// forms: no script needed. Every amount is the invoice's integer, written by formatMoney.
import type { InvoiceType, PaymentType } from '../../modules/invoices/invoices.schemas.ts';
import { INVOICE_STATUSES } from '../../db/schema-invoices.ts';
import type { ProductType } from '../../modules/products/products.schemas.ts';
import { formatMoney, moneyInput } from '../../modules/money/money.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, day } from './format.ts';
import { percentText } from '../money-form.ts';
import { csrfField, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';
import { paymentForm, paymentsList, type PaymentFormValues } from './invoice-payments.ts';
import { formValuesOf, invoiceBadge, invoiceForm, invoiceName, type InvoiceFormState } from './invoice-form.ts';

export type InvoiceStatusFilter = (typeof INVOICE_STATUSES)[number] | '';

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
          <table class="stack stack-wide-labels" role="table">
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
      ${
        i.tax_rate_bps === 0
          ? ''
          : html`<dt>Tax (${percentText(i.tax_rate_bps)} %)</dt>
              <dd>${m(i.tax)}</dd>`
      }
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
