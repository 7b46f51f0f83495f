// Products (docs/api.md §29): the studio's catalogue, its prices typed and shown in the account's
// currency. Plain forms: no script needed.
import { ProductCreateBody, type ProductType } from '../../modules/products/products.schemas.ts';
import { formatMoney } from '../../modules/money/money.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { maxLengthOf } from '../form.ts';
import { count, day } from './format.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

export interface ProductFormValues {
  name: string;
  description: string;
  /** The price as typed, in the currency's major unit ("250.00"). */
  price: string;
  active: boolean;
}

export const EMPTY_PRODUCT: ProductFormValues = { name: '', description: '', price: '', active: true };

const LABELS: Record<string, string> = { name: 'Name', description: 'Description', price: 'Price' };

const activeBadge = (active: boolean): SafeHtml =>
  active
    ? html`<span class="badge badge-active">active</span>`
    : html`<span class="badge badge-archived">archived</span>`;

export function productsPage(o: {
  viewer: Viewer;
  notice: Notice | null;
  currency: string;
  items: ProductType[];
  total: number;
  nextUrl: string | null;
  paged: boolean;
}): SafeHtml {
  const rows =
    o.items.length === 0
      ? html`<p class="muted">
          No products yet. Add what the studio sells (photos, video, drone, floor plan…) to put them on invoices in a
          click.
        </p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Products list">
          <table class="stack" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Name</th>
                <th scope="col" role="columnheader" class="numeric">Price</th>
                <th scope="col" role="columnheader">Status</th>
                <th scope="col" role="columnheader">Added</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${o.items.map(
                (p) =>
                  html`<tr role="row">
                    <td role="cell" class="cell-title">
                      <a href="/dashboard/products/${p.id}">${p.name}</a>
                      ${p.description === null ? '' : html`<span class="block muted small">${p.description}</span>`}
                    </td>
                    <td role="cell" class="numeric nowrap" data-label="Price">
                      ${formatMoney(p.unit_amount, o.currency)}
                    </td>
                    <td role="cell" data-label="Status">${activeBadge(p.active)}</td>
                    <td role="cell" class="nowrap" data-label="Added">${day(p.created_at)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return page({
    title: 'Products',
    viewer: o.viewer,
    section: 'invoices',
    notice: o.notice,
    body: html`<p><a href="/dashboard/invoices">← Invoices</a></p>
      <div class="page-head">
        <h1>Products</h1>
        <a class="button" href="/dashboard/products/new">New product</a>
      </div>
      <section class="card" aria-label="Catalogue">
        <p class="muted small" role="status">
          ${count(o.total)} ${o.total === 1 ? 'product' : 'products'} · prices in ${o.currency}
        </p>
        ${rows}
        <nav class="pager" aria-label="Pages">
          ${o.paged ? html`<a href="/dashboard/products">First page</a>` : ''}
          ${o.nextUrl === null ? '' : html`<a class="button button-secondary" href="${o.nextUrl}">Next page</a>`}
        </nav>
      </section>`,
  });
}

function productFields(v: ProductFormValues, errors: FieldErrors, currency: string): SafeHtml {
  const d = errors.description;
  return html`${field({ name: 'name', label: 'Name', value: v.name, error: errors.name, maxlength: maxLengthOf(ProductCreateBody, 'name'), autocomplete: 'off', hint: 'As it reads on an invoice, e.g. “Photos, up to 25”.' })}
    <div class="field${errors.price === undefined ? '' : ' field-invalid'}">
      <label for="f-price">Price (${currency})</label>
      <p class="hint" id="f-price-hint">The price of one, e.g. ${priceExample(currency)}.</p>
      ${errors.price === undefined ? '' : html`<p class="field-error" id="f-price-error">${errors.price}</p>`}
      <input
        id="f-price"
        name="price"
        type="text"
        inputmode="decimal"
        autocomplete="off"
        class="input-money"
        value="${v.price}"
        required
        aria-describedby="f-price-hint${errors.price === undefined ? '' : ' f-price-error'}"
        ${errors.price === undefined ? '' : html`aria-invalid="true"`}
      />
    </div>
    <div class="field${d === undefined ? '' : ' field-invalid'}">
      <label for="f-description">Description <span class="optional">(optional)</span></label>
      ${d === undefined ? '' : html`<p class="field-error" id="f-description-error">${d}</p>`}
      <textarea
        id="f-description"
        name="description"
        rows="3"
        maxlength="${maxLengthOf(ProductCreateBody, 'description')}"
      >
${v.description}</textarea>
    </div>`;
}

/** "250.00" for USD, "2500" for JPY: what a price looks like typed in this currency. */
const priceExample = (currency: string): string => formatMoney(25_000, currency).slice(currency.length + 1);

export function newProductPage(o: {
  viewer: Viewer;
  currency: string;
  values: ProductFormValues;
  errors: FieldErrors;
}): SafeHtml {
  return page({
    title: 'New product',
    viewer: o.viewer,
    section: 'invoices',
    body: html`<p><a href="/dashboard/products">← Products</a></p>
      <h1>New product</h1>
      ${errorSummary(o.errors, LABELS)}
      <section class="card">
        <form method="post" action="/dashboard/products" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${productFields(o.values, o.errors, o.currency)}
          <label class="check">
            <input type="checkbox" name="active" value="1" ${o.values.active ? 'checked' : ''} /> Active: offered on new
            invoices
          </label>
          <button type="submit" class="button">Add product</button>
        </form>
      </section>`,
  });
}

export function productPage(o: {
  viewer: Viewer;
  notice: Notice | null;
  currency: string;
  product: ProductType;
  values: ProductFormValues;
  errors: FieldErrors;
}): SafeHtml {
  const p = o.product;
  return page({
    title: p.name,
    viewer: o.viewer,
    section: 'invoices',
    notice: o.notice,
    body: html`<p><a href="/dashboard/products">← Products</a></p>
      <div class="page-head">
        <h1>${p.name}</h1>
        ${activeBadge(p.active)}
      </div>
      <p class="lead">${formatMoney(p.unit_amount, o.currency)} each</p>
      <section class="card" aria-labelledby="product-details">
        <h2 id="product-details">Details</h2>
        ${errorSummary(o.errors, LABELS)}
        <form method="post" action="/dashboard/products/${p.id}" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${productFields(o.values, o.errors, o.currency)}
          <button type="submit" class="button">Save product</button>
        </form>
        <p class="hint">Invoices already made keep the name and price they copied.</p>
      </section>
      <section class="card" aria-labelledby="product-offer">
        <h2 id="product-offer">${p.active ? 'Offered on new invoices' : 'Archived'}</h2>
        <p>
          ${
            p.active
              ? 'It is listed when an invoice is made from a gallery. Archive it to stop offering it; it can be activated again.'
              : 'It is not offered on new invoices. Invoices that name it keep it.'
          }
        </p>
        <form method="post" action="/dashboard/products/${p.id}/active" class="inline">
          ${csrfField(o.viewer.csrfToken)}
          <input type="hidden" name="active" value="${p.active ? '0' : '1'}" />
          <button type="submit" class="button button-secondary">
            ${p.active ? 'Archive product' : 'Activate product'}
          </button>
        </form>
        <p class="danger-zone">
          <a class="link-danger" href="/dashboard/products/${p.id}/delete">Delete this product…</a>
        </p>
      </section>`,
  });
}

export function deleteProductPage(o: { viewer: Viewer; currency: string; product: ProductType }): SafeHtml {
  const p = o.product;
  return page({
    title: 'Delete product',
    viewer: o.viewer,
    section: 'invoices',
    body: html`<h1>Delete “${p.name}”?</h1>
      <section class="card">
        <p>
          It leaves the catalogue for good. Invoices that name it keep their lines as they are. To stop offering it but
          keep it, archive it instead.
        </p>
        <div class="actions">
          <form method="post" action="/dashboard/products/${p.id}/delete" class="inline">
            ${csrfField(o.viewer.csrfToken)}
            <button type="submit" class="button button-danger">Delete product</button>
          </form>
          <a class="button button-secondary" href="/dashboard/products/${p.id}">Cancel</a>
        </div>
      </section>`,
  });
}
