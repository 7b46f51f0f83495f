// An invoice's pay page (docs/api.md §29), opened from its payment_url: the studio, the invoice's
// number, the amount due, its PDF, and one button (Stripe Checkout, or in test mode the payment
// recorded at once). The gallery pages' look (their stylesheet, the notice card); no script. Every
// value is escaped (html``).
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../../gallery/assets.ts';
import { formatMoney } from '../../modules/money/money.ts';
import type { PayPage } from '../../modules/stripe/stripe.service.ts';

function head(title: string): SafeHtml {
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex, nofollow" />
    <meta name="referrer" content="no-referrer" />
    <title>${title}</title>
    <link rel="icon" href="${galleryAssetUrl('favicon.svg')}" type="image/svg+xml" />
    <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
  </head>`;
}

export function payPage(page: PayPage, state: { justPaid: boolean; failed?: string }): SafeHtml {
  const { invoice, studioName } = page;
  const money = (n: number) => formatMoney(n, invoice.currency);
  const number = invoice.number ?? '(draft)';
  const base = `/pay/${page.token}`;
  let body: SafeHtml;
  if (invoice.status === 'paid' || (state.justPaid && invoice.amount_due === 0)) {
    body = html`<h1>Paid, thank you</h1>
      <p>Invoice ${number} (${money(invoice.total)}) is paid in full. ${studioName} emails you a receipt.</p>`;
  } else if (invoice.status !== 'open') {
    body = html`<h1>Nothing to pay</h1>
      <p>Invoice ${number} is no longer open. Ask ${studioName} if you think this is a mistake.</p>`;
  } else if (state.justPaid) {
    // Back from Checkout before Stripe's event has arrived: it is recorded within moments.
    body = html`<h1>Thank you</h1>
      <p>Your payment is being confirmed. This page shows it as paid once ${studioName} has received it.</p>`;
  } else {
    body = html`<h1>Invoice ${number}</h1>
      <p class="pay__amount">${money(invoice.amount_due)}</p>
      <p>due to ${studioName}${invoice.due_at === null ? '' : html` by ${invoice.due_at.slice(0, 10)}`}</p>
      ${state.failed === undefined ? '' : html`<p class="pay__error" role="alert">${state.failed}</p>`}
      <form class="unlock" method="post" action="${base}">
        <button class="button" type="submit">Pay ${money(invoice.amount_due)} by card</button>
      </form>
      ${
        page.livemode
          ? html`<p class="notice__ref">You continue on Stripe's secure payment page.</p>`
          : html`<p class="notice__ref">Test mode: no card is charged; the payment is recorded at once.</p>`
      }`;
  }
  return html`<!doctype html>
    <html lang="en">
      ${head(`Invoice ${number} · ${studioName}`)}
      <body>
        ${
          page.livemode
            ? ''
            : html`<p class="test-mode" role="note">
                <strong>Test mode</strong> · This invoice is test data: nothing is charged.
              </p>`
        }
        <div class="error-page">
          <main class="notice">
            <p class="notice__studio">${studioName}</p>
            ${body}
            <p class="notice__ref"><a href="${base}/invoice.pdf">The invoice (PDF)</a></p>
          </main>
        </div>
      </body>
    </html> `;
}

export function payErrorPage(status: number, requestId: string): SafeHtml {
  const [title, message] =
    status === 404
      ? ['This page is not available', 'Ask the studio that sent you the link for a new one.']
      : status === 429
        ? ['Too many requests', 'Please wait a minute, then reload the page.']
        : ['Something went wrong', 'Please try again in a moment.'];
  return html`<!doctype html>
    <html lang="en">
      ${head(title)}
      <body class="error-page">
        <main class="notice">
          <h1>${title}</h1>
          <p>${message}</p>
          ${status >= 500 ? html`<p class="notice__ref">Reference: ${requestId}</p>` : ''}
        </main>
      </body>
    </html> `;
}
