// Settings > Studio > Online payment (docs/api.md §29): the studio's Stripe secret key and webhook
// signing secret, taken here and never shown again (kept sealed), and the URL to give Stripe.
import { html, type SafeHtml } from '../../lib/html.ts';
import { csrfField, errorSummary, field, type FieldErrors, type Viewer } from './layout.ts';
import type { StripeStatus } from '../../modules/stripe/stripe.service.ts';

export type { StripeStatus } from '../../modules/stripe/stripe.service.ts';

const STRIPE_LABELS = { secret_key: 'Secret key', webhook_secret: 'Webhook signing secret' };

export function stripeSection(viewer: Viewer, status: StripeStatus, errors: FieldErrors): SafeHtml {
  return html`<section class="card" aria-labelledby="stripe-title">
    <h2 id="stripe-title">Online payment (Stripe)</h2>
    <p>
      ${
        status.enabled
          ? html`<span class="badge badge-owner">On</span> Open invoices carry a Pay button: your clients pay by card on
              Stripe, and the payment is recorded on the invoice.`
          : html`<span class="badge">Off</span> Invoices say how to pay you; you record payments yourself.`
      }
    </p>
    <p class="muted">
      In Stripe, add a webhook endpoint with this URL for the <code>checkout.session.completed</code> event, then enter
      its signing secret below with your secret key.
    </p>
    <p><code class="wrap-anywhere" id="stripe-webhook-url">${status.webhookUrl}</code></p>
    ${errorSummary(errors, STRIPE_LABELS)}
    <form method="post" action="/dashboard/settings/stripe">
      ${csrfField(viewer.csrfToken)}
      ${field({ name: 'secret_key', label: STRIPE_LABELS.secret_key, type: 'password', error: errors.secret_key, autocomplete: 'off', hint: status.enabled ? 'Set: kept sealed, never shown again. Enter both to replace them.' : 'sk_live_… (or sk_test_… to try Stripe in its test mode).', autofocus: errors.secret_key !== undefined })}
      ${field({ name: 'webhook_secret', label: STRIPE_LABELS.webhook_secret, type: 'password', error: errors.webhook_secret, autocomplete: 'off', hint: 'whsec_…, shown by Stripe for the endpoint above.', autofocus: errors.secret_key === undefined && errors.webhook_secret !== undefined })}
      <div class="actions"><button type="submit" class="button">Save Stripe keys</button></div>
    </form>
    ${
      status.enabled
        ? html`<form method="post" action="/dashboard/settings/stripe/off" class="actions">
            ${csrfField(viewer.csrfToken)}
            <button type="submit" class="button button-secondary">Turn online payment off</button>
          </form>`
        : ''
    }
  </section>`;
}
