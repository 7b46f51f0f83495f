// An open invoice's payments (docs/api.md §29): those recorded, and the form that records money
// received outside Lightbox (amount typed in the invoice's currency, method, reference).
import type { InvoiceType, PaymentType } from '../../modules/invoices/invoices.schemas.ts';
import { PAYMENT_METHODS } from '../../db/schema-invoices.ts';
import { formatMoney } from '../../modules/money/money.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { day } from './format.ts';
import { csrfField, errorSummary, type FieldErrors } from './layout.ts';

const LABELS: Record<string, string> = { amount: 'Amount', method: 'Method', reference: 'Reference' };

const PAYMENT_METHOD_LABELS: Record<(typeof PAYMENT_METHODS)[number], string> = {
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

export function paymentsList(i: InvoiceType, payments: PaymentType[]): SafeHtml {
  if (payments.length === 0) return html``;
  return html`<h3>Payments</h3>
    <ul class="plain-list">
      ${payments.map(
        (p) =>
          html`<li>
            <span
              >${formatMoney(p.amount, i.currency)} ·
              ${PAYMENT_METHOD_LABELS[p.method]}${
                p.reference === null ? '' : html` · <span class="wrap-anywhere">${p.reference}</span>`
              }</span
            >
            <span class="muted small">${day(p.paid_at)}</span>
          </li>`,
      )}
    </ul>`;
}

export function paymentForm(i: InvoiceType, csrf: string, v: PaymentFormValues, errors: FieldErrors): SafeHtml {
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
